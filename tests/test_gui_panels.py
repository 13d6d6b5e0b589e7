"""The node panel's content and the report tables, from a real conv_relu analysis (no window)."""
from __future__ import annotations

import html
import re

import pytest

from app.widgets.node_html import node_html, summary_html
from vpu_core.formatting import (compact_ints, is_pow2, node_label, scale_detail, scale_text,
                                 scales_text)
from vpu_core.graph.build import build_graph_model


@pytest.fixture(scope="module")
def xnn(run_cached):
    from vpu_core.analysis import analyze

    return analyze(run_cached(model="conv_relu", quantizer="xnnpack"))


def _text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", markup)).replace("\u200b", "")


def test_pow2_and_compact_formatting_with_one_tolerance():
    assert scale_detail(0.03125) == "0.03125 = 2^-5" and scale_text(0.03125) == "2^-5"
    assert scale_detail(0.03) == "0.03" and scale_text(0.02728) == "0.02728"
    assert is_pow2(0.0625 * (1 + 5e-7)) and scale_text(0.0625 * (1 + 5e-7)) == "2^-4"   # float32 noise
    assert not is_pow2(0.0625 * (1 + 1e-4)) and scale_text(0.0625 * (1 + 1e-4)) == "0.06251"
    assert scales_text([2 ** -9, 2 ** -6, 2 ** -7]) == "3 ch 2^-9…2^-6"
    assert compact_ints([7, 7, 8]) == "7, 7, 8"
    assert compact_ints([7] * 6 + [8] * 4) == "7 ×6, 8 ×4"


@pytest.mark.slow
def test_summary_lists_every_rule_with_its_count_and_rule_1(xnn):
    text = _text(summary_html(xnn))
    assert "conv_relu" in text and "XNNPACK" in text
    for result in xnn.rules:
        assert result.rule.title in text
    assert xnn.partition_rule.title in text                            # the op list, with the others
    assert f"VPU rule violations {len(xnn.violations)}" in " ".join(text.split())
    assert "Inputs x " in " ".join(text.split())                       # the graph's inputs and shapes


@pytest.mark.slow
def test_conv_panel_shows_violations_of_its_folded_weights_shifts_and_partition(xnn):
    model = build_graph_model(xnn)
    conv = next(n for n in model.nodes if n.label == "conv2d")
    text = " ".join(_text(node_html(xnn, model, conv.id)).split())
    found = [v for v in xnn.violations if v.node in (conv.id, *conv.folded)]
    assert found and f"VIOLATIONS ({len(found)})" in text
    rules = {r.rule.id: r.rule for r in xnn.rules}
    for v in found:
        assert rules[v.rule].title in text and v.message in text
        assert " ".join(rules[v.rule].reason.split()) in text          # the hardware reason
    assert "conv2d.default" in text and "VPU , partition" in text
    assert "ARGUMENTS" in text and "stride [1, 1]" in text and "padding [1, 1]" in text
    site = next(r for r in xnn.requant if r.node == conv.id)
    assert ("no exact shift" in text) == (not site.exact)
    assert f"SQNR vs float {xnn.layer_sqnr[conv.id]:.1f} dB" in text
    quant = next(n for n in model.nodes if n.label == "quantize")
    qtext = " ".join(_text(node_html(xnn, model, quant.id)).split())
    assert "scale" in qtext and "zero_point" in qtext
    assert node_label(xnn.nodes[conv.id]) == f"{xnn.nodes[conv.id].module} · conv2d"


@pytest.mark.slow
def test_a_qdq_on_the_cpu_side_says_why_not_just_cpu(xnn):
    """The summary counts CPU fallback *ops*; a host-side dequantize says it is not an op."""
    model = build_graph_model(xnn)
    cpu_qdq = [n for n, side in xnn.partition.assignment.items()
               if side == "cpu" and xnn.nodes[n].qparams is not None]
    assert cpu_qdq and not xnn.partition.cpu_nodes
    text = " ".join(_text(node_html(xnn, model, cpu_qdq[0])).split())
    assert "outside a VPU partition" in text and "not an op" in text
    assert "CPU ops 0" in " ".join(_text(summary_html(xnn, model)).split())
