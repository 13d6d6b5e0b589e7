"""`python -m tools.bench`: numbers for the performance targets, printed as a table or JSON.

Synthetic Q/DQ-shaped graphs (1k / 5k / 20k nodes) measure layout, crossings and — through the
`scene_measure` callback the GUI side supplies — scene build, first frame and pan frame. Every zoo
model runs end to end to measure each pipeline stage and the analysis' share of the PTQ time.
Graphviz `dot` and dagre (Netron's layout: node + the npm package, see
tools.layouts.dagre_reference) are reference columns only when they are installed.
"""
from __future__ import annotations

import gc
import statistics
import time
from typing import TYPE_CHECKING, Any, Callable, Sequence

from vpu_core.stages import TimingKey

if TYPE_CHECKING:
    from vpu_core.config import QuantizerName
    from vpu_core.graph.model import GraphModel

SIZES = (1_000, 5_000, 20_000)
PTQ_STAGES: tuple[TimingKey, ...] = ("export", "prepare", "calibrate", "convert")
SceneMeasure = Callable[[object, object], dict]


def rss_mib() -> float:
    """Resident memory of this process now (VmRSS), in MiB; the peak where /proc is missing."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return peak_rss_mib()


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far, in MiB."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _median_time(fn, repeats: int):
    times, result = [], None
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


SHAPES = ("qdq", "fx")          # synthetic.py's Q/DQ spine, synthetic_fx.py's exported transformer
# dagre's time grows fast with the long edges of the FX shape (77k bend points at 20k nodes): it
# took 44 min on fx-20k and 62 s on synthetic-20k here, so by default it runs up to these sizes.
DAGRE_MAX_NODES = {"qdq": 20_000, "fx": 5_000}


def synthetic_graph(shape: str, n: int, seed: int = 0) -> GraphModel:
    """The synthetic graph of `shape` ("qdq" or "fx") with `n` nodes."""
    if shape == "fx":
        from tools.layouts.synthetic_fx import synthetic_fx_graph

        return synthetic_fx_graph(n, seed=seed)
    from tools.layouts.synthetic import synthetic_qdq_graph

    return synthetic_qdq_graph(n, seed=seed)


def _graph_name(shape: str, n: int) -> str:
    size = f"{n // 1000}k" if n >= 1000 else str(n)
    return f"synthetic-{size}" if shape == "qdq" else f"{shape}-{size}"


def bench_graphs(sizes: tuple[int, ...] = SIZES, repeats: int = 3, scene_measure: SceneMeasure | None = None,
                 with_dot: bool = True, dot_max_nodes: int = 5_000, shapes: tuple[str, ...] = SHAPES,
                 with_dagre: bool = True, dagre_max_nodes: dict[str, int] | None = None) -> list[dict]:
    """One row per shape and size: layout, crossings, group toggles, the scene columns
    (`scene_measure`), and the reference layouts when installed: Graphviz dot (up to
    `dot_max_nodes`) and dagre (up to `dagre_max_nodes[shape]`, default DAGRE_MAX_NODES; dagre_x =
    how many times our layout's time dagre takes on the same graph)."""
    from vpu_core.layout import count_crossings, layout_graph

    rows = []
    for shape in shapes:
        for n in sizes:
            model = synthetic_graph(shape, n)
            layout_s, layout = _median_time(lambda: layout_graph(model), repeats)
            row = {"graph": _graph_name(shape, n), "nodes": len(model.nodes), "edges": len(model.edges),
                   "layout_s": layout_s, "crossings": count_crossings(layout)}
            row.update(bench_group_toggle(model))
            if scene_measure is not None:
                row.update(scene_measure(model, layout))
                row["layout_to_frame_s"] = layout_s + row["scene_build_s"] + row["first_frame_s"]
            row["rss_mib"] = rss_mib()
            if with_dot and len(model.nodes) <= dot_max_nodes:
                row.update(_dot_columns(model))
            if with_dagre and len(model.nodes) <= (dagre_max_nodes or DAGRE_MAX_NODES).get(shape, 0):
                row.update(_dagre_columns(model, layout_s))
            rows.append(row)
    return rows


def bench_group_toggle(model: GraphModel, width: int = 1280, height: int = 800) -> dict:
    """Expanding / collapsing module groups in place (the synthetic graphs' hierarchy).

    group_toggle_s: median over the top-level blocks and their children of one expand or
    collapse, starting from the view a new model opens with (the groups that fit a
    `width` × `height` window); the new display graph and its layout, as the canvas gets them.
    group_toggle_all_open_s: the worst case — every group open (all nodes drawn), one block in
    the middle closed and opened again.
    """
    from vpu_core.layout.grouped import GroupedGraph
    from tools.layouts.synthetic import synthetic_tree

    grouped = GroupedGraph(model, synthetic_tree(model))
    grouped.show(grouped.fitting_view(width, height))
    start = grouped.expanded
    paths = [p for p in grouped.tree.groups if grouped.tree.groups[p].depth <= 2][:12]
    times = []
    for path in paths:
        for action in (grouped.toggle, grouped.toggle):
            t = time.perf_counter()
            action(path)
            times.append(time.perf_counter() - t)
    grouped.show(start)
    grouped.expand_all()
    blocks = [p for p, g in grouped.tree.groups.items() if g.depth == 3] or list(grouped.tree.groups)
    middle = blocks[len(blocks) // 2]
    worst = []
    for _ in range(3):
        for action in (grouped.collapse, grouped.expand):
            t = time.perf_counter()
            action(middle)
            worst.append(time.perf_counter() - t)
    return {"group_toggle_s": statistics.median(times), "group_toggle_all_open_s": statistics.median(worst)}


def _dot_columns(model) -> dict:
    from tools.layouts import dot_reference

    ref = dot_reference.run_dot(model) if dot_reference.dot_available() else None
    if not ref:
        return {}
    return {"dot_s": ref["time_s"], "dot_crossings": ref["crossings"]}


def _dagre_columns(model: GraphModel, layout_s: float) -> dict:
    from tools.layouts import dagre_reference

    ref = dagre_reference.run_dagre(model)
    if not ref:
        return {}
    return {"dagre_s": ref["time_s"], "dagre_crossings": ref["crossings"],
            "dagre_x": ref["time_s"] / layout_s if layout_s else None}


def bench_zoo(models: Sequence[str] | None = None, quantizers: tuple[QuantizerName, ...] = ("vpu", "xnnpack"),
              with_dot: bool = True) -> list[dict]:
    from vpu_core.analysis import analyze
    from vpu_core.whatif.partition_whatif import partition_whatif
    from vpu_core.config import RunConfig
    from vpu_core.layout import count_crossings, layout_graph
    from vpu_core.session import Session
    from vpu_core.zoo import ZOO

    rows = []
    for name in models or ZOO:
        for quantizer in quantizers:
            session, config = Session(keep=1, disk_cache=False), RunConfig(model=name, quantizer=quantizer)
            shown = session.inspect(config).graph
            assert shown is not None, "inspect draws the default view"
            graph = shown.model
            qm = session.quantized(config)
            # PTQ runs once (seconds); the analysis of its result is cheap: median of 3.
            runs = sorted((analyze(qm) for _ in range(3)), key=lambda a: a.timings_s["analyze"])
            analysis = runs[1]
            ptq = sum(qm.timings.get(k, 0.0) for k in PTQ_STAGES)
            layout_s, layout = _median_time(lambda: layout_graph(graph), 3)
            row = {"graph": f"{name}/{quantizer}", "nodes": len(graph.nodes),
                   **{f"{k}_s": qm.timings.get(k, 0.0) for k in PTQ_STAGES},
                   # importing torchao / ExecuTorch's quantizer (first run of a process): not PTQ work
                   "import_s": qm.timings.get("import", 0.0),
                   "analyze_s": analysis.timings_s.get("analyze", 0.0),
                   "analyze_pct_of_ptq": 100.0 * analysis.timings_s.get("analyze", 0.0) / ptq if ptq else 0.0,
                   "sqnr_s": analysis.timings_s.get("sqnr", 0.0),
                   "whatif_s": partition_whatif(qm, analysis).seconds,
                   "layout_s": layout_s, "crossings": count_crossings(layout)}
            if with_dot:
                row.update(_dot_columns(graph))
            rows.append(row)
    return rows


def format_table(rows: list[dict]) -> str:
    """A plain aligned table; seconds shown in ms, missing cells as '-'."""
    if not rows:
        return "(no rows)"
    rows = [{k: v for k, v in row.items() if not isinstance(v, dict)} for row in rows]   # JSON only
    columns = list(dict.fromkeys(k for row in rows for k in row))
    cells = [[_cell(k, row.get(k)) for k in columns] for row in rows]
    heads = [c[:-2] + "_ms" if c.endswith("_s") else c for c in columns]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(heads)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(heads, widths))]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells]
    return "\n".join(lines)


def _cell(key: str, value) -> str:
    if value is None:
        return "-"
    if key.endswith("_s"):
        return f"{value * 1000:.1f}"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


ABLATION_TARGET_S = 60.0      # `check resnet8 --ablate` on a 2-core machine (docs/performance.md)


def bench_ablation(models: Sequence[str] | None = ("resnet8",)) -> list[dict]:
    """Wall time of `vpu-inspector check MODEL --ablate` as a user runs it (a fresh process:
    interpreter start, imports, baseline run, then one quantization per constraint)."""
    import json
    import resource
    import subprocess
    import sys

    rows = []
    for name in models or ():
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "app", "check", name, "--ablate", "--format", "json"],
                              capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        data = json.loads(done.stdout) if done.stdout.strip() else {}
        entries = data.get("ablation", [])
        # CPU time next to wall time: on a shared machine the wall time says as much about the
        # other processes as about this one.
        rows.append({"model": name, "check_ablate_wall_s": wall, "cpu_s": cpu, "load_avg": _load(),
                     "baseline_s": sum(data.get("timings_s", {}).values()),
                     "ablation_s": data.get("ablation_seconds"),
                     "quantized_again": sum(1 for e in entries if not e.get("reason")),
                     "target_s": ABLATION_TARGET_S, "within_target": wall <= ABLATION_TARGET_S})
    return rows


SENSITIVITY_TARGET = 2.0      # --sensitivity may cost at most this many times the PTQ it analyses
MOBILEVIT = "tests/corpus/mobilevit_hybrid.py"


def bench_sensitivity(models: Sequence[str] | None = (MOBILEVIT,)) -> list[dict]:
    """`check MODEL --sensitivity --no-cache` in a fresh process: the sensitivity analysis (ranking,
    the worst layer's fixes each quantized for real) against the PTQ of the same run, both timed in
    that process (prepare + calibrate + convert; and with the export)."""
    import json
    import subprocess
    import sys

    rows = []
    for name in models or ():
        done = subprocess.run([sys.executable, "-m", "app", "check", name, "--sensitivity", "--no-cache",
                               "--format", "json"], capture_output=True, text=True)
        data = json.loads(done.stdout) if done.stdout.strip() else {}
        t, found = data.get("timings_s", {}), data.get("sensitivity") or {}
        ptq = sum(float(t.get(k, 0.0)) for k in ("prepare", "calibrate", "convert"))
        seconds = float(found.get("seconds") or 0.0)
        ratio = seconds / ptq if ptq else None
        rows.append({"model": name, "ptq_s": ptq, "export_s": float(t.get("export", 0.0)), "sensitivity_s": seconds,
                     "ratio": ratio, "ratio_with_export": seconds / (ptq + float(t.get("export", 0.0))) if ptq else None,
                     "fixes": len(found.get("fixes", [])), "parts_s": found.get("timings_s"), "load_avg": _load(),
                     "target": SENSITIVITY_TARGET, "within_target": ratio is not None and ratio <= SENSITIVITY_TARGET,
                     "error": done.stderr.strip().splitlines()[-1] if done.returncode not in (0, 1) and done.stderr else None})
    return rows


def _load() -> float | None:
    try:
        import os

        return os.getloadavg()[0]
    except (OSError, AttributeError):
        return None


def bench_loop(models: Sequence[str] | None = None, quantizers: tuple[QuantizerName, ...] = ("vpu", "xnnpack")) -> list[dict]:
    """The inspection loop per model and quantizer, each in a fresh cache folder:

    cold_s            first inspection, nothing cached (export → … → layout; libraries already
                      imported by earlier rows)
    warm_s            the same in a new Session (a new launch) reading the disk cache
    back_s            back to it in the same session after another configuration (memory)
    fold_toggle_s     the same result drawn with parameters unfolded (no new quantization)
    profile_change_s  a profile that only moves the analysis (shift range): re-analysis only
    """
    import tempfile
    from pathlib import Path

    from vpu_core.config import RunConfig, ViewOptions
    from vpu_core.session import Session
    from vpu_core.zoo import ZOO

    rows = []
    for name in models or ZOO:
        for quantizer in quantizers:
            with tempfile.TemporaryDirectory(prefix="vpu-inspector-bench-") as tmp:
                config = RunConfig(model=name, quantizer=quantizer)
                row: dict[str, Any] = {"graph": f"{Path(name).stem}/{quantizer}"}
                row["cold_s"], inspection = _timed(lambda: Session(cache_dir=tmp).inspect(config))
                row["nodes"] = len(inspection.graph.model.nodes)
                session = Session(cache_dir=tmp)
                row["warm_s"], _ = _timed(lambda: session.inspect(config))
                session.inspect(RunConfig(model=name, quantizer=quantizer, seed=1), view=None)
                row["back_s"], _ = _timed(lambda: session.inspect(config))
                row["fold_toggle_s"], _ = _timed(lambda: session.inspect(config, ViewOptions(fold_params=False)))
                profile = _shift_range_profile(Path(tmp))
                moved = RunConfig(model=name, quantizer=quantizer, profile=str(profile))
                row["profile_change_s"], _ = _timed(lambda: session.inspect(moved))
                rows.append(row)
    return rows


def _timed(fn):
    gc.collect()
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def _shift_range_profile(folder):
    """The shipped profile with another shift range: changes the analysis, not the quantization."""
    from resources import DEFAULT_PROFILE

    path = folder / "shift_range.toml"
    path.write_text(DEFAULT_PROFILE.read_text().replace("max_shift = 31", "max_shift = 24"))
    return path


def bench_cancel(model: str = "resnet8", quantizer: QuantizerName = "xnnpack") -> float:
    """Seconds from a cancel request during convert (a fresh session, nothing cached) to the run
    stopping with Cancelled: the figure behind "cancel within a second"."""
    import threading

    from vpu_core.config import RunConfig
    from vpu_core.errors import Cancelled
    from vpu_core.session import Session

    cancel, asked = threading.Event(), []

    def progress(stage: str, fraction: float) -> None:
        if stage == "convert" and fraction > 0 and not cancel.is_set():
            asked.append(time.perf_counter())
            cancel.set()

    try:
        Session(disk_cache=False).inspect(RunConfig(model=model, quantizer=quantizer, calib_batches=2),
                                          view=None, progress=progress, cancel=cancel)
    except Cancelled:
        return time.perf_counter() - asked[0]
    return float("nan")        # finished before a cancel could land
