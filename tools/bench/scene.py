"""Frame-time measurements of the graph view, for `python -m tools.bench`.

Frames are rendered offscreen into a QImage with QWidget.render, which runs the view's
real paintEvent over the whole viewport: an upper bound of what an on-screen pan costs
(Qt would only repaint the newly exposed strip).
"""
from __future__ import annotations

import statistics
import time

from PySide6.QtGui import QImage

from vpu_core.graph.model import GraphModel
from tools.bench.core import rss_mib
from vpu_core.layout import Layout

from app.graph_view.export import ensure_app
from app.graph_view.view import GraphView


def _frame(view: GraphView, img: QImage) -> float:
    t = time.perf_counter()
    view.viewport().render(img)
    return time.perf_counter() - t


def _pan_frames(view: GraphView, img: QImage, frames: int, step: int) -> float:
    bar = view.verticalScrollBar()
    times = []
    for i in range(frames):
        bar.setValue(bar.value() + (step if (i // 10) % 2 == 0 else -step))
        times.append(_frame(view, img))
    return statistics.median(times)


def measure_scene(model: GraphModel, layout: Layout, width: int = 1280, height: int = 800,
                  frames: int = 20) -> dict:
    """scene_build_s, first_frame_s (initial view), pan_frame_s (median, 1:1),
    fit_first_frame_s / fit_frame_s (whole graph), zoomed_out_pan_frame_s (scale 0.1),
    rss_mb."""
    app = ensure_app()
    view = GraphView()
    view.resize(width, height)
    view.show()
    app.processEvents()
    img = QImage(view.viewport().size(), QImage.Format.Format_ARGB32_Premultiplied)
    t0 = time.perf_counter()
    view.set_graph(model, layout)
    t1 = time.perf_counter()
    out = {"scene_build_s": t1 - t0, "first_frame_s": _frame(view, img)}
    out["pan_frame_s"] = _pan_frames(view, img, frames, 40)
    view.zoom_by(0.1 / view.zoom())
    out["zoomed_out_pan_frame_s"] = _pan_frames(view, img, frames, 40)
    view.fit()
    out["fit_first_frame_s"] = _frame(view, img)
    out["fit_frame_s"] = statistics.median(_frame(view, img) for _ in range(5))
    out["rss_mb"] = rss_mib()
    view.close()
    view.deleteLater()
    app.processEvents()
    return out
