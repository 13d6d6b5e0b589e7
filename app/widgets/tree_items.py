"""The items of a QTreeWidget, without Qt's None.

`topLevelItem(i)` and `child(i)` return None only for an index outside the tree; walking
`range(count)` never asks for one, so these generators skip it instead of every caller checking.
"""
from __future__ import annotations

from typing import Iterator

from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem


def top_level_items(tree: QTreeWidget) -> Iterator[QTreeWidgetItem]:
    for i in range(tree.topLevelItemCount()):
        item = tree.topLevelItem(i)
        if item is not None:
            yield item


def child_items(item: QTreeWidgetItem) -> Iterator[QTreeWidgetItem]:
    for i in range(item.childCount()):
        child = item.child(i)
        if child is not None:
            yield child
