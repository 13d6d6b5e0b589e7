"""The sensitivity report guides: layers named with their module, the ranking
explained against local SQNR, shares that say why they do not add up, and global remedies when no
single-layer fix is worth applying. Pure formatting of real SensitivityReport values."""
import dataclasses

from vpu_core.reports.sensitivity import global_remedies, layer_name, ranking_notes, sensitivity_lines
from vpu_core.reports.summary_text import poor_sqnr_sentence
from vpu_core.sensitivity.results import LayerSensitivity, Outcome, SensitivityReport

BASE = Outcome(sqnr_db=8.6, cpu_ops=0, subgraphs=1, boundary_bytes=0, vpu_mac_share=1.0)


def _row(node, module, local, share, rank):
    return LayerSensitivity(node, "add.Tensor", node, local, local, None, None, rank, share, module=module)


def _report(rows, fixes=(), offers=("keep_float", "per_channel", "observer")):
    return SensitivityReport("m", "xnnpack", 8, 64, BASE, tuple(rows), tuple(fixes), offers)


def test_layers_carry_their_module_and_the_ranking_says_why_a_bad_layer_ranks_low():
    rows = [_row("linear_11", "encoder.layer.3.output.dense", 31.8, 0.7, 1),
            _row("add_3", "encoder.layer.0.attention", 0.2, 0.001, 2),
            _row("conv2d", "", 25.0, 0.39, 3)]
    r = _report(rows)
    assert layer_name(rows[0]) == "linear_11 · encoder.layer.3.output.dense" and layer_name(rows[2]) == "conv2d"
    text = "\n".join(sensitivity_lines(r))
    assert "linear_11 · encoder.layer.3.output.dense" in text
    notes = ranking_notes(r)
    assert "add_3 · encoder.layer.0.attention distorts its own output to 0.2 dB yet carries 0.1 %" in notes[0]
    assert "add up to 109 %, not 100 %" in notes[1] and "reinforce" in notes[1]
    # shares that add up (within 5 %) need no word
    even = [dataclasses.replace(rows[0], error_share=0.6), dataclasses.replace(rows[2], error_share=0.4)]
    assert ranking_notes(_report(even)) == []


def test_remedies_follow_what_the_quantizer_offers_and_a_poor_sqnr_is_said():
    assert any("per-channel weights everywhere" in x for x in global_remedies(_report([])))
    ethos = _report([], offers=("keep_float", "wide_activation"))
    remedies = global_remedies(ethos)
    assert any("--a16w8" in x for x in remedies) and not any("per-channel" in x for x in remedies)
    assert any("calibrated on 64 samples" in x for x in remedies) and any("QAT" in x for x in remedies)
    assert "8.6 dB is poor" in poor_sqnr_sentence(8.6) and poor_sqnr_sentence(28.0) == "" == poor_sqnr_sentence(None)
