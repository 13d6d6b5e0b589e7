"""`vpu-inspector render`: the graph view drawn headless to .png or .svg (with the legend)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from pathlib import Path

if TYPE_CHECKING:
    from vpu_core.config import RunConfig


def render_model(config: RunConfig, output: str | Path, fold_params: bool = True, hide_qdq: bool = False,
                 collapse: int | None = None) -> Path:
    from app.export.image_export import check_image_path

    output = check_image_path(output)  # fail before the seconds of PTQ, not after
    from app.graph_view.export import render_to_image  # makes its own offscreen QApplication
    from vpu_core.config import ViewOptions
    from vpu_core.files import atomic_write
    from vpu_core.session import inspect

    view = ViewOptions(fold_params=fold_params, hide_qdq=hide_qdq, collapse_depth=collapse)
    graph = inspect(config, view=view).graph
    assert graph is not None, "inspect draws the view it is given"
    atomic_write(output, lambda tmp: render_to_image(graph.model, graph.layout, tmp))
    return output
