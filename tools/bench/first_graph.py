"""How long until the first graph is on screen, cold and warm, against the floor any first graph stands on.

Every figure comes from a fresh interpreter, as when a user types `vpu-inspector gui MODEL`:
- first_graph_floor_s: a process of its own that imports torch and torch._dynamo, builds the model
  (the model file's own imports included, e.g. transformers) and runs torch.export — what any
  first graph needs, measured in the same run as the launches;
- a cold launch (empty result cache): first_graph_cold_s, the predicted partition painted
  (process start → the window's first drawn graph, predicted, grabbed), final_graph_cold_s, the
  quantized analysis painted, settled_cold_s, the run's follow-up stages (integer simulation,
  what-if) there too, and gui_max_stall_s, the longest the event loop went without answering a
  20 ms timer between the window showing and the settled result; with `memory`, the peak memory
  of the window and everything it started (its worker's server and worker), sampled from /proc;
- a warm launch (the same cache): first_graph_warm_s, the final analysis painted (a warm start
  shows no prediction: the result is read from the disk cache, in the window's process).
cold_over_floor is the target's ratio (≤ 1.15).
"""
from __future__ import annotations

import ast
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools.bench.child_window import WINDOW_CHILD_HEAD
from tools.bench.tree_memory import TreeMemory

_CHILD = WINDOW_CHILD_HEAD + r"""app.processEvents()
marks = {"window_s": time.time() - T0, "torch_at_window": "torch" in sys.modules, "stall_s": 0.0}
last = [time.perf_counter()]

def tick():
    now = time.perf_counter()
    marks["stall_s"] = max(marks["stall_s"], now - last[0])
    last[0] = now

timer = QTimer(interval=20)
timer.timeout.connect(tick)
timer.start()

def drawn():
    r = window.state.result
    if r is None or r.graph is None:
        return
    key = "predicted_s" if r.analysis.predicted else "final_s"
    if key in marks:
        return
    window.grab()                                   # painted, as on screen
    marks[key] = time.time() - T0
    if key == "final_s":
        marks["nodes"] = len(r.analysis.nodes)
    if os.environ.get("PROBE_UNTIL") == "first":        # only the first graph is asked for
        marks["nodes"] = len(r.analysis.nodes)
        QTimer.singleShot(0, app.quit)

def settled(_result):
    app.processEvents()
    window.grab()
    marks["settled_s"] = time.time() - T0
    marks["torch_in_window"] = "torch" in sys.modules
    marks["worker_peak_mib"] = default_host().peak_kib / 1024
    QTimer.singleShot(0, app.quit)

window.state.drawn.connect(drawn)
runner = window.runs.jobs
stages = marks.setdefault("stage_starts_s", {})
runner.progress.connect(lambda stage, f: stages.setdefault(stage, round(time.time() - T0, 2)))
window.runs.succeeded.connect(settled)
window.runs.failed.connect(lambda e: (print("FAILED", e.message, file=sys.stderr), app.exit(2)))
window.runs.start(RunConfig(model=os.environ["PROBE_MODEL"], quantizer=os.environ["PROBE_QUANTIZER"]))
code = app.exec()
default_host().stop()
print("MARKS " + json.dumps(marks), flush=True)
"""

# The floor: nothing of ours but reading the zoo's registry; the model built as its file or the
# zoo builds it, then torch.export as the pipeline calls it (non-strict).
_FLOOR = r"""
import json, os, sys, time
T0 = float(os.environ["PROBE_T0"])
import torch
import torch._dynamo
imported = time.time() - T0
spec = os.environ["PROBE_MODEL"]
if spec.endswith(".py"):
    import importlib.util
    loader = importlib.util.spec_from_file_location("_floor_model", spec)
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    model, inputs = module.get_model()
else:
    from vpu_core.zoo import ZOO, build_zoo_model
    entry = ZOO[spec]
    model = build_zoo_model(spec)
    inputs = (torch.randn((entry.batch, *entry.input_shape)),)
built = time.time() - T0
torch.export.export(model.eval(), tuple(inputs), strict=False)
print("FLOOR " + json.dumps({"import_s": imported, "built_s": built, "floor_s": time.time() - T0}), flush=True)
"""


def model_imports(model: str) -> list[str]:
    """The top-level modules a .py model file imports (none for a zoo name)."""
    path = Path(model.split(":")[0])
    if path.suffix != ".py" or not path.is_file():
        return []
    names: list[str] = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
    return list(dict.fromkeys(names))


def launch_env(extra: dict) -> dict:
    """The environment of a probe process, as a user's: bytecode is read and written (a shell
    with PYTHONDONTWRITEBYTECODE=1, as some sandboxes and CI set, recompiles all of our source
    at every start: 0.36 s of a warm launch's CPU, a cost no installed copy pays)."""
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"), **extra}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def compile_sources() -> None:
    """Our packages' bytecode written before the first probe, as `pip install` writes it: a cold
    launch measures an empty result cache, not a first compilation of the source."""
    root = Path(__file__).resolve().parents[2]
    for package in ("app", "vpu_core"):
        compileall.compile_dir(str(root / package), quiet=1, workers=1)


def _marked(stdout: str, tag: str, stderr: str) -> dict:
    line = next((ln for ln in stdout.splitlines() if ln.startswith(tag + " ")), "")
    if not line:
        raise RuntimeError(f"{tag.lower()} probe failed: {stderr.strip()[-400:]}")
    return json.loads(line[len(tag) + 1:])


def floor_s(model: str) -> dict:
    """{import_s, built_s, floor_s}: a fresh process importing torch and torch._dynamo, building
    `model` and exporting it (seconds from its start)."""
    proc = subprocess.run([sys.executable, "-c", _FLOOR], capture_output=True, text=True, timeout=1800,
                          env=launch_env({"PROBE_MODEL": model, "PROBE_T0": repr(time.time())}))
    return _marked(proc.stdout, "FLOOR", proc.stderr)


def launch(model: str, quantizer: str, cache: str, settings: str, memory: bool = False,
           until_first: bool = False) -> dict:
    """One launch of the window on `model`: its marks (and, with `memory`, the peak memory of the
    window's process tree); `until_first`: it ends when its first graph is painted."""
    env = launch_env({"PROBE_MODEL": model, "PROBE_QUANTIZER": quantizer, "VPU_INSPECTOR_CACHE_DIR": cache,
                      "VPU_INSPECTOR_SETTINGS": settings, "PROBE_T0": repr(time.time()),
                      **({"PROBE_UNTIL": "first"} if until_first else {})})
    proc = subprocess.Popen([sys.executable, "-c", _CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    sampler = TreeMemory(proc.pid)
    with sampler if memory else _nothing():
        out, err = proc.communicate(timeout=3600)
    marks = _marked(out, "MARKS", err)
    if memory:
        marks["peak_pss_mib"], marks["peak_rss_mib"] = sampler.peak_pss_mib, sampler.peak_rss_mib
    return marks


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def measure_first_graph(model: str = "resnet8", quantizer: str = "vpu", repeats: int = 3,
                        first_only: bool = False) -> dict:
    """One row from `repeats` rounds of floor, cold launch, warm launch in turn: the medians, each
    round's floor / cold / warm beside them. Why rounds: one import of torch varies by ±0.6 s
    here from one process to the next (3.1–3.7 s, quiet machine), which is more than the margin
    the cold target leaves; side by side and repeated, the ratio says what the window adds.
    `first_only`: each cold launch ends at its first graph and no warm launch follows (a
    real-size model's settled run takes minutes; the ratio needs only the first graph)."""
    compile_sources()
    rounds = [measure_round(model, quantizer, first_only=first_only) for _ in range(max(repeats, 1))]
    row = dict(rounds[len(rounds) // 2])        # a whole round's marks, then the medians over it
    for key in ("first_graph_floor_s", "first_graph_cold_s", "final_graph_cold_s", "settled_cold_s",
                "first_graph_warm_s", "window_s", "gui_max_stall_s", "floor_import_s", "floor_built_s"):
        values = [r[key] for r in rounds if r.get(key) is not None]
        row[key] = statistics.median(values) if values else None
        if key in ("first_graph_floor_s", "first_graph_cold_s", "first_graph_warm_s"):
            row[key.removesuffix("_s") + "_rounds_s"] = [r.get(key) for r in rounds]
    floor, cold = row["first_graph_floor_s"], row["first_graph_cold_s"]
    row["cold_over_floor"] = cold / floor if cold and floor else None
    row["repeats"] = len(rounds)
    return row


def measure_round(model: str, quantizer: str = "vpu", with_floor: bool = True,
                  memory: bool = False, cache: str | None = None, first_only: bool = False) -> dict:
    """One round: the floor (`with_floor`), the cold launch's marks, the warm launch's first graph.
    `cache`: the cache folder to start from (default: a new empty one)."""
    with tempfile.TemporaryDirectory(prefix="vpu-inspector-first-graph-") as tmp:
        settings, cache = os.path.join(tmp, "settings.ini"), cache or os.path.join(tmp, "cache")
        floor = floor_s(model) if with_floor else {}
        cold = launch(model, quantizer, cache, settings, memory, until_first=first_only)
        warm = {} if first_only else launch(model, quantizer, cache, settings)
    first = cold.get("predicted_s", cold.get("final_s"))
    bottom = floor.get("floor_s")
    row = {"graph": f"{Path(model).stem}/{quantizer}", "nodes": cold.get("nodes"),
           "first_graph_floor_s": bottom, "first_graph_cold_s": first,
           "cold_over_floor": first / bottom if first and bottom else None,
           "first_graph_predicted": "predicted_s" in cold,
           "final_graph_cold_s": cold.get("final_s"), "settled_cold_s": cold.get("settled_s"),
           "first_graph_warm_s": warm.get("final_s"), "warm_was_final": "predicted_s" not in warm,
           "window_s": cold["window_s"], "gui_max_stall_s": cold["stall_s"],
           "torch_imported_at_window": cold["torch_at_window"],
           "torch_in_window": cold.get("torch_in_window") or warm.get("torch_in_window"),
           "floor_import_s": floor.get("import_s"), "floor_built_s": floor.get("built_s"),
           "cold_stage_starts_s": cold.get("stage_starts_s", {})}
    if memory:
        row.update(window_peak_pss_mib=cold.get("peak_pss_mib"), window_peak_rss_mib=cold.get("peak_rss_mib"),
                   worker_peak_rss_mib=cold.get("worker_peak_mib"))
    return row
