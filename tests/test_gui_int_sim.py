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
    panel.set_expanded(True)
    assert "SQNR int vs float" in panel.facts.text() and panel.note.isVisible()
    layer = next(la for la in report.layers if la.max_abs_lsb)      # a conv with .5-LSB ties
    panel.show_node(layer.nodes[-1])                                 # its quantize node selects it too
    assert panel.layer is layer and layer.node in panel.header.text()
    assert f"max |Δ| {layer.max_abs_lsb} LSB" in panel.facts.text() and "in the accumulator" in panel.facts.text()
    qtbot.waitUntil(lambda: panel.plot_slot.built and panel.plot_slot.plot.isVisible())
    bars = [i for i in panel.plot_slot.plot.getPlotItem().items if i.__class__.__name__ == "BarGraphItem"]
    assert len(bars) == 2                                            # this layer and drift
    heights = {int(x + 0.2): h for x, h in zip(bars[0].opts["x"], bars[0].opts["height"])}
    assert heights[1] == dict(layer.diff_hist)[1]                    # the core's counts, drawn as they are


def test_panel_explains_nodes_that_are_not_layers_and_refusals(qtbot, report):
    from dataclasses import replace

    panel = IntSimPanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.set_report(report)
    panel.set_expanded(True)
    panel.show_node("x")
    assert panel.layer is None and "not a layer the VPU requantizes" in panel.note.text()
    panel.set_report(replace(report, layers=(), refused="Integer simulation needs every scale …",
                             refused_rule="pow2_scale"))
    panel.show_node("conv2d")
    assert "Refused" in panel.facts.text() and not panel.note.isVisible()   # the reason says it all
    assert panel.maximumHeight() < 300               # no empty chart area: the node panel gets the room
    panel.set_report(None)
    assert "not run" in panel.note.text()


@pytest.mark.parametrize("select", [None, "layer"])
def test_every_row_of_facts_is_visible_in_a_narrow_squeezed_dock(qtbot, report, select):
    """The node dock is a splitter (node panel above, this below) and a splitter never asks a
    label how tall its wrapped text is: at 1280×720 the summary's last rows were cut off."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QSplitter, QTextEdit

    splitter = QSplitter(Qt.Orientation.Vertical)
    panel = IntSimPanel()
    splitter.addWidget(QTextEdit("the node panel, which would take all the room"))
    splitter.addWidget(panel)
    splitter.setStretchFactor(0, 10)
    qtbot.addWidget(splitter)
    splitter.resize(310, 560)
    splitter.show()
    panel.set_report(report)
    panel.set_expanded(True)
    if select:
        panel.show_node(next(la for la in report.layers if la.max_abs_lsb).node)
    qtbot.waitUntil(lambda: panel.facts.height() >= panel.facts.heightForWidth(panel.facts.width()) > 60)
    assert panel.facts.geometry().bottom() <= panel.height()


def test_folded_it_is_one_line_that_says_the_most_and_unfolds_on_a_click(qtbot, report):
    """At 1280×720 the panel took 40 % of the node dock (under XNNPACK the same
    'Refused.' paragraph for every node); folded (the default) it is one line."""
    from dataclasses import replace

    from PySide6.QtCore import Qt

    panel = IntSimPanel()
    qtbot.addWidget(panel)
    panel.resize(600, 400)
    panel.show()
    panel.set_report(report)
    assert not panel.expanded and panel.maximumHeight() < 45 and not panel.facts.isVisible()
    assert f"max {report.max_abs_lsb} LSB over {len(report.layers)} layers" in panel.header.text()
    layer = next(la for la in report.layers if la.max_abs_lsb)
    panel.show_node(layer.node)
    assert f"{layer.node}: max {layer.max_abs_lsb} LSB" in panel.header.text() and panel.maximumHeight() < 45
    qtbot.mouseClick(panel.header, Qt.MouseButton.LeftButton)       # unfolds: the facts and the chart
    assert panel.expanded and panel.facts.isVisible() and panel.maximumHeight() > 200
    qtbot.mouseClick(panel.header, Qt.MouseButton.LeftButton)
    assert not panel.expanded and panel.maximumHeight() < 45
    panel.set_report(replace(report, layers=(), refused="Integer simulation needs every scale …",
                             refused_rule="pow2_scale"))
    panel.show_node("conv2d")
    assert "refused: Integer simulation needs" in panel.header.toolTip() and panel.maximumHeight() < 45
    # a predicted graph: folded, the line says the simulation is coming, not that it was not run
    panel.set_report(None, pending=True)
    assert "quantizing… it follows the quantized graph" in panel.header.toolTip() + panel.header.text()
    panel.set_report(None)
    assert "not run for this result" in panel.header.toolTip() + panel.header.text()
