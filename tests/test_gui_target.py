"""pytest-qt: the target the user ships to leads the window (real runs, no mocks).

The run toolbar's Target picks the backend and its quantizer; everything on screen then speaks
for that target: the status line, the badges and the walk, the legend, the node panel, the
Partition table, the colours (one green for every partition, orange for the CPU). Checked on the
zoo's resnet8 and its small transformer under the VPU and XNNPACK, and (slow: the Arm backend and
Vela lower it) resnet8 under an Ethos-U55.
"""
from __future__ import annotations

import re

import pytest

from app.graph_view.style import Theme
from app.graph_view.nodes import StyleCache
from vpu_core.config import RunConfig
from vpu_core.graph.build import cpu_ops

U55 = "ethos-u55-128"


def plain(text: str) -> str:
    """The text without its markup, its whitespace collapsed."""
    return " ".join(re.sub(r"<[^>]+>", "", text).replace("\u200b", "").split())


def _drawn(window):
    """The flat GraphModel on the canvas."""
    return window.graph_view.groups.grouped.flat if window.graph_view.groups.grouped else window.state.graph().model


def _legend_texts(window) -> list[str]:
    """The rows of whichever legend the canvas shows (its own, or the target's)."""
    legend = window.overlay.delegation_legend(window.graph_view)
    if legend.isVisible():
        return [text for _, text, _ in legend.rows]
    from app.graph_view.style import legend_entries

    return [text for _, text, _ in legend_entries(window.graph_view.theme(), window.graph_view._legend.facts)]


def _status(window) -> str:
    return plain(window.summary.toolTip())


def _panel(window) -> str:
    return plain(window.panels.node_panel.toPlainText())


def test_the_target_picks_its_quantizer_and_the_quantizer_stays_an_override(window):
    controls, state = window.controls, window.state
    assert controls.target_sources()[:2] == ["simulated", "xnnpack"] and U55 in controls.target_sources()
    assert controls.target.currentData() == "simulated" and state.config.quantizer == "vpu"
    window.targets.choose("xnnpack")
    assert state.view.partition_source == "xnnpack" and state.config.quantizer == "xnnpack"
    assert controls.target.currentData() == "xnnpack" and controls.xnn_button.isChecked()
    controls.vpu_button.click()                 # the override: the VPU's graph judged by XNNPACK
    assert state.config.quantizer == "vpu" and state.view.partition_source == "xnnpack"
    window.targets.choose(U55)
    assert state.config.quantizer == "ethos-u" and controls.arm_button.isChecked()
    state.config = RunConfig(quantizer="ethos-u-a16w8")
    window.targets.choose("ethos-u85-256")       # another Arm target keeps the Arm config chosen
    assert state.config.quantizer == "ethos-u-a16w8"
    window.targets.choose("simulated")
    assert state.config.quantizer == "vpu" and state.view.partition_source == "simulated"
    window.runs.cancel()


def test_compare_bs_target_picks_bs_quantizer_and_as_a_keeps_it(qtbot):
    from app.features.shown import colour_choices
    from app.widgets.compare_bar import CompareBar

    bar = CompareBar()
    qtbot.addWidget(bar)
    bar.set_colour_choices(colour_choices())
    a = RunConfig(model="resnet8")
    bar.set_config(RunConfig(model="resnet8", quantizer="xnnpack"))
    bar.colour.setCurrentIndex(bar.colour.findData(U55))
    bar.colour.activated.emit(bar.colour.currentIndex())        # the user chose B's target
    assert bar.config_b(a).quantizer == "ethos-u" and bar.colour_b() == U55
    bar.vpu_button.click()                                       # the override: the VPU's graph on the U55
    assert bar.config_b(a).quantizer == "vpu" and bar.colour_b() == U55
    bar.colour.setCurrentIndex(0)
    bar.colour.activated.emit(0)                                 # "as A": B's quantizer stays
    assert bar.config_b(a).quantizer == "vpu" and bar.colour_b() is None


def test_gui_target_alone_picks_its_quantizer_and_quantizer_overrides_it():
    """`gui MODEL --target NAME` opens with the target's own quantizer unless --quantizer is given
    (vpu_core.arguments.resolve_quantizer: the first --target is the primary)."""
    from vpu_core.arguments import resolve_quantizer
    from vpu_core.cli import build_parser

    parse = build_parser().parse_args
    assert resolve_quantizer(parse(["gui", "resnet8", "--target", U55])) == "ethos-u"
    assert resolve_quantizer(parse(["gui", "resnet8", "--target", "xnnpack"])) == "xnnpack"
    assert resolve_quantizer(parse(["gui", "resnet8", "--target", U55, "--quantizer", "vpu"])) == "vpu"
    assert resolve_quantizer(parse(["gui", "resnet8"])) == "vpu"                   # the seeds' default
    assert resolve_quantizer(parse(["gui", "resnet8", "--xnnpack-delegation"])) == "vpu"   # "also judge"
    assert resolve_quantizer(parse(["check", "resnet8", "--target", "xnnpack", "--target", U55])) == "xnnpack"


def test_partitions_share_one_green_and_wear_their_number(qapp):
    """Two partitions never get near-identical teals: one green, a numbered tag each."""
    theme = Theme.make()
    assert len({theme.fill("vpu", i).name() for i in range(12)}) == 1
    assert theme.fill("cpu", None).name() != theme.fill("vpu", 0).name()
    assert StyleCache(theme, "cpu").badge_color.name() != StyleCache(theme, "violations").badge_color.name()


@pytest.mark.slow
@pytest.mark.parametrize("model", ["resnet8", "transformer"])
def test_everything_follows_the_target_under_the_vpu_and_xnnpack(qtbot, window, run_and_wait, model):
    # the VPU: its rules, its profile, its MAC share; red badges count its violations
    vpu = run_and_wait(window, {"model": model})
    a = vpu.analysis
    status = _status(window)
    part = a.partition
    n = len(part.subgraphs)
    assert f"VPU {n} partition{'s' if n != 1 else ''}" in status and f"{len(cpu_ops(part))} CPU ops" in status
    assert "VPU " in status and "% of" in status and "default profile" in status
    assert f"{len(a.violations)} violation" in status
    drawn = _drawn(window)
    assert drawn.meta["badges"] == "violations"
    assert sum(node.violations for node in drawn.nodes) + sum(e.violations for e in drawn.edges) == len(a.violations)
    legend = _legend_texts(window)
    assert ("VPU rule violations" in legend) == bool(a.violations)
    assert "subgraph" not in " ".join(legend) and "subgraph" not in status
    panel = _panel(window)
    assert "VPU target" in panel and "profile" in panel and "VPU RULES" in panel
    counter = plain(window.view_bar.violation_label.text())
    assert counter == (f"{len(a.violations)} violations" if a.violations else "no violations")

    # XNNPACK chosen: its quantizer and its verdict; nothing on screen speaks for the VPU
    xnn = run_and_wait(window, action=lambda: window.targets.choose("xnnpack"))
    assert xnn.config.quantizer == "xnnpack" and xnn.view.partition_source == "xnnpack"
    verdict = xnn.targets["xnnpack"].verdict
    ops = cpu_ops(verdict)
    status = _status(window)
    n = len(verdict.subgraphs)
    assert f"XNNPACK {n} partition{'s' if n != 1 else ''}" in status and f"{len(ops)} CPU ops" in status
    for vpu_word in ("violation", "profile", "VPU", "subgraph", "delegate"):
        assert vpu_word not in status, (vpu_word, status)
    drawn = _drawn(window)
    assert drawn.meta["badges"] == "cpu"
    shown = {node.id: node for node in drawn.nodes}
    badged = {node.id for node in drawn.nodes if node.violations}
    assert badged == {c.node for c in ops if c.node in shown}            # one badge per CPU op, none else
    assert all(shown[b].category == "cpu" and shown[b].violations == 1 for b in badged)
    # the same colours mean the same things: green on XNNPACK, orange on the CPU
    greens = {window.graph_view.theme().fill(node.category, node.subgraph).name()
              for node in drawn.nodes if node.category == "vpu"}
    assert len(greens) <= 1
    assert {node.id for node in drawn.nodes if node.category == "cpu"} == {c.node for c in ops} & set(shown)
    legend = _legend_texts(window)
    assert not [t for t in legend if "violation" in t or "VPU" in t or "subgraph" in t], legend
    if ops:
        assert "on the CPU" in legend and "ops XNNPACK leaves on the CPU" in legend
    if verdict.boundaries:
        assert "CPU ↔ XNNPACK boundary" in legend
    counter = plain(window.view_bar.violation_label.text())
    assert counter == (f"{len(ops)} CPU ops" if ops else "no CPU ops")
    panel = _panel(window)
    assert "XNNPACK target" in panel and "profile" not in panel and "VPU RULES" not in panel
    assert "Rule violations" not in panel and "VPU partition" not in panel
    if ops:                                     # a CPU op: the target's own reason
        first = next(c for c in ops if c.node in shown)
        window.navigation.select_in("a", first.node)
        panel = _panel(window)
        reason = first.reason.removeprefix("not delegated to XNNPACK: ")
        assert "CPU (XNNPACK leaves it there)" in panel and reason in panel
        assert "VIOLATIONS" not in panel and "VPU" not in panel.replace("(VPU", "")
        text = window.presenter.step(1)         # the walk goes through the same CPU ops
        assert text is not None and text.startswith(f"CPU op 1 of {len(ops)}")
    if verdict.boundaries:
        b = verdict.boundaries[0]
        window.navigation.select_in("a", b.dst)
        words = "CPU → XNNPACK" if b.direction == "cpu->vpu" else "XNNPACK → CPU"
        assert words in _panel(window) and "cpu->vpu" not in _panel(window)
    titles = " ".join(window.panels.partition.top_titles())
    assert "XNNPACK partitions (" in titles and "Simulated VPU" not in titles
    assert not window.panels.tables.isTabVisible(0)          # the VPU's rules tab: not its target


@pytest.mark.slow
def test_under_an_ethos_u_the_window_speaks_for_the_npu(qtbot, window, run_and_wait):
    """resnet8 under the Ethos-U55-128, its own quantizer (Arm's lowering and Vela: slow)."""
    window.state.set_partition_source(U55)
    shown = run_and_wait(window, {"model": "resnet8", "quantizer": "ethos-u"})
    judged = shown.targets[U55]
    verdict, vela = judged.verdict, judged.estimate
    ops, removed = cpu_ops(verdict), [c for c in verdict.cpu_nodes if c.cause == "removed"]
    status = _status(window)
    assert f"Ethos-U55-128 {len(verdict.subgraphs)} partition" in status and f"{len(ops)} CPU ops" in status
    assert f"NPU {vela.inference_ms:.3f} ms, Vela {vela.vela_version} estimate" in status
    assert "violation" not in status and "profile" not in status
    if removed:
        assert f"{len(removed)} removed while lowering" in status
    drawn = _drawn(window)
    assert {node.id for node in drawn.nodes if node.category == "removed"} == \
        {c.node for c in removed} & {node.id for node in drawn.nodes}
    assert sum(node.violations for node in drawn.nodes) == len([c for c in ops if c.node in
                                                                 {node.id for node in drawn.nodes}])
    # the collapsed groups count the NPU's CPU ops, not the VPU's violations
    stats = drawn.meta.get("group_stats") or {}
    assert all(s.violations == 0 for s in stats.values()) if not ops else True
    legend = _legend_texts(window)
    assert not [t for t in legend if "violation" in t or "VPU" in t], legend
    assert window.overlay.delegation_legend(window.graph_view).title == "Ethos-U55-128"
    panel = _panel(window)
    assert "Ethos-U55-128 target" in panel and "profile vpu-default" not in panel and "VPU RULES" not in panel
    assert "NPU time" in panel
    if removed:
        window.navigation.select_in("a", removed[0].node)
        panel = _panel(window)
        assert "removed while lowering" in panel and "CPU (Ethos" not in panel
    assert not window.panels.int_sim_panel.isVisibleTo(window.panels.node_area)
