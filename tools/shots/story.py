"""The three-click story, as pictures: select a CPU node → Try it on the VPU → Apply → the card.

    python -m tools.shots.story [MODEL] [OP] [--size 1280x720] [--out DIR]

Drives the real window (offscreen unless a display is set) the way a user's mouse does — a click
on the node's box, a click on the node panel's "Try it on the VPU" link, a click on Apply — and
saves the window after each step (story_1_select.png, story_2_try.png, story_3_applied.png, each
with the F.json of `gui --screenshot`). Defaults: the zoo transformer and its first CPU softmax.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

    from app.window.main_window import MainWindow


def _wait(app, until, seconds: float = 300.0) -> None:
    import time

    end = time.monotonic() + seconds
    while not until():
        if time.monotonic() > end:
            raise TimeoutError("the window did not get there")
        app.processEvents()
        time.sleep(0.02)


def _save(window, path: Path) -> None:
    from app.widgets.deferred import grab_built
    from app.window.launch import layout_facts

    grab_built(window).save(str(path), "PNG")
    path.with_suffix(".json").write_text(json.dumps(layout_facts(window), indent=1), encoding="utf-8")
    print(f"wrote {path}")


def _click(widget, pos) -> None:
    from PySide6.QtCore import QEvent, QPointF, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    point = QPointF(pos)
    for kind in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease):
        QApplication.sendEvent(widget, QMouseEvent(kind, point, widget.mapToGlobal(point), Qt.MouseButton.LeftButton,
                                                   Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier))


def open_window(size: tuple[int, int], profile_prefix: str = "vpu-story-profiles-") -> tuple[QApplication, MainWindow]:
    """(app, window): the real window at `size`, shown, as `vpu-inspector gui` opens it; the
    What-if dock saves its profiles to a fresh temporary folder (a story never touches the user's)."""
    from PySide6.QtWidgets import QApplication

    from app import theme
    from app.window.main_window import MainWindow

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    theme.apply_theme(app)
    window = MainWindow()
    window.resize_for(*size)
    window.show()
    window.whatif.profile_dir = Path(tempfile.mkdtemp(prefix=profile_prefix))
    return app, window


def run_story(model: str, op: str, size: tuple[int, int], out: Path) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["VPU_INSPECTOR_SETTINGS"] = str(Path(tempfile.mkdtemp(prefix="vpu-story-")) / "settings.ini")
    from PySide6.QtCore import QPoint

    from vpu_core.config import RunConfig

    app, window = open_window(size)
    window.runs.start(RunConfig(model=model))
    _wait(app, lambda: window.state.result is not None and not window.state.run.running)
    result = window.state.result
    assert result is not None
    node = next(c.node for c in result.analysis.partition.cpu_nodes if c.op.startswith(op))
    view = window.graph_view                                  # 1: a click on the CPU node
    view.groups.reveal(node)
    scene = view.graph_scene()
    assert scene is not None
    box = scene.items[node].box
    view.centerOn(box.center())
    _click(view.viewport(), view.mapFromScene(box.center()))
    _wait(app, lambda: window.state.selection is not None)
    _save(window, out / "story_1_select.png")
    browser = window.panels.node_panel                        # 2: the panel's link
    cursor = browser.document().find("Try it on the VPU")
    browser.setTextCursor(cursor)
    browser.ensureCursorVisible()
    rect = browser.cursorRect(cursor)
    _click(browser.viewport(), QPoint(rect.left() - 10, rect.center().y()))
    _wait(app, lambda: window.whatif.is_modified())
    app.processEvents()
    _save(window, out / "story_2_try.png")
    editor = window.whatif_panel.editor                       # 3: Apply
    editor.apply_button.click()
    _wait(app, lambda: window.graph_stack.card.isVisible() and not window.state.run.running)
    app.processEvents()
    _save(window, out / "story_3_applied.png")
    window.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    size, out = (1280, 720), Path(".")
    if "--size" in args:
        i = args.index("--size")
        w, h = args[i + 1].lower().split("x")
        size = (int(w), int(h))
        del args[i:i + 2]
    if "--out" in args:
        i = args.index("--out")
        out = Path(args[i + 1])
        del args[i:i + 2]
    out.mkdir(parents=True, exist_ok=True)
    model = args[0] if args else "transformer"
    op = args[1] if len(args) > 1 else "softmax"
    return run_story(model, op, size, out)


if __name__ == "__main__":
    sys.exit(main())
