"""The node panel's content and the report tables, from a real conv_relu analysis (no window)."""
from __future__ import annotations

import html
import re

import pytest

from app.node_panel import compact_ints, node_html, pow2_text, summary_html
from vpu_core.graph.build import build_graph_model


@pytest.fixture(scope="module")
def xnn(run_cached):
    from vpu_core.analysis import analyze

    return analyze(run_cached(model="conv_relu", quantizer="xnnpack"))


def _text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", markup)).replace("\u200b", "")


def test_pow2_and_compact_formatting():
    assert pow2_text("0.03125") == "0.03125 = 2^-5"
    assert pow2_text("0.03") == "0.03"
    assert pow2_text("0.0625 = 2^-4") == "0.0625 = 2^-4"
    assert compact_ints([7, 7, 8]) == "7, 7, 8"
    assert compact_ints([7] * 6 + [8] * 4) == "7 ×6, 8 ×4"


def test_summary_lists_every_rule_with_its_count(xnn):
    text = _text(summary_html(xnn))
    assert "conv_relu" in text and "XNNPACK" in text
    for result in xnn.rules:
        assert result.rule.title in text
    assert f"Rule violations {len(xnn.violations)}" in " ".join(text.split())


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
    assert "conv2d.default" in text and "VPU , subgraph" in text
    site = next(r for r in xnn.requant if r.node == conv.id)
    assert ("no exact shift" in text) == (not site.exact)
    assert f"SQNR vs float {xnn.layer_sqnr[conv.id]:.1f} dB" in text
    quant = next(n for n in model.nodes if n.label == "quantize")
    qtext = " ".join(_text(node_html(xnn, model, quant.id)).split())
    assert "scale" in qtext and "zero_point" in qtext
