"""Regenerate the documentation screenshots (offscreen, 1600×1000):

    QT_QPA_PLATFORM=offscreen python -m app.screenshots [docs/screenshots]

Each shot runs the real pipeline in the real window, selects a telling node and tabs, and grabs
the window. Settings go to a temporary file, so the user's window state is not touched.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

SHOTS = (
    # file, options, node to select, report tab, plot tab
    ("resnet8_vpu.png", {"model": "resnet8", "quantizer": "vpu"}, "conv2d_3", 1, 3),
    ("resnet8_xnnpack.png", {"model": "resnet8", "quantizer": "xnnpack"}, "add", 0, 0),
    ("transformer.png", {"model": "transformer", "quantizer": "vpu"}, "softmax", 1, 1),
)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out_dir = Path(argv[0] if argv else "docs/screenshots")
    out_dir.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["VPU_INSPECTOR_SETTINGS"] = str(Path(tempfile.mkdtemp()) / "settings.ini")
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from app import theme
    from app.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    theme.apply_theme(app)
    for name, options, node, report_tab, plot_tab in SHOTS:
        window = MainWindow()
        window.resize(1600, 1000)
        window.show()
        loop = QEventLoop()
        window.jobs.succeeded.connect(lambda _r: loop.quit())
        window.jobs.failed.connect(lambda e: (print(f"{name}: {e.message}", file=sys.stderr), loop.quit()))
        window.start_run(options)
        loop.exec()
        window.panels.tables.setCurrentIndex(report_tab)
        window.panels.plots.setCurrentIndex(plot_tab)
        window.select_node(node)
        QTimer.singleShot(300, loop.quit)
        loop.exec()
        window.grab().save(str(out_dir / name))
        print(f"wrote {out_dir / name}")
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
