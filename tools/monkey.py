"""A random-input (monkey) run over the real window: nothing a user does may end in an uncaught exception.

    python -m tools.monkey [--actions N] [--seed S] [--model resnet8] [--size 1280x720]

Clicks (left, right, double) on random widgets, keys and shortcuts, wheel turns, text pasted into
every editable field followed by Return, menu actions triggered, runs started and cancelled. The
file dialogs answer with random paths (long names, NUL, control characters, folders, devices),
and menus, popups and dialogs left open are closed as they appear. Exits 1 with what it saw when
any exception escaped (a slot, a virtual method, a thread) or Qt printed a critical message; the
suite's short, seeded run of the same monkey is tests/test_gui_fuzz.py. Offscreen unless a
display is set.
"""
from __future__ import annotations

import os
import random
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from app.window.main_window import MainWindow

# What a user pastes by mistake, or on purpose (no lone surrogates: a QString cannot hold one)
TEXTS = ("x" * 5000, "a\x00b", "a\nb", "\x1b[31m", "\t", "9" * 400, "-1", "0", "1e400", "nan", "inf", "/",
         "/dev/null", "/dev/zero", "/proc/self/mem", "resnet8", "conv_relu", "xnnpack", "edge_npu", "😀" * 50,
         "../" * 80, "漢字.py", "model.py:get_model", "metric.py:evaluate", " ", "", "%s%n{0}", "'\"\\")
NASTY = ("x" * 5000, "a\x00b", "a\nb", "/dev/zero", "x" * 300 + ".py")    # pasted more often
SKIPPED_ACTIONS = ("quit", "exit", "close window", "full screen")     # would end or detach the run


class Monkey:
    """One random action at a time on `window` (`step`), with `rng` choosing; `paths` feed the
    file dialogs and the pasted text."""

    def __init__(self, window: MainWindow, rng: random.Random, paths: list[str]) -> None:
        from PySide6.QtCore import QTimer

        self.window, self.rng = window, rng
        self.texts = [*TEXTS, *paths]
        self.actions: dict[str, int] = {}
        self._closer = QTimer()                 # menus, dialogs: closed as they open
        self._closer.setInterval(25)
        self._closer.timeout.connect(close_popups)
        self._closer.start()

    def answer_dialogs(self, patch: Callable[[object, str, object], None]) -> None:
        """Replace the blocking file / number dialogs of app.dialogs (`patch(module, name, fn)`)."""
        from app import dialogs

        def path(*_a: object) -> str | None:
            return self.rng.choice([None, *self.texts])

        for name in ("open_model_dialog", "open_profile_dialog", "open_calibration_dialog", "save_report_dialog"):
            patch(dialogs, name, path)
        patch(dialogs, "open_folder_dialog", lambda *_a: path())
        patch(dialogs, "export_image_dialog", lambda *_a: (lambda p: p and (p, self.rng.choice(["graph", "view"])))(path()))
        patch(dialogs, "ask_time_limit", lambda *_a: self.rng.choice([None, 0, 1, 10**6]))
        patch(dialogs, "confirm_python_model", lambda *_a: False)

    def run(self, steps: int, pause_s: float = 0.0, watchdog_s: float = 0.0) -> None:
        """`steps` actions; `watchdog_s`: a step (with its events) still going after that long
        prints every thread's stack (a hang shows where it is)."""
        import faulthandler

        from PySide6.QtWidgets import QApplication

        for _ in range(steps):
            if watchdog_s:
                faulthandler.dump_traceback_later(watchdog_s)   # re-armed: only a stuck step dumps
            self.step()
            QApplication.processEvents()
            if pause_s:
                time.sleep(pause_s)
        faulthandler.cancel_dump_traceback_later()

    def step(self) -> None:
        kind = self.rng.choices(("click", "key", "wheel", "paste", "action", "run"), (30, 20, 10, 20, 12, 8))[0]
        self.actions[kind] = self.actions.get(kind, 0) + 1
        getattr(self, f"_{kind}")()

    # -- the actions -------------------------------------------------------------------------------
    def _widgets(self) -> list[QWidget]:
        from PySide6.QtWidgets import QWidget

        return [w for w in self.window.findChildren(QWidget) if w.isVisible() and w.isEnabled()
                and w.width() > 2 and w.height() > 2]

    def _click(self) -> None:
        from PySide6.QtCore import QPoint, Qt
        from PySide6.QtTest import QTest

        widgets = self._widgets()
        if not widgets:
            return
        w = self.rng.choice(widgets)
        pos = QPoint(self.rng.randrange(w.width()), self.rng.randrange(w.height()))
        button = self.rng.choices((Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton), (5, 1))[0]
        if self.rng.random() < 0.15:
            QTest.mouseDClick(w, button, Qt.KeyboardModifier.NoModifier, pos)
        else:
            QTest.mouseClick(w, button, Qt.KeyboardModifier.NoModifier, pos)

    def _key(self) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest
        from PySide6.QtWidgets import QApplication

        K, M = Qt.Key, Qt.KeyboardModifier
        keys = (K.Key_A, K.Key_F, K.Key_H, K.Key_Z, K.Key_0, K.Key_Plus, K.Key_Minus, K.Key_Space, K.Key_Return,
                K.Key_Escape, K.Key_Tab, K.Key_Backspace, K.Key_Delete, K.Key_Left, K.Key_Right, K.Key_Up,
                K.Key_Down, K.Key_PageUp, K.Key_PageDown, K.Key_Home, K.Key_End, K.Key_F5, K.Key_F11, K.Key_Period)
        modifier = self.rng.choices((M.NoModifier, M.ControlModifier, M.ShiftModifier), (6, 3, 1))[0]
        target = QApplication.focusWidget() or self.window
        QTest.keyClick(target, self.rng.choice(keys), modifier)

    def _wheel(self) -> None:
        from PySide6.QtCore import QPoint, QPointF, Qt
        from PySide6.QtGui import QWheelEvent
        from PySide6.QtWidgets import QApplication

        widgets = self._widgets()
        if not widgets:
            return
        w = self.rng.choice(widgets)
        pos = QPointF(self.rng.randrange(w.width()), self.rng.randrange(w.height()))
        delta = self.rng.choice((-720, -120, 120, 240, 1200))
        modifier = self.rng.choice((Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ControlModifier))
        QApplication.sendEvent(w, QWheelEvent(pos, w.mapToGlobal(pos), QPoint(), QPoint(0, delta), Qt.MouseButton.NoButton,
                                              modifier, Qt.ScrollPhase.NoScrollPhase, False))

    def _paste(self) -> None:
        """Text pasted into an editable field (a line edit, an editable combo, a spin box), then Return."""
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest
        from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QLineEdit

        fields = [w for w in self._widgets() if isinstance(w, QLineEdit) and not w.isReadOnly()]
        fields += [s.lineEdit() for s in self._widgets() if isinstance(s, QAbstractSpinBox) and not s.isReadOnly()]
        fields = [f for f in fields if f is not None]
        if not fields:
            return
        field = self.rng.choice(fields)
        QApplication.clipboard().setText(self.rng.choice(NASTY if self.rng.random() < 0.4 else self.texts))
        field.setFocus()
        field.selectAll()
        field.paste()
        QTest.keyClick(field, Qt.Key.Key_Return)

    def _action(self) -> None:
        """A menu bar or toolbar action, as a click on it would trigger it (a context menu's own
        actions are reached by a right click: pyqtgraph's Export… assumes its menu was opened)."""
        from PySide6.QtGui import QAction
        from PySide6.QtWidgets import QMenu, QToolBar

        actions: list[QAction] = list(self.window.menuBar().actions())
        for bar in self.window.findChildren(QToolBar):
            actions += bar.actions()
        for action in list(actions):
            menu = action.menu()
            actions += menu.actions() if isinstance(menu, QMenu) else []
        usable = [a for a in actions if a.isEnabled() and a.text() and a.menu() is None
                  and not any(s in a.text().lower().replace("&", "") for s in SKIPPED_ACTIONS)]
        if usable:
            self.rng.choice(usable).trigger()

    def _run(self) -> None:
        runs = self.window.runs
        self.rng.choice((runs.start, runs.cancel, runs.request, lambda: None))()


def close_popups() -> None:
    """Close the menu, popup or dialog a random action opened (it would wait for a user)."""
    from PySide6.QtWidgets import QApplication, QDialog, QMessageBox

    for widget in (QApplication.activePopupWidget(), QApplication.activeModalWidget()):
        if widget is not None:
            widget.reject() if isinstance(widget, QDialog) else widget.close()
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, QMessageBox) and widget.isVisible():
            widget.close()


def fuzz_paths(folder: Path) -> list[str]:
    """Paths of every kind in `folder` for the dialogs and the pasted text."""
    (folder / "dir").mkdir(exist_ok=True)
    (folder / "metric.py").write_text("def evaluate(model):\n    return 1.0\n", encoding="utf-8")
    (folder / "model.py").write_text("raise ValueError('a model that raises on import')\n", encoding="utf-8")
    (folder / "p.toml").write_text("[ops]\nvpu = ['conv2d']\n", encoding="utf-8")
    (folder / "c.npz").write_bytes(b"not numpy")
    if not os.path.lexists(folder / "dangling.py"):
        os.symlink(folder / "gone.py", folder / "dangling.py")
    names = ("dir", "metric.py:evaluate", "model.py", "p.toml", "c.npz", "dangling.py", "dir/out.png",
             "dir/out.html", "dir/out.svg", "model.py/x.html", "x" * 300 + ".png", "dir/a\nb.png")
    return [str(folder / n) for n in names]


def main(argv: list[str] | None = None) -> int:
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(prog="python -m tools.monkey")
    parser.add_argument("--actions", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=None, help="default: a new one, printed")
    parser.add_argument("--model", default="resnet8")
    parser.add_argument("--size", default="1280x720")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    folder = Path(tempfile.mkdtemp(prefix="vpu-monkey-"))
    os.environ["VPU_INSPECTOR_SETTINGS"] = str(folder / "settings.ini")
    seed = args.seed if args.seed is not None else random.randrange(10**6)
    seen = watch()
    from tools.shots.story import _wait, open_window
    from vpu_core.config import RunConfig

    width, height = (int(v) for v in args.size.lower().split("x"))
    app, window = open_window((width, height))
    window.runs.start(RunConfig(model=args.model))
    _wait(app, lambda: window.state.result is not None and not window.state.run.running)
    monkey = Monkey(window, random.Random(seed), fuzz_paths(folder))
    monkey.answer_dialogs(setattr)
    start = time.monotonic()
    monkey.run(args.actions, watchdog_s=120)
    window.runs.cancel()
    _wait(app, lambda: not window.runs.is_running(), 120)
    print(f"seed {seed}: {args.actions} actions in {time.monotonic() - start:.0f} s {monkey.actions}; "
          f"{len(seen)} problem(s)")
    for line in dict.fromkeys(seen):
        print("  " + line)
    window.close()
    return 1 if seen else 0


def watch() -> list[str]:
    """Collect every uncaught exception (main thread, threads) and Qt critical / fatal message."""
    import traceback

    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    seen: list[str] = []

    def hook(kind, value, tb) -> None:
        frames = " < ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(traceback.extract_tb(tb)[-6:]))
        seen.append(f"{kind.__name__}: {value} at {frames}")

    sys.excepthook = hook
    threading.excepthook = lambda a: hook(a.exc_type, a.exc_value, a.exc_traceback)

    def messages(kind, _context, text) -> None:
        if kind in (QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg):
            seen.append(f"Qt: {text}")

    qInstallMessageHandler(messages)
    return seen


if __name__ == "__main__":
    sys.exit(main())
