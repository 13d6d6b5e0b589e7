"""Breadcrumbs: the module path of the selected node, each level clickable.

    crumbs = Breadcrumbs(parent)
    crumbs.set_path([("encoder", "encoder (Encoder)"), ("encoder.layer.3", "layer.3 (BertLayer)")],
                    leaf="matmul_4")
    crumbs.group_clicked.connect(view.groups.reveal_group)      # the path of the level clicked

Short labels only (`layer.3 (BertLayer)`), never class paths; the full module path is the tooltip.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from vpu_core.formatting import call_text

SEPARATOR = "›"


class Breadcrumbs(QFrame):
    group_clicked = Signal(str)         # module group path

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("breadcrumbs")
        self.setStyleSheet(
            "#breadcrumbs { background: rgba(255,255,255,235); border: 1px solid #c9ced6;"
            " border-radius: 6px; }"
            "#breadcrumbs QToolButton { border: none; padding: 1px 3px; color: #1f4f8f; }"
            "#breadcrumbs QToolButton:hover { text-decoration: underline; }"
            "#breadcrumbs QLabel { color: #5b636d; }")
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(6, 2, 6, 2)
        self._row.setSpacing(2)
        self.paths: list[str] = []
        self.hide()

    def set_path(self, levels: list[tuple[str, str]], leaf: str = "") -> None:
        """`levels`: (group path, short label) from the outermost group in; `leaf`: the node."""
        while self._row.count():
            item = self._row.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:             # hidden now: deleteLater left it drawn under the new one
                widget.hide()
                widget.deleteLater()
        self.paths = [p for p, _ in levels]
        home = QLabel("model")
        self._row.addWidget(home)
        for path, label in levels:
            self._row.addWidget(QLabel(SEPARATOR))
            button = QToolButton()
            button.setText(label)
            button.setToolTip(call_text(path))
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.clicked.connect(lambda _=False, p=path: self.group_clicked.emit(p))
            self._row.addWidget(button)
        if leaf:
            self._row.addWidget(QLabel(SEPARATOR))
            name = QLabel(f"<b>{leaf}</b>")
            self._row.addWidget(name)
        for i in range(self._row.count()):   # Qt shows a widget added to a visible frame only on
            item = self._row.itemAt(i)       # the next event loop pass: sized before that, the
            widget = item.widget() if item is not None else None    # frame was an empty box
            if widget is not None:
                widget.show()
        self.setVisible(bool(levels) or bool(leaf))
        self.adjustSize()

    def texts(self) -> list[str]:
        """The texts shown, in order (for tests and screen readers)."""
        out = []
        for i in range(self._row.count()):
            item = self._row.itemAt(i)
            w = item.widget() if item is not None else None
            if isinstance(w, (QLabel, QToolButton)) and w.text() != SEPARATOR:
                out.append(w.text().replace("<b>", "").replace("</b>", ""))
        return out
