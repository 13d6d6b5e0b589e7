"""Uncaught exceptions, in the GUI thread or any other, end in the window's error dialog.

`sys.excepthook` catches what escapes a Qt slot or event handler (PySide prints those through
it); `threading.excepthook` what escapes a Python thread. Both hand the error to a QObject that
lives in the GUI thread: its signal is queued when emitted from another thread, so the dialog
is always created where Qt allows it. The traceback also goes to stderr, and the window stays
usable: the error never takes the process down.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sys
import threading
import traceback

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QMainWindow

from app import dialogs
from vpu_core.errors import InspectorError

if TYPE_CHECKING:
    from types import TracebackType

INTERNAL_NOTE = "The window is still usable. The details below help a bug report."


class ErrorRouter(QObject):
    """Create it in the GUI thread; `report()` from any thread shows the dialog there."""

    error = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.error.connect(self._show)
        self.shown: list[InspectorError] = []

    def report(self, exc_type: type[BaseException] | None, exc: BaseException | None,
               tb: TracebackType | None, where: str = "") -> None:
        detail = "".join(traceback.format_exception(exc_type, exc, tb))
        try:
            sys.__stderr__.write(detail)           # type: ignore[union-attr]  # None: caught below
        except (AttributeError, OSError):
            pass
        if isinstance(exc, InspectorError):
            error = InspectorError(exc.message, exc.detail or detail)
        else:
            place = f" in {where}" if where else ""
            kind = exc_type.__name__ if exc_type is not None else "error"
            error = InspectorError(f"Unexpected error{place}: {kind}: {exc}", detail)
        self.error.emit(error)

    def _show(self, error: InspectorError) -> None:
        self.shown.append(error)
        title = "Error" if not error.message.startswith("Unexpected error") else "Internal error"
        dialogs.show_error(_main_window(), error, title=title, note=INTERNAL_NOTE)


def _main_window():
    """The visible main window to parent the dialog (found by type, not imported: no cycle)."""
    windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMainWindow)]
    return next((w for w in windows if w.isVisible()), windows[0] if windows else None)


_router: ErrorRouter | None = None


def install() -> ErrorRouter:
    """Route both hooks to the dialog (idempotent); returns the router (tests read `shown`)."""
    global _router
    if _router is None:
        _router = ErrorRouter()

    def on_main(exc_type, exc, tb) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        _router.report(exc_type, exc, tb)

    def on_thread(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "a background thread"
        _router.report(args.exc_type, args.exc_value, args.exc_traceback, f"thread '{name}'")

    sys.excepthook = on_main
    threading.excepthook = on_thread
    return _router
