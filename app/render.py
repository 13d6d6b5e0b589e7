"""`vpu-inspector render`: the graph view drawn headless to .png or .svg (with the legend)."""
from __future__ import annotations

from pathlib import Path

from vpu_core.errors import InspectorError

IMAGE_SUFFIXES = (".png", ".svg")


class RenderError(InspectorError):
    """The output path cannot take an image."""


def render_model(config, output: str | Path, fold_params: bool = True) -> Path:
    output = Path(output)
    if output.suffix.lower() not in IMAGE_SUFFIXES:
        raise RenderError(f"Cannot render to {output}: the file name must end in .png or .svg.")
    if not output.parent.exists():
        raise RenderError(f"Cannot render to {output}: the folder {output.parent} does not exist.")
    from vpu_core.analysis import analyze
    from vpu_core.graph_build import build_graph_model
    from vpu_core.layout import layout_graph
    from vpu_core.pipeline import run_pipeline

    analysis = analyze(run_pipeline(config))
    model = build_graph_model(analysis, fold_params=fold_params)
    layout = layout_graph(model)
    _ensure_app()
    from app.graph_view.export import render_to_image

    from vpu_core.save import atomic_write

    atomic_write(output, lambda tmp: render_to_image(model, layout, tmp))
    return output


def _ensure_app():
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication([])
