"""The report tables read at 1280×720: in a 320 px dock no column is cut off, node
names take what they need up to 45 % and elide in the middle, messages wrap in full, the real
rule violations come first (constraint 1's CPU ops after them, folded), and tab titles count what
the tabs list. Cached zoo analyses (resnet8 under XNNPACK: violations; transformer: CPU ops), no
window."""
from __future__ import annotations

import pytest
from PySide6.QtGui import QFontMetricsF

DOCK = (320, 480)          # the Report dock of a 1280×720 window (docks tabbed, 0.25 of the width)


def _shown(qtbot, widget):
    qtbot.addWidget(widget)
    widget.resize(*DOCK)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _widths(tree) -> list[int]:
    return [tree.columnWidth(c) for c in range(tree.columnCount()) if not tree.header().isSectionHidden(c)]


def _rows(tree):
    for i in range(tree.topLevelItemCount()):
        top = tree.topLevelItem(i)
        yield top
        for j in range(top.childCount()):
            yield top.child(j)


def _cell_text_shown(table, item, col) -> str:
    """What the wrapping delegate draws in a cell, lines joined."""
    index = table.tree.indexFromItem(item, col)
    return " ".join(table.fit.delegate.lines(index, item.font(col)))


def test_violations_fit_the_dock_real_ones_first_messages_whole(qtbot, analysis):
    from app.widgets.tables import ViolationsTable

    a = analysis("resnet8", "xnnpack")
    table = _shown(qtbot, ViolationsTable())
    table.set_analysis(a)
    tree, room = table.tree, table.tree.viewport().width()
    assert sum(_widths(tree)) == room                                 # nothing past the edge
    assert 110 <= tree.columnWidth(0) <= 0.45 * room + 1 and tree.columnWidth(1) >= 120
    groups = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    counts = [g.childCount() for g in groups]
    real = sum(1 for r in a.rules if r.violations)
    assert all(counts[:real]) and groups[-1].text(0).startswith("1.")  # violations first, the op list last
    assert [g.text(0).split(".")[0] for g in groups[:real]] == sorted(
        (str(r.rule.constraint) for r in a.rules if r.violations), key=int)
    fm = QFontMetricsF(tree.font())
    long_row = max((r for g in groups[:real] for r in (g.child(i) for i in range(g.childCount()))),
                   key=lambda r: len(r.text(1)))
    assert fm.horizontalAdvance(long_row.text(1)) > tree.columnWidth(1)          # it must wrap…
    assert _cell_text_shown(table, long_row, 1).replace(" ", "") == long_row.text(1).replace(" ", "")  # …whole
    assert tree.visualItemRect(long_row).height() > 1.8 * fm.height()
    title = groups[0]
    assert "—" in title.text(0) and "violation" in title.text(0)                 # a rule's count in its row
    assert _cell_text_shown(table, title, 0).replace(" ", "") == title.text(0).replace(" ", "")


def test_cpu_ops_open_when_there_is_no_violation_and_names_elide_in_the_middle(qtbot, analysis):
    from app.widgets.panels import Panels
    from app.widgets.tables import ViolationsTable

    a = analysis("transformer")
    assert a.partition.cpu_nodes and not a.violations
    table = _shown(qtbot, ViolationsTable())
    table.set_analysis(a)
    last = table.tree.topLevelItem(table.tree.topLevelItemCount() - 1)
    assert last.isExpanded() and last.childCount() == len(a.partition.cpu_nodes)
    assert "not violations" in last.text(0)
    from PySide6.QtCore import Qt
    assert table.tree.textElideMode() == Qt.TextElideMode.ElideMiddle          # "encoder.l…· softmax"
    panels = Panels()
    panels.set_analysis(a)
    assert panels.tables.tabText(0) == "Violations" and panels.tables.tabText(1) == \
        f"Partition ({len(a.partition.cpu_nodes)} CPU)"


@pytest.mark.parametrize("width", [320, 560])
def test_partition_and_requant_tables_fit_and_fold_columns(qtbot, analysis, width):
    from app.widgets.tables import PartitionTable, RequantTable

    a = analysis("transformer")
    part = _shown(qtbot, PartitionTable())
    part.resize(width, 480)
    part.set_analysis(a)
    assert sum(_widths(part.tree)) == part.tree.viewport().width()
    requant = _shown(qtbot, RequantTable())
    requant.resize(width, 480)
    requant.set_analysis(a)
    assert sum(_widths(requant.tree)) <= requant.tree.viewport().width()
    assert (requant.fit.hidden() != []) == (width == 320)          # Range / Max error step aside when narrow
    row = requant.tree.topLevelItem(0)
    assert "Max error" in row.toolTip(2) and "Range" in row.toolTip(2)


@pytest.mark.parametrize("width", [320, 1400])
def test_the_compare_table_fits_a_narrow_dock_and_reads_whole_when_wide(qtbot, analysis, width):
    from app.widgets.compare_table import CompareTable
    from app.widgets.panels import Panels
    from vpu_core.compare import compare

    cmp = compare(analysis("resnet8"), analysis("resnet8", "xnnpack"))
    table = _shown(qtbot, CompareTable())
    table.resize(width, 480)
    table.set_comparison(cmp)
    tree = table.tree
    assert sum(_widths(tree)) == tree.viewport().width()
    hidden = table.fit.hidden()
    assert (2 in hidden and 3 in hidden) if width == 320 else hidden == []
    for item in (tree.topLevelItem(i) for i in range(tree.topLevelItemCount())):
        for col in (0, 1, 5):                                        # op, module, B's rules
            shown, text = _cell_text_shown(table, item, col), item.text(col)
            if width > 320:                                          # whole
                assert shown.replace(" ", "") == text.replace(" ", "")
            else:                                                    # at worst elided in the middle
                assert shown[:4] == text[:4] and shown[-3:] == text[-3:], (shown, text)
    panels = Panels()
    panels.set_comparison(cmp, None)
    assert panels.tables.tabText(panels.compare_index) == f"Compare ({len(cmp.differing)} of {len(cmp.pairs)} differ)"


def test_wrapped_lines_are_cached_per_column_setting(qtbot):
    """The same text at the same width wraps to each column's own line limit (the cache once
    served one column's wrapping to another)."""
    from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem
    from app.widgets.wrapping import WrapDelegate
    tree = QTreeWidget()
    qtbot.addWidget(tree)
    tree.setColumnCount(2)
    for c in (0, 1):
        tree.setColumnWidth(c, 80)
    delegate = WrapDelegate(tree, {1, 2}, max_lines=4)
    delegate.column_lines[1] = 2
    tree.setItemDelegate(delegate)
    text = "a long message that needs several lines at eighty pixels"
    item = QTreeWidgetItem(["", text, text])
    tree.setColumnCount(3)
    tree.setColumnWidth(2, 80)
    tree.addTopLevelItem(item)
    font = tree.font()
    many = delegate.lines(tree.indexFromItem(item, 2), font)
    one = delegate.lines(tree.indexFromItem(item, 1), font)
    assert len(many) > 2 and len(one) == 2
