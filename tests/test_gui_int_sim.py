"""The integer-simulation widget of the node panel, fed with a real resnet8 simulation (qtbot)."""
from __future__ import annotations

import pytest

from app.widgets.int_sim_panel import IntSimPanel


@pytest.fixture(scope="module")
def report(run):
    from vpu_core.intsim import simulate

    return simulate(run("resnet8"))


def test_panel_shows_the_selected_layer_and_its_difference_histogram(qtbot, report):
    panel = IntSimPanel()
    qtbot.addWidget(panel)
    panel.resize(430, 360)
    panel.show()
    panel.set_report(report)
    assert "SQNR int vs float" in panel.facts.text() and panel.note.isVisible()
    layer = next(la for la in report.layers if la.max_abs_lsb)      # a conv with .5-LSB ties
    panel.show_node(layer.nodes[-1])                                 # its quantize node selects it too
    assert panel.layer is layer and layer.node in panel.title.text()
    assert f"max |Δ| {layer.max_abs_lsb} LSB" in panel.facts.text() and "in the accumulator" in panel.facts.text()
    qtbot.waitUntil(panel.plot.isVisible)
    bars = [i for i in panel.plot.getPlotItem().items if i.__class__.__name__ == "BarGraphItem"]
    assert len(bars) == 2                                            # this layer and drift
    heights = {int(x + 0.2): h for x, h in zip(bars[0].opts["x"], bars[0].opts["height"])}
    assert heights[1] == dict(layer.diff_hist)[1]                    # the core's counts, drawn as they are


def test_panel_explains_nodes_that_are_not_layers_and_refusals(qtbot, report):
    from dataclasses import replace

    panel = IntSimPanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.set_report(report)
    panel.show_node("x")
    assert panel.layer is None and "not a layer the VPU requantizes" in panel.note.text()
    panel.set_report(replace(report, layers=(), refused="Integer simulation needs every scale …",
                             refused_rule="pow2_scale"))
    panel.show_node("conv2d")
    assert "Refused" in panel.facts.text() and not panel.note.isVisible()   # the reason says it all
    assert panel.maximumHeight() < 300               # no empty chart area: the node panel gets the room
    panel.set_report(None)
    assert "not run" in panel.note.text()


# -- in the window: the graph first, the integer simulation after it ---------------------------------

@pytest.fixture
def held_simulation(monkeypatch):
    """Holds the core's integer simulation (real, unchanged) until the test releases it, so the
    test sees the window between the graph and the simulation without timing anything."""
    import threading

    from vpu_core.session import Session

    gate, real = threading.Event(), Session.simulated

    def held(self, config, analysis, progress=None, cancel=None):
        simulated = real(self, config, analysis, progress)      # a late answer, whatever the cancel
        gate.wait(120)
        return simulated

    monkeypatch.setattr(Session, "simulated", held)
    yield gate
    gate.set()


def test_window_draws_the_graph_before_the_integer_simulation_and_keeps_the_view(
        qtbot, window, run_and_wait, held_simulation):
    state, panel = window.state, window.panels.int_sim_panel
    at_graph = []
    window.runs.succeeded.connect(lambda r: at_graph.append(
        (state.result is r, r.analysis.int_sim, state.simulating, panel.note.text())))
    shown = run_and_wait(window, {"model": "resnet8", "quantizer": "vpu"}, int_sim=False)
    assert at_graph == [(True, None, True, "Simulating in integers…")]   # the graph did not wait

    # the user works meanwhile: a search, a selection, a zoom
    assert window.navigation.search("relu") and window.navigation.select_in("a", "conv2d")
    window.graph_view.scale(1.5, 1.5)
    selection, search, scene = state.selection, state.search, window.graph_view.graph_scene()
    transform = window.graph_view.transform()
    assert state.simulating and "Simulating in integers" in panel.note.text()

    held_simulation.set()
    qtbot.waitUntil(lambda: not state.simulating, timeout=60_000)
    report = state.result.analysis.int_sim
    assert report is not None and report.layers and not report.refused
    assert state.result.graph is shown.graph and state.result.config == shown.config
    assert window.graph_view.graph_scene() is scene and window.graph_view.transform() == transform
    assert (state.selection, state.search) == (selection, search)
    assert panel.report is report and panel.layer is report.layer_of(selection.node) is not None
    assert f"max |Δ| {panel.layer.max_abs_lsb} LSB" in panel.facts.text()


def test_a_new_run_drops_the_late_simulation_of_the_old_one(qtbot, window, run_and_wait, held_simulation):
    state = window.state
    first = run_and_wait(window, {"model": "resnet8", "quantizer": "vpu"}, int_sim=False)
    assert state.simulating and first.analysis.int_sim is None
    attached = []
    state.int_sim_changed.connect(lambda: attached.append(state.result and state.result.analysis.int_sim))

    def start_second_run():
        from vpu_core.config import RunConfig

        window.runs.start(RunConfig(model="resnet8", quantizer="xnnpack"))
        held_simulation.set()            # the old simulation answers while the new run works
    second = run_and_wait(window, action=start_second_run, int_sim=False)
    assert second.config.quantizer == "xnnpack"
    qtbot.waitUntil(lambda: state.result.analysis.int_sim is not None, timeout=60_000)
    # XNNPACK's scales are not powers of two: refused at once, shown like any report
    report = state.result.analysis.int_sim
    assert report.refused and state.result.config.quantizer == "xnnpack" and not state.simulating
    assert "Refused" in window.panels.int_sim_panel.facts.text()
    # the VPU run's simulation never reached the window
    assert all(r is None or r is report for r in attached)
