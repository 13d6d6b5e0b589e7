"""pytest-qt: the window coloured by an Arm target (ExecuTorch's real Arm backend and Vela, no mocks).

One lowering of tests/models/arm_probe.py for the U55 (10–60 s on the shared machine) is made by
the first test in the window's worker process; the disk cache (one folder for the whole test run)
keeps its verdict and Vela's estimate, so the other tests and the `gui --target` process read it
back instead of lowering again. Every number the window shows is checked against the
TargetResult that came back from the core.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.features.shown import colour_choices
from vpu_core import targets
from vpu_core.config import RunConfig
from vpu_core.targets.arm.report_text import cycles_text

REPO = Path(__file__).resolve().parents[1]
PROBE = str(Path(__file__).parent / "models" / "arm_probe.py")
U55 = "ethos-u55-128"


def plain(text: str) -> str:
    return " ".join(text.replace("\u200b", "").split())


def _choose(window, source: str) -> None:
    """The same graph judged by `source` (Ctrl+D's path: the quantizer stays, an override)."""
    window.overlay.set_source(source)


def test_colour_by_lists_the_target_registry_and_says_why_one_is_unavailable():
    choices = colour_choices()
    assert [c.source for c in choices] == ["simulated", *(n for n in targets.names() if n != "vpu")]
    assert [c.title for c in choices] == [targets.info(n).title for n in targets.names()]
    missing = targets.TargetInfo("needs-nothing-here", "Nowhere", "a test target", "x:y",
                                 requires=(("no_such_module_for_this_test", "no-such-package"),))
    targets.register(missing)
    try:
        listed = {c.source: c for c in colour_choices()}["needs-nothing-here"]
        assert not listed.enabled and listed.tooltip == missing.unavailable()
        assert "no-such-package" in listed.tooltip
    finally:
        targets.unregister("needs-nothing-here")


def test_the_run_menu_and_the_toolbar_list_every_registered_target_and_follow_each_other(qtbot, window):
    run_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Run")
    target_menu = next(a.menu() for a in run_menu.actions() if a.text() == "Target")
    entries = target_menu.actions()
    choices = colour_choices()
    assert [a.text() for a in entries] == [c.title for c in choices]
    assert [a.isEnabled() for a in entries] == [c.enabled for c in choices]
    assert [a.isChecked() for a in entries] == [c.source == "simulated" for c in choices]
    assert window.controls.target_sources() == [c.source for c in choices]
    xnnpack = entries[[c.source for c in choices].index("xnnpack")]
    xnnpack.trigger()                                   # no result on screen: nothing to lower yet
    assert window.state.view.partition_source == "xnnpack"
    assert window.state.config.quantizer == "xnnpack"   # the target picks its quantizer
    assert window.controls.target.currentData() == "xnnpack"
    window.targets.choose("simulated")                  # the toolbar's choice: the menu follows
    assert entries[0].isChecked() and not xnnpack.isChecked()
    assert window.state.config.quantizer == "vpu"


@pytest.mark.slow
def test_coloured_by_ethos_u55_the_window_shows_the_compilers_verdict_and_velas_numbers(qtbot, window, run_and_wait):
    before = run_and_wait(window, {"model": PROBE})                     # the VPU quantizer's graph
    after = run_and_wait(window, action=lambda: _choose(window, U55))   # lowered in the worker
    assert after.analysis.timings_s["convert"] == before.analysis.timings_s["convert"]     # no new PTQ
    judged = after.targets[U55]
    verdict, vela = judged.verdict, judged.estimate
    assert verdict.source == U55 and vela is not None
    # the graph is coloured by the Arm verdict: its CPU nodes, its partitions
    model = window.graph_view.groups.grouped.flat
    cpu = {c.node: c for c in verdict.cpu_nodes}
    ops = {name for name, c in cpu.items() if c.cause != "removed"}       # a removed node runs nowhere
    assert {n.id for n in model.nodes if n.category == "cpu"} == ops & {n.id for n in model.nodes}
    assert "avg_pool2d" in cpu and cpu["avg_pool2d"].cause == "limit"
    legend = window.overlay.delegation_legend(window.graph_view)
    assert legend.isVisible() and legend.title == "Ethos-U55-128"
    texts = [text for _, text, _ in legend.rows]
    assert texts[0] == ("on the NPU (partitions)" if len(verdict.subgraphs) > 1 else "on the NPU")
    assert "on the CPU" in texts and "ops the NPU leaves on the CPU" in texts      # its badges
    assert not [text for _, text, _ in legend.rows if "violation" in text]     # the VPU's rules: not here
    # the status bar: the NPU time is Vela's estimate, said so with its version
    status = plain(window.summary.toolTip())
    assert f"NPU {vela.inference_ms:.3f} ms, Vela {vela.vela_version} estimate" in status
    n = len(verdict.subgraphs)
    assert f"Ethos-U55-128 {n} partition{'s' if n != 1 else ''}" in status and f"{len(cpu)} CPU ops" in status
    assert "violation" not in status and "profile" not in status
    # the Partition table: the Arm verdict first, each partition with Vela's cycles
    table = window.panels.partition
    assert table.top_titles()[0] == "Totals" and "Ethos-U55-128 partitions (" in " ".join(table.top_titles())
    assert window.panels.tables.tabText(1) == f"Partition ({len(cpu)} CPU)"
    rows = [table.tree.topLevelItem(i) for i in range(table.tree.topLevelItemCount())]
    texts = []
    while rows:
        item = rows.pop()
        texts.append(f"{item.text(0)} | {item.text(1)}")
        rows += [item.child(i) for i in range(item.childCount())]
    for p in vela.partitions:
        assert any(t.startswith(f"partition {p.index} | {cycles_text(p.cycles)} · {p.inference_ms:.3f} ms")
                   for t in texts), texts
    # a rejected op: the backend's own sentence and the check that said it
    window.navigation.select_in("a", "avg_pool2d")
    text = plain(window.panels.node_panel.toPlainText())
    reason = cpu["avg_pool2d"].reason.removeprefix("not delegated to Ethos-U55-128: ")
    assert reason == "Avgpool2d needs stride <= 3, got [16, 16]" and f"Ethos-U55-128 CPU — {reason}" in text
    assert "check AvgPool2dSupported" in text and "cause limit" in text and "CPU (Ethos-U55-128 leaves it there)" in text
    # an NPU op: Vela's figures for it, equal to the core's per-node numbers
    window.navigation.select_in("a", "conv2d")
    text = plain(window.panels.node_panel.toPlainText())
    cost = vela.node("conv2d")
    assert cost is not None and cost.cycles > 0
    assert f"cycles {cost.cycles:,}" in text and f"NPU cycles {cost.npu_cycles:,}" in text
    assert f"MACs {cost.macs:,}" in text and f"VELA {vela.vela_version} ESTIMATE" in text    # its section title
    assert f"utilisation {cost.utilisation(vela.macs_per_cycle):.0f} % of the MAC array" in text
    # the NPU cycles overlay: every node Vela costed, coloured by its NPU cycles
    window.view_options.set_metric("npu_cycles")
    metric = window.state.graph().model.metrics["npu_cycles"]
    assert metric["conv2d"] == cost.npu_cycles
    assert metric == {n: float(c.npu_cycles) for n, c in ((c.node, c) for c in vela.nodes) if n in metric}
    assert window.graph_view.highlights.metric == "npu_cycles"
    window.view_options.set_metric(None)
    # back to the VPU: a redraw, no job; the Arm verdict stays with the result
    _choose(window, "simulated")
    assert not window.runs.is_running() and not legend.isVisible()
    assert window.state.result.targets[U55] == judged


@pytest.mark.slow
def test_compare_puts_the_vpu_beside_an_ethos_u_from_the_window_and_the_command_line(
        qtbot, window, run_and_wait, tmp_path):
    config = RunConfig(model=PROBE)
    run_and_wait(window, config)
    window.compare.set_mode(True)
    combo = window.compare_bar.colour
    assert combo.itemData(0) == "" and combo.findData(U55) > 0          # "as A", then the registry
    window.compare_bar.quantizer.button(0).click()                      # B: the same VPU quantizer
    pair = run_and_wait(window, action=lambda: combo.setCurrentIndex(combo.findData(U55)))
    assert pair.a.config == pair.b.config == config
    assert pair.a.view.partition_source == "simulated" and pair.b.view.partition_source == U55
    verdict = pair.b.targets[U55].verdict
    views = window.compare_view.views
    a_cpu = {n.id for n in views["a"].graph_scene().model.nodes if n.category == "cpu"}
    b_cpu = {n.id for n in views["b"].graph_scene().model.nodes if n.category == "cpu"}
    ops = {c.node for c in verdict.cpu_nodes if c.cause != "removed"}      # a removed node runs nowhere
    assert b_cpu == ops & {n.id for n in views["b"].graph_scene().model.nodes}
    assert a_cpu == {c.node for c in pair.a.analysis.partition.cpu_nodes} & {n.id for n in views["a"].graph_scene().model.nodes}
    cmp = pair.comparison
    assert cmp.a_label == "VPU · VPU partition" and cmp.b_label == "VPU · Ethos-U55-128"
    assert cmp.partition_changes           # the two placements differ where the U55 and the VPU disagree
    assert window.overlay.delegation_legend(views["b"]).isVisible()
    assert not window.overlay.delegation_legend(views["a"]).isVisible()

    # the command line: --compare with a target's name colours B by it (from the disk cache)
    shot = tmp_path / "c.png"
    out = subprocess.run([sys.executable, "-m", "app", "gui", PROBE, "--compare", U55, "--size", "1280x720",
                          "--screenshot", str(shot)], cwd=REPO, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    facts = json.loads(shot.with_suffix(".json").read_text())
    assert facts["colour_by"] == {"a": "simulated", "b": U55}


@pytest.mark.slow
def test_gui_target_opens_coloured_by_it_and_a_cancel_falls_back_to_the_vpu(qtbot, window, run_and_wait, tmp_path):
    # --target: the window opens coloured by the Arm verdict (read from the disk cache)
    shot = tmp_path / "t.png"
    # (--quantizer vpu overrides the target's own: the VPU's graph lowered by the first test, cached)
    out = subprocess.run([sys.executable, "-m", "app", "gui", PROBE, "--target", U55, "--quantizer", "vpu",
                          "--metric", "npu_cycles",
                          "--size", "1280x720", "--screenshot", str(shot)],
                         cwd=REPO, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    facts = json.loads(shot.with_suffix(".json").read_text())
    assert facts["colour_by"] == {"a": U55} and facts["metric"] == "npu_cycles"
    assert "Vela 5.1.0 estimate" in facts["status"]
    # a lowering cancelled: back to the VPU colouring, the status bar says so
    run_and_wait(window, {"model": PROBE, "quantizer": "xnnpack"})     # not lowered for the U55 yet
    _choose(window, U55)
    qtbot.waitUntil(lambda: window.runs.is_running(), timeout=30_000)
    window.runs.cancel()
    qtbot.waitUntil(lambda: not window.runs.is_running(), timeout=60_000)
    qtbot.waitUntil(lambda: window.state.view.partition_source == "simulated", timeout=10_000)
    assert window.controls.target.currentData() == "simulated"
    assert window.state.run.cancelled and U55 not in window.state.result.targets


def test_the_arm_quantizer_is_the_run_toolbars_third_button_and_survives_it(window):
    controls = window.controls
    assert [b.text() for b in controls.quantizer.buttons()] == ["VPU", "XNNPACK", "Arm"]
    for quantizer in ("ethos-u", "ethos-u-a16w8"):
        controls.set_config(RunConfig(model=PROBE, quantizer=quantizer))
        assert controls.arm_button.isChecked() and controls.config().quantizer == quantizer
    controls.xnn_button.click()
    assert controls.config().quantizer == "xnnpack"
    controls.arm_button.click()
    assert controls.config().quantizer == "ethos-u"


def test_compare_spec_colours_b_by_a_target_or_changes_its_settings():
    from vpu_core.arguments import compare_spec
    from vpu_core.compare import CompareSpecError

    a = RunConfig(model=PROBE)
    assert compare_spec(a, U55) == (a, U55)                          # a target's name: B is A, coloured by it
    assert compare_spec(a, "xnnpack") == (RunConfig(model=PROBE, quantizer="xnnpack"), None)   # a quantizer's
    assert compare_spec(a, "quantizer=xnnpack,target=ethos-u85-256") == (
        RunConfig(model=PROBE, quantizer="xnnpack"), "ethos-u85-256")
    with pytest.raises(CompareSpecError, match="Unknown target 'nope'"):
        compare_spec(a, "target=nope")
