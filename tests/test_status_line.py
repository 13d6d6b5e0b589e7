"""The status bar leaves out whole chips by priority, never cuts a number ("SQNR 29.(")."""
from __future__ import annotations

import re

import pytest

from app.widgets.status import SEP, StatusSummary, failure_html, single_html
from vpu_core.graph.build import build_graph_model


@pytest.fixture(scope="module")
def line(analysis):
    a = analysis("resnet8")
    return single_html(a, build_graph_model(a), profile="default profile")


def _plain(text: str) -> str:
    return re.sub(r"<[^>]+>", "", text.replace("&nbsp;", " "))


@pytest.mark.parametrize("width", [1600, 900, 640, 420, 260, 120])
def test_chips_are_left_out_by_priority_never_cut(qtbot, line, width):
    label = StatusSummary()
    qtbot.addWidget(label)
    label.resize(width, 24)
    label.setText(line)
    shown = label.shown_chips()
    chips = [text for _, text in line.chips]
    assert shown and all(chip in chips for chip in shown)                # whole chips only
    assert [chips.index(c) for c in shown] == sorted(chips.index(c) for c in shown)   # in order
    kept = {p for p, text in line.chips if text in shown}
    dropped = {p for p, text in line.chips if text not in shown}
    assert not dropped or min(dropped) >= min(kept)                       # the head goes last
    if len(shown) > 1:
        assert label.text() == SEP.join(shown)
    if width >= 1600:
        assert len(shown) == len(chips)
    if width <= 420:
        assert "nodes (" not in label.text()                              # the least important first
    if "SQNR" in label.text():
        assert re.search(r"SQNR (\d+\.\d dB|—)", _plain(label.text()))    # the whole number
    assert "resnet8" in _plain(label.toolTip()) and "SQNR" in label.toolTip()    # all of it


def test_a_lone_chip_too_wide_is_elided_with_an_ellipsis(qtbot):
    label = StatusSummary()
    qtbot.addWidget(label)
    label.resize(200, 24)
    label.setText(failure_html("x" * 300, "the previous result (resnet8)"))
    assert label.text().endswith("…") and len(label.shown_chips()) == 1


def test_a_long_failure_gives_way_to_what_is_still_on_screen(qtbot):
    """A message with a long path is cut in its middle; "showing …" stays (it once dropped out
    when pytest's temporary folder was ten characters longer)."""
    label = StatusSummary()
    qtbot.addWidget(label)
    label.resize(900, 24)
    path = "/tmp/" + "/".join(["a-rather-long-folder"] * 12) + "/broken.pt2"
    label.setText(failure_html(f"Cannot load {path}: not a torch.export program.", "the previous result (resnet8)"))
    shown = _plain(label.text())
    assert shown.startswith("Run failed: Cannot load /tmp/") and "…" in shown
    assert "torch.export program." in shown and shown.endswith("showing the previous result (resnet8)")
    assert path in _plain(label.toolTip())


def test_a_loaded_program_is_labelled_with_the_quantizer_its_file_records(tmp_path):
    # the window once read "VPU" for a program XNNPACK quantized (the --quantizer default)
    from dataclasses import replace

    from app.widgets.node_html import summary_html
    from vpu_core.config import RunConfig
    from vpu_core.session import Session

    program = tmp_path / "xq.pt2"
    session = Session(disk_cache=False)
    session.save_program(RunConfig(model="conv_relu", quantizer="xnnpack", calib_batches=1), program)
    a = session.analysis(RunConfig(model=str(program)))              # --quantizer vpu, the default
    assert (a.quantizer, a.already_quantized) == ("xnnpack", True)
    model = build_graph_model(a)
    assert _plain(single_html(a, model).chips[0][1]) == "xq · XNNPACK (program file)"
    assert "XNNPACK quantizer (program file) · static batch" in summary_html(a, model)
    assert model.title == "xq · XNNPACK (program file)"
    foreign = replace(a, quantizer="unknown")                          # a file that records none
    assert _plain(single_html(foreign, model).chips[0][1]) == "xq · already quantized (program file)"
    assert "already quantized (program file) · static batch" in summary_html(foreign, model)


def test_the_headline_says_what_it_means_and_on_how_many_samples(analysis):
    """XNNPACK's graph places MACs on VPU ops but breaks the scale rules: its share is red with
    its caveat, never green beside the red violations; every SQNR says its sample count."""
    from app import theme

    vpu, xnn = analysis("resnet8"), analysis("resnet8", "xnnpack")
    ok, blocked = (single_html(a, build_graph_model(a)) for a in (vpu, xnn))
    share = next(text for _, text in ok.chips if "% of" in text)         # "VPU 94.1 % of 2.5 MMAC"
    assert f"color:{theme.CATEGORY_COLORS['vpu']}" in share and "once its" not in ok
    assert xnn.violations and f"color:{theme.DANGER}" in next(text for _, text in blocked.chips if "% of" in text)
    assert f"once its {len(xnn.violations)} rule violations are fixed" in _plain(blocked)
    assert vpu.inputs[0].shape[0] == 4 and vpu.accuracy_calls == 2 and vpu.accuracy_samples == 8
    assert f"SQNR {vpu.sqnr_db:.1f} dB (8 samples)" in _plain(ok)           # two calls at the run's batch



def test_under_another_target_the_status_line_speaks_for_it_alone(analysis):
    """The primary target leads: its name and partitions, its CPU ops; under a target other than
    the VPU no VPU rule violation, MAC share or hardware profile (they are the VPU's), and an op
    the target's lowering removed is counted apart, never as a CPU op."""
    from dataclasses import replace

    from vpu_core.analysis.results import CpuNode
    from vpu_core.targets.results import TargetResult

    xnn = analysis("resnet8", "xnnpack")
    assert xnn.violations
    vpu_line = _plain(single_html(xnn, build_graph_model(xnn), profile="default profile"))
    assert f"{len(xnn.violations)} violations" in vpu_line and "default profile" in vpu_line
    # the same graph judged by an Arm target (its verdict: the VPU's partition renamed, one op removed)
    gone = next(n for n, info in xnn.nodes.items() if info.kind == "call_function" and info.qparams is None
                and isinstance(xnn.partition.assignment.get(n), int))
    verdict = replace(xnn.partition, source="ethos-u55-128", assignment={**xnn.partition.assignment, gone: "cpu"},
                      cpu_nodes=(*xnn.partition.cpu_nodes, CpuNode(gone, "x", "folded", cause="removed")))
    judged = {"ethos-u55-128": TargetResult("ethos-u55-128", "Ethos-U55-128", verdict)}
    model = build_graph_model(xnn, partition_source="ethos-u55-128", targets=judged)
    line = _plain(single_html(xnn, model, "ethos-u55-128", "default profile", targets=judged))
    n = len(verdict.subgraphs)
    assert line.split(" · ")[2].strip().startswith(f"■ Ethos-U55-128 {n} partition")
    assert f"■ {len(xnn.partition.cpu_nodes)} CPU ops" in line and "1 removed while lowering" in line
    for vpu_word in ("violation", "profile", "VPU", "subgraph"):
        assert vpu_word not in line, (vpu_word, line)
    assert next(node for node in model.nodes if node.id == gone).category == "removed"
