"""The graph gets the room at 1280×720: on a big real model (the ResNet-50
shaped corpus model, 708 nodes) the canvas has at least 55 % of the window by default, as F.json
says it (`layout_facts`, what `gui --screenshot` writes), the window never grows, and the legend
never covers the breadcrumbs. The corpus run is shared with tests/test_corpus.py (same config)."""
from __future__ import annotations

import os

from app.window.launch import layout_facts

RESNET50 = os.path.join(os.path.dirname(__file__), "corpus", "resnet50_shaped.py")


def test_the_canvas_has_over_half_the_window_at_1280x720(window, run_and_wait, qtbot):
    window.resize_for(1280, 720)
    shown = run_and_wait(window, {"model": RESNET50, "calib_batches": 1})
    assert len(shown.analysis.nodes) > 650
    facts = layout_facts(window)
    assert facts["window"] == [1280, 720]
    x, y, w, h = facts["canvas"]
    assert w * h >= 0.55 * 1280 * 720 and facts["canvas_share"] >= 0.55, facts
    # the report and plots are tabs beside the node panel, one click away
    tabs = {d.windowTitle() for d in window.tabifiedDockWidgets(window.node_dock)}
    assert {"Report", "Plots", "What-if"} <= tabs
    # a node deep in the hierarchy: breadcrumbs and the legend both at the top, never overlapping
    deep = max((n for n, i in shown.analysis.nodes.items() if i.kind == "call_function"),
               key=lambda n: len(shown.analysis.nodes[n].module_stack))
    assert window.state.show_node("a", deep)
    view = window.graph_view
    qtbot.waitUntil(lambda: view._crumbs.isVisible())
    assert not view._crumbs.geometry().intersects(view._legend.geometry())
    assert (window.width(), window.height()) == (1280, 720)
