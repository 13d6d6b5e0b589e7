"""A tab whose widget is built the first time the tab is on screen.

The Plots dock's four pyqtgraph plots (app.widgets.plots) are tabs: at 1280×720 the whole dock is
a tab behind the node panel, and in a larger window only one plot is visible at a time. Building
them with the window imported pyqtgraph before the first graph (app.widgets.plot_slot says what
that costs). A Deferred stands in the tab; what the window tells the plot before it exists is
kept (the latest call only: each plot draws one state) and given to it when it is built.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtGui import QPaintEvent, QPixmap

W = TypeVar("W", bound=QWidget)


class Deferred(QWidget, Generic[W]):
    """Stands where the widget `build()` makes will be; `apply(fn)` calls fn(widget) now if it
    is built, else when it is (`apply`: QWidget.update is Qt's repaint)."""

    def __init__(self, build: Callable[[], W]) -> None:
        super().__init__()
        self._build = build
        self._widget: W | None = None
        self._pending: Callable[[W], None] | None = None
        self._scheduled = False
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    @property
    def widget(self) -> W:
        """The widget, built now if it was not yet."""
        if self._widget is None:
            widget = self._widget = self._build()
            self._layout.addWidget(widget)
            if self.isVisible():
                widget.show()       # a layout shows a child added to a visible parent only later
            if self._pending is not None:
                pending, self._pending = self._pending, None
                pending(widget)
        return self._widget

    @property
    def built(self) -> bool:
        return self._widget is not None

    def apply(self, fn: Callable[[W], None]) -> None:
        if self._widget is None:
            self._pending = fn
        else:
            fn(self._widget)

    def paintEvent(self, event: QPaintEvent) -> None:
        # Painted, so on screen: a dock tabbed behind another counts as visible to Qt (and gets a
        # show event with the window) but is never painted. Built after this paint, not inside it.
        super().paintEvent(event)
        if self._widget is None and not self._scheduled:
            self._scheduled = True
            QTimer.singleShot(0, self, lambda: self.widget)     # not after this widget is gone


def grab_built(widget: QWidget) -> QPixmap:
    """`widget.grab()` with every Deferred on screen built and drawn: a first paint schedules
    their builds, the events run them (a screenshot taken at once showed an empty Plots tab)."""
    widget.grab()
    QApplication.processEvents()
    return widget.grab()
