"""The three-click story at 1280×720: select a CPU node → "Try it on the VPU"
→ Apply → the before / after card — by mouse and by keyboard, in the real window, on the zoo
transformer (its softmax falls back to the CPU: not in the shipped op list). The What-if tab is
usable at that size: at least eight op-list rows, the next-kernel tables fit without scrolling
sideways."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt

from app.widgets.profile_editor import OP_ROLE, OP_ROWS
from vpu_core.whatif.try_on_vpu import before_after

MODEL = {"model": "transformer", "calib_batches": 1}


@pytest.fixture
def laptop(window, run_and_wait, tmp_path):
    window.resize_for(1280, 720)
    window.whatif.profile_dir = tmp_path / "applied"
    before = run_and_wait(window, MODEL).analysis
    softmax = next(c.node for c in before.partition.cpu_nodes if c.op.startswith("softmax"))
    return before, softmax


def _click_node(qtbot, window, node: str) -> None:
    """A left click on the node's box, scrolled into view first (scrolling selects nothing)."""
    view = window.graph_view
    view.groups.reveal(node)
    box = view.graph_scene().items[node].box
    view.centerOn(box.center())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(box.center()))


def _click_link(qtbot, browser, text: str) -> None:
    """A left click on the link whose text is `text` in a QTextBrowser (scrolled to first)."""
    cursor = browser.document().find(text)
    assert not cursor.isNull(), f"no '{text}' in the panel"
    browser.setTextCursor(cursor)
    browser.ensureCursorVisible()
    rect = browser.cursorRect(cursor)
    qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(rect.left() - 10, rect.center().y()))


def _check_card(window, before, after) -> None:
    card = window.graph_stack.card
    assert card.isVisible() and "softmax.int" in card.title.text()
    assert window.graph_stack.rect().contains(card.geometry())           # over the canvas
    assert (window.width(), window.height()) == (1280, 720)              # the window never grew
    expected = before_after(before, after)
    moved = len(before.partition.cpu_nodes) - len(after.partition.cpu_nodes)
    assert moved > 0
    assert card.texts("cpu_ops") == (f"{len(before.partition.cpu_nodes)}", f"{len(after.partition.cpu_nodes)}",
                                     f"−{moved}")
    sub = expected.row("subgraphs")
    assert card.texts("subgraphs")[:2] == (f"{sub.before:.0f}", f"{sub.after:.0f}")
    assert card.texts("sqnr_db")[:2] == (f"{before.sqnr_db:.1f} dB", f"{after.sqnr_db:.1f} dB")
    assert set(card.cells) == {"cpu_ops", "subgraphs", "boundary_bytes", "sqnr_db", "vpu_mac_share"}


def _usable_at_720(qtbot, window) -> None:
    editor, panel = window.whatif_panel.editor, window.whatif_panel
    rows = editor.op_list.viewport().height() // max(editor.op_list.sizeHintForRow(0), 1)
    assert rows >= OP_ROWS, rows
    panel.setCurrentIndex(2)
    for table in (panel.candidates.candidates, panel.candidates.economics):
        header = table.horizontalHeader()
        assert header.length() <= table.viewport().width() + 1       # no sideways scrolling
        qtbot.waitUntil(lambda t=table: t.horizontalScrollBar().maximum() == 0, timeout=30_000)
    panel.setCurrentIndex(0)


def test_three_clicks_by_mouse(qtbot, window, run_and_wait, laptop):
    before, softmax = laptop
    _click_node(qtbot, window, softmax)                                   # 1: the CPU node
    assert window.state.selection.node == softmax
    _click_link(qtbot, window.panels.node_panel, "Try it on the VPU")    # 2: the panel's link
    editor = window.whatif_panel.editor
    assert window.whatif_dock.isVisible() and window.whatif_panel.currentIndex() == 0
    assert editor.op_list.currentItem().data(OP_ROLE) == "softmax.int"
    assert editor.op_list.currentItem().checkState() == Qt.CheckState.Checked and window.whatif.is_modified()
    _usable_at_720(qtbot, window)
    after = run_and_wait(window, action=lambda: qtbot.mouseClick(editor.apply_button, Qt.MouseButton.LeftButton))
    assert window.state.selection is not None and window.state.selection.node == softmax   # kept
    _check_card(window, before, after.analysis)


def test_three_keys_by_keyboard(qtbot, window, run_and_wait, laptop):
    before, softmax = laptop
    window.graph_view.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(window.view_bar.search, "softmax")                  # 1: find it, Enter selects
    qtbot.keyClick(window.view_bar.search, Qt.Key.Key_Return)
    assert window.state.selection is not None
    assert window.state.result.analysis.nodes[window.state.selection.node].op.startswith("softmax")
    window.graph_view.setFocus()
    qtbot.keyClick(window.graph_view, Qt.Key.Key_T)                      # 2: T tries it on the VPU
    editor = window.whatif_panel.editor
    assert editor.apply_button.hasFocus() and window.whatif.is_modified()
    after = run_and_wait(window, action=lambda: qtbot.keyClick(editor.apply_button, Qt.Key.Key_Space))  # 3
    _check_card(window, before, after.analysis)


def test_a_node_no_profile_edit_moves_offers_nothing(qtbot, window, laptop):
    before, _ = laptop
    on_vpu = next(n for n, side in before.partition.assignment.items()
                  if side != "cpu" and before.nodes[n].op.startswith("linear"))
    assert window.state.show_node("a", on_vpu)
    assert "Try it on the VPU" not in window.panels.node_panel.toPlainText()
    assert not window.whatif.try_selected() and not window.whatif.is_modified()
