"""The real-size corpus (benchmarks/real_size: BERT-base, ResNet-50, ViT-B/16, GPT-2 small, the
Whisper-base encoder; full-size configs, random weights) side by side, one model at a time:

    floor          a fresh process: import torch + torch._dynamo, build the model, torch.export
    check cold     `vpu-inspector check MODEL --format json` from an empty cache: wall time and peak RSS
    window cold    `gui MODEL` from another empty cache: the predicted graph painted (first graph),
                   the quantized one (final), the follow-up stages there (settled), and the peak
                   memory of the window and everything it started (PSS and RSS sums, from /proc)
    window warm    a second launch on the window's cache: the final graph painted

The targets read from the row: first_graph_cold_s ≤ 1.15 × first_graph_floor_s; final_graph_cold_s
≤ 1.1 × check_cold_s + 3 s (`final_over_target` ≤ 1); the window's peak ≤ 2 × check's
(`memory_over_check` ≤ 2, PSS). `--repeats N` rounds per model (default 1: a round of the
five takes 10-15 minutes here).
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools.bench.first_graph import compile_sources, floor_s, launch, launch_env
from vpu_core.errors import InspectorError

FOLDER = Path(__file__).resolve().parents[2] / "benchmarks" / "real_size"
MODELS = ("bert_base", "resnet50", "vit_b16", "gpt2_small", "whisper_base_encoder")


def model_path(name: str) -> str:
    """A real-size model's file (a name of MODELS or a path)."""
    path = Path(name) if name.endswith(".py") else FOLDER / f"{name}.py"
    if not path.is_file():
        raise InspectorError(f"no real-size model {name!r} (looked for {path}; "
                             "the corpus lives in the repository's benchmarks/real_size)")
    return str(path)


def check_cold(model: str, cache: str) -> dict:
    """`check MODEL` in a fresh process from the empty cache `cache`: wall seconds and peak RSS."""
    env = launch_env({"VPU_INSPECTOR_CACHE_DIR": cache})
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "check", model, "--format", "json"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"check {model} failed: {proc.stderr.read().decode()[-400:] if proc.stderr else ''}")
    return {"check_cold_s": seconds, "check_peak_rss_mib": usage.ru_maxrss / 1024}


def real_size_row(name: str, quantizer: str = "vpu", repeats: int = 1) -> dict:
    """One model's row from `repeats` rounds (each round: floor, check cold, window cold, window
    warm in turn): the medians, the ratios as the median of each round's own ratio (a check and
    the window launch beside it see the same machine; this one's speed drifts by a third over
    minutes), and each round's check, window final and ratios beside them."""
    model = model_path(name)
    compile_sources()
    rounds = [measure_round(model, quantizer) for _ in range(max(repeats, 1))]
    row: dict = {"model": rounds[0]["model"], "nodes": rounds[0]["nodes"]}
    for key in rounds[0]:
        values = [r[key] for r in rounds if isinstance(r.get(key), (int, float)) and not isinstance(r[key], bool)]
        if key not in row and values:
            row[key] = statistics.median(values)
    row["torch_in_window"] = any(r["torch_in_window"] for r in rounds)
    for key in ("check_cold_s", "final_graph_cold_s", "cold_over_floor", "final_over_target", "memory_over_check"):
        row[key.removesuffix("_s") + "_rounds"] = [None if r.get(key) is None else round(r[key], 2) for r in rounds]
    row["repeats"] = len(rounds)
    return row


def measure_round(model: str, quantizer: str = "vpu") -> dict:
    """Floor, check cold, window cold (with its peak memory) and warm, each from an empty cache."""
    with tempfile.TemporaryDirectory(prefix="vpu-inspector-real-size-") as tmp:
        floor = floor_s(model)
        check = check_cold(model, os.path.join(tmp, "check-cache"))
        cache, settings = os.path.join(tmp, "window-cache"), os.path.join(tmp, "settings.ini")
        cold = launch(model, quantizer, cache, settings, memory=True)
        warm = launch(model, quantizer, cache, settings)
    first, final = cold.get("predicted_s", cold.get("final_s")), cold.get("final_s")
    return {"model": Path(model).stem, "nodes": cold.get("nodes"),
            "first_graph_floor_s": floor["floor_s"], "first_graph_cold_s": first,
            "cold_over_floor": first / floor["floor_s"] if first else None,
            "check_cold_s": check["check_cold_s"], "final_graph_cold_s": final,
            "final_over_target": final / (1.1 * check["check_cold_s"] + 3.0) if final else None,
            "settled_cold_s": cold.get("settled_s"), "first_graph_warm_s": warm.get("final_s"),
            "check_peak_rss_mib": check["check_peak_rss_mib"],
            "window_peak_pss_mib": cold.get("peak_pss_mib"), "window_peak_rss_mib": cold.get("peak_rss_mib"),
            "memory_over_check": cold["peak_pss_mib"] / check["check_peak_rss_mib"],
            "gui_max_stall_s": cold["stall_s"], "torch_in_window": bool(cold.get("torch_in_window"))}


def bench_real_size(names: tuple[str, ...] = MODELS, repeats: int = 1) -> list[dict]:
    return [real_size_row(name, repeats=repeats) for name in names]
