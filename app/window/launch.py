"""`vpu-inspector gui`: open the window on a configuration; with `--screenshot`, save the window
once the result is on screen and exit.

    vpu-inspector gui resnet8 --quantizer xnnpack --screenshot w.png --size 1280x720

The screenshot is the real window at that size, drawn as on screen (QWidget.grab), taken once
the display has shown the result (and the optional `--select` / `--tab`), never after a fixed
delay. Beside F.png it writes F.json, so the layout is testable: {"window": [w, h], "canvas":
[x, y, w, h]} (the graph canvas in window pixels; in compare mode both canvases), plus
"canvas_share" (its share of the window's area), "canvases" (each canvas of compare mode) and
"stages_run" (the stages the shown result computed: [] or ["layout"] when it came from the cache). A screenshot run uses a throw-away settings file, so the user's window layout neither
changes the picture nor is changed by it. Exit code 0 when the picture is written; 2 with one
line on stderr when the run (or the file) fails.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from vpu_core.compare import is_side

if TYPE_CHECKING:
    from app.window.main_window import MainWindow
    from vpu_core.config import RunConfig

# the What-if dock's tabs ("limits": the profile editor scrolled to the per-op limits)
WHATIF_TABS = {"profile": 0, "limits": 0, "cost": 1, "next-kernel": 2}
TABS = {"violations": ("tables", 0), "partition": ("tables", 1), "requant": ("tables", 2),
        "compare": ("tables", 3), "scales": ("plots", 0), "shifts": ("plots", 1),
        "selected": ("plots", 2), "pow2": ("plots", 3)}


@dataclass(frozen=True)
class GuiOptions:
    screenshot: str | None = None          # .png to write, then exit
    size: tuple[int, int] | None = None    # window size (width, height)
    compare: object = None                 # RunConfig of side B: open in compare mode
    colour_by: str | None = None           # the partition source to open with ("xnnpack",
                                           # "ethos-u55-128"; None: the simulated VPU partition)
    compare_colour_by: str | None = None   # side B's, when --compare names a target
    metric: str | None = None              # colour ops by this metric (vpu_core.graph.metrics)
    hide_qdq: bool = False                 # quantize → dequantize folded into their edges
    select: str | None = None              # "node" or "b:node" to select once shown
    tabs: tuple[str, ...] = field(default=())
    sweep: str | None = None               # a sweep folder to show in the Sweep dock
    focus: bool = False                    # focus mode: only the canvas
    presentation: bool = False             # presentation mode: large labels, thick edges
    measure: bool = False                  # Run ▸ Run on this CPU from the start (--run)


def run_gui(config: RunConfig | None = None, options: GuiOptions = GuiOptions()) -> int:
    """Open the window on `config` (a RunConfig; None = resnet8 / VPU) and run it.

    The worker's server starts first (milliseconds here): it imports torch on the other core while
    this process imports Qt and builds the window, and the first worker is forked as soon as it
    is ready, so the first graph waits for little more than those imports and the model's export."""
    from app.window.display import display_problem
    from vpu_core.worker.host import default_host

    if options.screenshot:
        from app.export.image_export import check_screenshot_path

        check_screenshot_path(options.screenshot)      # fail before the seconds of PTQ
        if display_problem(os.environ):         # no display, or no X libraries: a picture needs no screen
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
        settings = Path(tempfile.mkdtemp(prefix="vpu-inspector-shot-")) / "settings.ini"
        os.environ["VPU_INSPECTOR_SETTINGS"] = str(settings)
    problem = display_problem(os.environ)   # before Qt, whose own failure is an abort
    if problem:
        from vpu_core.errors import InspectorError

        raise InspectorError(problem)
    host = default_host()
    host.start_server()
    from PySide6.QtWidgets import QApplication

    from app import theme
    from app.window import excepthook
    from app.window.main_window import MainWindow
    from vpu_core.config import RunConfig

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    app.setApplicationName("VPU Inspector")
    app.setOrganizationName("vpu-inspector")
    theme.apply_theme(app)
    if not options.screenshot:
        excepthook.install()         # any uncaught exception, any thread: the error dialog
    window = MainWindow()
    if options.size:
        window.resize_for(*options.size)
    window.show()
    host.start_worker()
    outcome = Screenshot(window, options) if options.screenshot else None
    start(window, config or RunConfig(), options)
    code = app.exec()
    host.stop()
    return outcome.code if outcome is not None else code


def start(window: MainWindow, config: RunConfig, options: GuiOptions) -> None:
    """The first run: a single configuration, or compare mode, optionally with the overlay."""
    from dataclasses import replace

    from app.state import CompareB
    from vpu_core.config import RunConfig

    state = window.state
    if options.sweep:
        window.sweep.open_sweep(options.sweep)
    if options.focus:
        state.focus_mode = True
    if options.presentation:
        state.look = replace(state.look, presentation=True)
    if options.metric:
        state.metric = options.metric
    if options.hide_qdq:
        state.view = replace(state.view, hide_qdq=True)
    if options.colour_by:
        state.set_partition_source(options.colour_by)   # nothing shown yet: the run judges it too
    if options.compare is not None:
        state.config = config
        state.compare_b = (CompareB.of(options.compare, options.compare_colour_by)
                           if isinstance(options.compare, RunConfig) else None)
        window.compare.set_mode(True)
    elif options.measure:
        state.config = config
        window.runtime.run()                        # the request includes the measurement: one job
    else:
        window.runs.start(config)


class Screenshot:
    """Waits for the result on screen, applies --select / --tab, saves the window, quits."""

    def __init__(self, window: MainWindow, options: GuiOptions) -> None:
        self.window, self.options, self.code = window, options, 2
        window.state.drawn.connect(self._on_shown)
        window.runs.failed.connect(self._on_failed)
        window.runs.jobs.cancelled.connect(lambda: self._quit(2, "vpu-inspector: error: the run was cancelled"))

    def _ready(self) -> bool:
        state = self.window.state
        if state.run.running:
            return False
        return state.showing_compare if self.options.compare is not None else state.result is not None

    def _on_shown(self) -> None:
        if not self._ready():
            return
        from PySide6.QtCore import QTimer

        self.window.state.drawn.disconnect(self._on_shown)
        self._select_and_tabs()
        QTimer.singleShot(0, self._save)         # after the events the selection queued

    def _select_and_tabs(self) -> None:
        window, options = self.window, self.options
        if options.select:
            side, _, node = options.select.rpartition(":")
            side = side or "a"
            if not (is_side(side) and window.navigation.select_in(side, node)):
                matches = window.navigation.search(node)         # not an fx name: search text
                if not matches:
                    print(f"vpu-inspector: warning: nothing to select for '{options.select}'", file=sys.stderr)
        panels = window.panels
        for name in options.tabs:
            if name in WHATIF_TABS:
                window.whatif.show(WHATIF_TABS[name])
                if name == "limits":
                    window.whatif_panel.editor.scroll_to_limits()
                continue
            widget, index = TABS[name]
            getattr(panels, widget).setCurrentIndex(index)
            (window.tables_dock if widget == "tables" else window.plots_dock).raise_()   # a tab beside the node panel

    def _save(self) -> None:
        from app.widgets.deferred import grab_built
        from vpu_core.files import atomic_write

        path = Path(self.options.screenshot or "")
        image = grab_built(self.window)
        facts = json.dumps(layout_facts(self.window), indent=1)
        try:
            atomic_write(path, lambda tmp: _save_image(image, tmp))
            atomic_write(path.with_suffix(".json"), lambda tmp: tmp.write_text(facts, encoding="utf-8"))
        except OSError as exc:
            self._quit(2, f"vpu-inspector: error: cannot write {path}: {exc.strerror or exc}")
            return
        print(f"wrote {path} ({image.width()}×{image.height()})")
        self._quit(0)

    def _on_failed(self, error) -> None:
        self._quit(2, f"vpu-inspector: error: {error.message}")

    def _quit(self, code: int, message: str = "") -> None:
        from PySide6.QtWidgets import QApplication

        if message:
            print(message, file=sys.stderr)
        self.code = code
        self.window.close()
        QApplication.exit(code)


def _rect_in(window, widget) -> list[int]:
    """[x, y, w, h] of `widget` in `window`'s pixels."""
    from PySide6.QtCore import QPoint

    top_left = widget.mapTo(window, QPoint(0, 0))
    return [top_left.x(), top_left.y(), widget.width(), widget.height()]


def layout_facts(window: MainWindow) -> dict:
    """What F.json says about the window on screen (see the module doc)."""
    state = window.state
    views = window.compare_view.views_list() if state.showing_compare else [window.graph_view]
    canvases = [_rect_in(window, v) for v in views if v.isVisible()] or [_rect_in(window, window.graph_stack)]
    x0 = min(r[0] for r in canvases)
    y0 = min(r[1] for r in canvases)
    x1 = max(r[0] + r[2] for r in canvases)
    y1 = max(r[1] + r[3] for r in canvases)
    area = sum(r[2] * r[3] for r in canvases)
    sides = [state.inspection(side) for side in state.sides()]
    ran = sorted({stage for i in sides if i is not None for stage in i.stages_run})
    colour = {side: i.view.partition_source for side, i in zip(state.sides(), sides) if i is not None and i.view}
    return {"window": [window.width(), window.height()], "canvas": [x0, y0, x1 - x0, y1 - y0],
            "canvas_share": round(area / max(1, window.width() * window.height()), 4),
            "canvases": canvases, "stages_run": ran, "colour_by": colour, "metric": state.metric,
            "status": window.summary.toolTip() or window.summary.text()}


def _save_image(image, tmp: Path) -> None:
    if not image.save(str(tmp), "PNG"):
        raise OSError(f"could not write {tmp}")
