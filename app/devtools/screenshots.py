"""Regenerate the documentation screenshots (offscreen, 1600×1000):

    QT_QPA_PLATFORM=offscreen python -m app.screenshots [docs/screenshots] [NAME.png …]

Each shot runs the real pipeline in the real window, selects a telling node and tabs, and grabs
the window. Settings go to a temporary file, so the user's window state is not touched. Naming
files after the folder regenerates only those shots.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

SHOTS = (
    # file, options, node to select, report tab, plot tab, extras
    ("resnet8_vpu.png", {"model": "resnet8", "quantizer": "vpu"}, "conv2d_3", 1, 3, {}),
    ("resnet8_xnnpack.png", {"model": "resnet8", "quantizer": "xnnpack"}, "add", 0, 0, {}),
    ("transformer.png", {"model": "transformer", "quantizer": "vpu"}, "softmax", 1, 1, {}),
    # compare mode: resnet8, A = VPU quantizer, B = XNNPACK; the Compare tab (index 3) shown
    ("compare.png", {"model": "resnet8", "quantizer": "vpu"}, ("b", "conv2d_1"), 3, 0,
     {"compare": {"quantizer": "xnnpack"}, "zoom": 0.9}),
    # the real XNNPACK delegation of the VPU-quantized transformer vs its simulated VPU partition
    ("xnnpack_overlay.png", {"model": "transformer", "quantizer": "vpu"}, "softmax", 1, 1,
     {"overlay": True, "zoom": 0.86}),
)


def _wait(window, loop) -> None:
    def done(*_args):
        loop.quit()
    window.jobs.succeeded.connect(done)
    window.jobs.failed.connect(lambda e: (print(f"run failed: {e.message}", file=sys.stderr), loop.quit()))
    loop.exec()
    window.jobs.succeeded.disconnect(done)


def take(window, options: dict, node, report_tab: int, plot_tab: int, extras: dict) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    if extras.get("overlay"):
        window.set_partition_source("xnnpack")      # nothing shown yet: the run lowers too
    if extras.get("compare"):
        window.set_options(options)
        window.compare_bar.set_overrides({**options, **extras["compare"]})
        window.set_compare_mode(True)
    else:
        window.start_run(options)
    _wait(window, loop)
    window.panels.tables.setCurrentIndex(report_tab)
    window.panels.plots.setCurrentIndex(plot_tab)
    side, name = node if isinstance(node, tuple) else ("a", node)
    window.select_in(side, name)
    if extras.get("zoom"):      # see more of the graph, labels still legible
        view = window.active_view()
        view.zoom_by(extras["zoom"] / view.zoom())
    window.panels.tables.setCurrentIndex(report_tab)
    QTimer.singleShot(400, loop.quit)
    loop.exec()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out_dir = Path(argv[0] if argv else "docs/screenshots")
    only = set(argv[1:])
    out_dir.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["VPU_INSPECTOR_SETTINGS"] = str(Path(tempfile.mkdtemp()) / "settings.ini")
    from PySide6.QtWidgets import QApplication

    from app import theme
    from app.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    theme.apply_theme(app)
    for name, options, node, report_tab, plot_tab, extras in SHOTS:
        if only and name not in only:
            continue
        window = MainWindow()
        window.resize(1600, 1000)
        window.show()
        take(window, options, node, report_tab, plot_tab, extras)
        window.grab().save(str(out_dir / name))
        print(f"wrote {out_dir / name}")
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
