"""The first graph while PT2E quantizes: the predicted partition of the exported float graph.

`Session.inspect(config, view, preview=fn)` calls `fn(inspection)` once the float graph is
exported (or read from the cache), before prepare: `inspection.analysis.predicted` is True, its
graph is drawn like any other (vpu_core.analysis.predicted says what is predicted and how). Then
the run goes on and returns the quantized inspection, whose ops keep the predicted graph's node
ids. Nothing is previewed when the analysis itself is remembered (memory or disk): the final
result is there at once.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from torch.fx import GraphModule

    from vpu_core.config import RunConfig, ViewOptions
    from vpu_core.hardware.profile import HardwareProfile
    from vpu_core.inspection import Inspection

PreviewFn = Callable[["Inspection"], None]


def previewer(config: RunConfig, view: ViewOptions | None, preview: PreviewFn,
              started: float) -> Callable[[HardwareProfile, str, GraphModule], None]:
    """The pipeline's on_export callback that hands `preview` the predicted inspection."""

    def on_export(profile: HardwareProfile, name: str, float_gm: GraphModule) -> None:
        from vpu_core.analysis.predicted import predict
        from vpu_core.inspection import Inspection, display_graph

        try:
            analysis = predict(float_gm, profile, name, config)
            graph = display_graph(analysis, view) if view is not None else None
        except Exception:      # a prediction is a courtesy: the quantized result still comes
            return
        preview(Inspection(config, analysis, graph, view, time.perf_counter() - started))

    return on_export
