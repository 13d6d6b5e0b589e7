"""How long until the first graph is on screen, cold and warm, against the time torch takes to import.

Every figure comes from a fresh interpreter, as when a user types `vpu-inspector gui MODEL`:
- torch_import_s: `import torch` plus the model file's own top-level imports (transformers for a
  transformers model) in a process of its own — the floor any first graph of that model stands on;
- a cold launch (empty result cache): first_graph_cold_s, the predicted partition painted
  (process start → the window's first drawn graph, predicted, grabbed), final_graph_cold_s, the
  quantized analysis painted, and gui_max_stall_s, the longest the event loop went without
  answering a 20 ms timer between the window showing and the final graph (how responsive the
  window stays while torch imports and PT2E runs on the job thread);
- a warm launch (the same cache): first_graph_warm_s, the final analysis painted (a warm start
  shows no prediction: the result is read from the disk cache).
The ratio first_graph_cold_s / torch_import_s has a target: ≤ 2.0.
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from app.devtools.child_window import WINDOW_CHILD_HEAD

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
        QTimer.singleShot(0, app.quit)

window.state.drawn.connect(drawn)

def predicted(_inspection):         # on the job thread, as the prediction is handed over
    marks.setdefault("torchao_at_prediction", "torchao" in sys.modules)

runner = window.runs.jobs
stages = marks.setdefault("stage_starts_s", {})
runner.progress.connect(lambda stage, f: stages.setdefault(stage, round(time.time() - T0, 2)))
runner.started.connect(lambda _config: runner._job.preview.connect(predicted, Qt.ConnectionType.DirectConnection))
window.runs.failed.connect(lambda e: (print("FAILED", e.message, file=sys.stderr), app.exit(2)))
window.runs.start(RunConfig(model=os.environ["PROBE_MODEL"], quantizer=os.environ["PROBE_QUANTIZER"]))
code = app.exec()
print("MARKS " + json.dumps(marks), flush=True)
"""

_IMPORTS = r"""
import importlib, json, os, sys, time
t = time.perf_counter()
import torch
for name in json.loads(os.environ["PROBE_IMPORTS"]):
    try:
        importlib.import_module(name)
    except Exception:
        pass
print("IMPORT", time.perf_counter() - t, flush=True)
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


def _env(extra: dict) -> dict:
    return {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"), **extra}


def torch_import_s(model: str) -> float:
    """Seconds to import torch and the model file's own imports, in a fresh process."""
    proc = subprocess.run([sys.executable, "-c", _IMPORTS], capture_output=True, text=True, timeout=600,
                          env=_env({"PROBE_IMPORTS": json.dumps(model_imports(model))}))
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("IMPORT ")), "")
    if not line:
        raise RuntimeError(f"import probe failed: {proc.stderr.strip()[-300:]}")
    return float(line.split()[1])


def _launch(model: str, quantizer: str, cache: str, settings: str) -> dict:
    env = _env({"PROBE_MODEL": model, "PROBE_QUANTIZER": quantizer, "VPU_INSPECTOR_CACHE_DIR": cache,
                "VPU_INSPECTOR_SETTINGS": settings, "PROBE_T0": repr(time.time())})
    proc = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, timeout=1200,
                          env=env)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("MARKS ")), "")
    if not line:
        raise RuntimeError(f"first-graph probe failed: {proc.stderr.strip()[-300:]}")
    return json.loads(line[6:])


def measure_first_graph(model: str = "resnet8", quantizer: str = "vpu", with_import: bool = True) -> dict:
    """One row: torch_import_s (`with_import`), the cold launch's marks, the warm launch's first graph."""
    with tempfile.TemporaryDirectory(prefix="vpu-inspector-first-graph-") as tmp:
        settings = os.path.join(tmp, "settings.ini")
        imports = torch_import_s(model) if with_import else None
        cold = _launch(model, quantizer, os.path.join(tmp, "cache"), settings)
        warm = _launch(model, quantizer, os.path.join(tmp, "cache"), settings)
    first = cold.get("predicted_s", cold.get("final_s"))
    return {"graph": f"{Path(model).stem}/{quantizer}", "nodes": cold.get("nodes"),
            "torch_import_s": imports, "window_s": cold["window_s"],
            "torch_imported_at_window": cold["torch_at_window"],
            "first_graph_cold_s": first, "first_graph_predicted": "predicted_s" in cold,
            "torchao_at_prediction": cold.get("torchao_at_prediction"),
            "final_graph_cold_s": cold.get("final_s"), "gui_max_stall_s": cold["stall_s"],
            "first_graph_warm_s": warm.get("final_s"), "warm_was_final": "predicted_s" not in warm,
            "cold_over_import": first / imports if first and imports else None,
            "cold_stage_starts_s": cold.get("stage_starts_s", {})}
