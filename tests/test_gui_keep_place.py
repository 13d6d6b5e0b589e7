"""The selected node keeps its place across every view change: Hide Q/DQ,
fold parameters, an applied profile, the metric and XNNPACK overlays. Before, each of them drew
the graph anew from its top and left the selection off screen.

The real window at 1280×720 on the zoo transformer (a graph several screens tall)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF

MODEL = {"model": "transformer", "calib_batches": 1}


def _where(window, node: str) -> QPointF:
    view = window.graph_view
    anchor = view.anchor_of(node)
    assert anchor is not None, f"{node} is not drawn"
    return anchor[0]


def _in_view(window, node: str) -> bool:
    view = window.graph_view
    box = view.graph_scene().items[node].box
    return view.visible_scene_rect().contains(box)


@pytest.fixture
def shown(window, run_and_wait, qtbot):
    """The transformer at 1280×720 with a softmax of its second layer selected and centred."""
    window.resize_for(1280, 720)
    run_and_wait(window, MODEL)
    analysis = window.state.result.analysis
    softmax = [n for n, i in analysis.nodes.items() if i.op.startswith("softmax")][-1]
    assert window.state.show_node("a", softmax)
    qtbot.waitUntil(lambda: _in_view(window, softmax))
    view = window.graph_view
    assert not view.visible_scene_rect().contains(view.sceneRect())    # the graph is taller than the window
    return softmax


def _kept(window, node: str, before: QPointF) -> None:
    selection = window.state.selection
    assert selection is not None and selection.node == node
    assert _in_view(window, node)
    after = _where(window, node)
    # at the height it was (a narrower graph is centred across: Qt clamps the scroll)
    assert abs(after.y() - before.y()) <= 3, (before, after)


def test_hide_qdq_fold_and_the_metric_overlay_keep_the_selected_node_in_place(window, shown, qtbot):
    before = _where(window, shown)
    window.view_bar.hide_qdq.click()                                # a redraw, milliseconds
    qtbot.waitUntil(lambda: window.state.result.view.hide_qdq)
    _kept(window, shown, before)
    window.view_bar.hide_qdq.click()
    qtbot.waitUntil(lambda: not window.state.result.view.hide_qdq)
    _kept(window, shown, before)
    window.view_bar.fold.click()                                    # parameters unfolded
    qtbot.waitUntil(lambda: not window.state.result.view.fold_params)
    _kept(window, shown, before)
    combo = window.view_bar.metric_combo                            # colour by SQNR: no redraw
    combo.setCurrentIndex(combo.findData("sqnr"))
    qtbot.waitUntil(lambda: window.state.metric == "sqnr")
    _kept(window, shown, before)


def test_apply_keeps_the_selected_node_in_place(window, shown, qtbot, run_and_wait):
    before = _where(window, shown)
    editor = window.whatif_panel.editor
    editor.max_shift.setValue(editor.max_shift.value() - 1)         # re-analysis only
    run_and_wait(window, action=window.whatif.apply)
    qtbot.waitUntil(lambda: window.state.result.config.profile is not None)
    _kept(window, shown, before)


@pytest.mark.slow
def test_the_xnnpack_overlay_keeps_the_selected_node_in_place(window, shown, qtbot, run_and_wait):
    before = _where(window, shown)
    run_and_wait(window, action=window.overlay.toggle)              # lowered with ExecuTorch
    qtbot.waitUntil(lambda: window.state.result.view.partition_source == "xnnpack")
    _kept(window, shown, before)


def test_focus_and_presentation_modes(window, shown, qtbot):
    """F11: only the canvas (docks, toolbars, status bar hidden; back as they were); F5: larger
    bold labels, thick edges, the legend in the larger font."""
    from PySide6.QtCore import Qt

    canvas = window.graph_view
    area = canvas.width() * canvas.height()
    window.whatif_dock.hide()                               # closed by the user: stays closed
    qtbot.keyClick(window, Qt.Key.Key_F11)
    assert window.state.focus_mode
    assert not any(w.isVisible() for w in (window.node_dock, window.tables_dock, window.run_toolbar,
                                           window.view_bar, window.statusBar()))
    qtbot.waitUntil(lambda: canvas.width() * canvas.height() > 0.9 * window.width() * window.height())
    assert canvas.width() * canvas.height() > 1.5 * area
    qtbot.keyClick(window, Qt.Key.Key_F11)
    assert not window.state.focus_mode and window.node_dock.isVisible() and window.view_bar.isVisible()
    assert not window.whatif_dock.isVisible()
    legend = canvas._legend.size()
    edge = canvas.theme().edge_pen(1.0).widthF()
    qtbot.keyClick(window, Qt.Key.Key_F5)
    theme = canvas.theme()
    assert window.state.look.presentation and theme.presentation
    assert theme.label_font.pixelSize() >= 16 and theme.label_font.bold()
    assert theme.edge_pen(1.0).widthF() >= 2 * edge - 1e-9
    assert canvas._legend.width() > legend.width() and canvas._legend.height() > legend.height()
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert not canvas.theme().presentation
