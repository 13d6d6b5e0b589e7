"""The HTML report from the app side: the graph image drawn headless by the canvas, the page by the core.

Two entry points:
  report_model(config, output, compare_config=None)  `vpu-inspector report` (runs the pipeline(s))
  export_report(output, analysis, compare_with=None)  File ▸ Export report (analyses already there)

The HTML itself is vpu_core.reports.html's (pure Python); this module only adds what needs Qt —
the graph image, rendered through app.graph_view.export.render_to_image exactly as
`vpu-inspector render` draws it — and writes the file atomically.
"""
from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from vpu_core.files import check_output_path
from vpu_core.inspection import NOTHING_ATTACHED

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.config import RunConfig
    from vpu_core.inspection import Attached
    from vpu_core.reports.html import GraphImage
    from vpu_core.targets.results import RuntimeReport, TargetResult
    from vpu_core.whatif.results import AblationReport

REPORT_SUFFIXES = (".html", ".htm")
IMAGE_SCALE = 2.0
FLAT_MAX_HEIGHT = 6000.0   # px: a taller flat graph is not readable as one picture in a page
ProgressFn = Callable[[str, float], None]


def check_output(output: str | Path) -> Path:
    """Fail before any work when the report could not be written there."""
    return check_output_path(output, REPORT_SUFFIXES, "the report")


def report_model(config: RunConfig, output: str | Path, compare_config: RunConfig | None = None,
                 progress: ProgressFn | None = None, int_sim: bool = False, ablate: bool = False,
                 runtime_runs: int | None = None, targets: Sequence[str] = ()) -> Path:
    """Run the pipeline and analysis for `config` (and `compare_config`), then write the report;
    `int_sim` adds the integer simulation of `config`'s VPU partitions, `ablate` its constraint
    ablation, `runtime_runs` a run of its lowered program on this CPU (the runtime section),
    `targets` the verdicts of those targets (vpu_core.targets)."""
    from vpu_core.arguments import ATTACHED_RUN, attached_runs
    from vpu_core.progress import RunContext
    from vpu_core.session import default_session

    output = check_output(output)
    session = default_session()
    if ablate:
        from vpu_core.whatif.ablation import check_quantizer

        check_quantizer(config)
    inspection = session.inspect(config, view=None, progress=progress, int_sim=int_sim, whatif=True,
                                 runtime_runs=attached_runs(tuple(targets), runtime_runs), targets=targets)
    other = session.inspect(compare_config, view=None, progress=progress).analysis if compare_config else None
    ablation = session.ablate(config, progress) if ablate else None
    runs = {name: session.target_run(config, name, runtime_runs, ctx=RunContext(progress))
            for name in targets if name not in ATTACHED_RUN} if runtime_runs else {}
    return export_report(output, inspection.analysis, compare_with=other, ablation=ablation,
                         attached=inspection.attached, targets=inspection.targets, runs=runs)


def export_report(output: str | Path, analysis: Analysis, compare_with: Analysis | None = None,
                  fold_params: bool = True,
                  ablation: AblationReport | None = None, attached: Attached = NOTHING_ATTACHED,
                  targets: Mapping[str, TargetResult] | None = None,
                  runs: Mapping[str, RuntimeReport] | None = None) -> Path:
    """Write the report of `analysis` (optionally compared with a second analysis, optionally with
    the constraint ablation of `analysis`, with what was computed beside it: `attached`) to
    `output`."""
    from vpu_core.reports.html import write_report_html

    output = check_output(output)
    image = graph_image(analysis, fold_params, targets)
    other_image = graph_image(compare_with, fold_params) if compare_with is not None else None
    return write_report_html(output, analysis, image, compare_with=compare_with,
                             compare_graph_image=other_image, ablation=ablation, attached=attached,
                             targets=targets, runs=runs)


def graph_image(analysis: Analysis, fold_params: bool = True,
                targets: Mapping[str, TargetResult] | None = None) -> GraphImage:
    """The graph of `analysis` as a GraphImage: the model collapsed to its blocks (what the
    report's block table lists), with the flat graph beside it when that is still readable —
    PNGs drawn off screen like `vpu-inspector render`, at twice the size they are shown at
    (sharp on high-DPI screens and in print), coloured by the first of `targets` (the primary).
    The report puts its own legend beside them."""
    from vpu_core.config import SIMULATED, ViewOptions
    from vpu_core.layout.grouped import report_view
    from vpu_core.session import display_graph

    primary = next(iter(targets or {}), "vpu")      # coloured by the target the user ships to
    source = SIMULATED if primary == "vpu" else primary
    graph = display_graph(analysis, ViewOptions(fold_params=fold_params, partition_source=source), targets=targets)
    flat = _png(graph.model, graph.layout)
    if graph.grouped is None:
        return flat
    model, layout = graph.grouped.show(report_view(graph.grouped))
    readable = graph.layout.height <= FLAT_MAX_HEIGHT
    picture = _png(model, layout)
    return replace(picture, flat=flat if readable else None, flat_nodes=len(graph.model.nodes))


def _png(model, layout):
    from app.graph_view.export import render_to_image   # creates an offscreen QApplication if needed
    from vpu_core.reports.html import GraphImage

    with tempfile.TemporaryDirectory(prefix="vpu-report-") as tmp:
        path = Path(tmp) / "graph.png"
        info = render_to_image(model, layout, path, scale=IMAGE_SCALE, legend=False)
        data = path.read_bytes()
    width, height = info.get("size", (None, None))
    scale = max(float(info.get("scale", 1.0)), 1.0)  # a huge graph is shrunk: show it as it is
    return GraphImage(data, width / scale if width else None, height / scale if height else None)
