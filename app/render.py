"""`vpu-inspector render`: the graph view drawn headless to .png or .svg (with the legend)."""
from __future__ import annotations

from pathlib import Path


def render_model(config, output: str | Path, fold_params: bool = True) -> Path:
    from app.image_export import check_image_path

    output = check_image_path(output)  # fail before the seconds of PTQ, not after
    from app.graph_view.export import render_to_image  # makes its own offscreen QApplication
    from vpu_core.analysis import analyze
    from vpu_core.graph_build import build_graph_model
    from vpu_core.layout import layout_graph
    from vpu_core.pipeline import run_pipeline
    from vpu_core.save import atomic_write

    model = build_graph_model(analyze(run_pipeline(config)), fold_params=fold_params)
    layout = layout_graph(model)
    atomic_write(output, lambda tmp: render_to_image(model, layout, tmp))
    return output
