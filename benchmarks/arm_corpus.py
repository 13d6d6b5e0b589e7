"""The real-model corpus under the Arm targets.

    python benchmarks/arm_corpus.py                      # tests/corpus/*.py, ethos-u quantizer,
                                                         # ethos-u55-128 and ethos-u85-256
    python benchmarks/arm_corpus.py MODEL... -o rows.jsonl

Each model runs in a fresh process (torch.export and the lowering change process-wide state),
through the session and its disk cache (a second target reuses the quantized graph). Prints one
markdown table: partitions, CPU ops with their causes, Vela's total cycles, inference time and SRAM
per target. Lowering takes 10 s to several minutes per model and target. (edge_npu held to the
real U55 on the same models: `vpu-inspector agree tests/corpus/*.py`.)
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ("ethos-u55-128", "ethos-u85-256")


def one(model: str, quantizer: str, targets: list[str]) -> list[dict]:
    """The rows of one model (in this process)."""
    from vpu_core.config import RunConfig
    from vpu_core.session import default_session

    session = default_session()
    config = RunConfig(model=model, quantizer=quantizer)
    name = Path(model).stem
    start = time.perf_counter()
    try:
        session.analysis(config)
    except Exception as exc:   # a model the quantizer cannot take is a row with its reason
        return [{"model": name, "quantizer": quantizer, "error": f"{type(exc).__name__}: {exc}"}]
    rows = []
    for target in targets:
        row: dict = {"model": name, "quantizer": quantizer, "target": target,
                     "quantize_s": round(time.perf_counter() - start, 1)}
        t0 = time.perf_counter()
        try:
            result = session.target(config, target)
        except Exception as exc:
            rows.append({**row, "error": f"{type(exc).__name__}: {exc}"})
            continue
        row["target_s"] = round(time.perf_counter() - t0, 1)
        v, e = result.verdict, result.estimate
        row.update(partitions=len(v.subgraphs), cpu=[{"node": c.node, "op": c.op, "cause": c.cause,
                                                       "check": dict(c.detail).get("check", "")}
                                                      for c in v.cpu_nodes])
        if e is not None:
            row.update(total_cycles=e.total_cycles, npu_cycles=e.npu_cycles, inference_ms=e.inference_ms,
                       sram_bytes=e.sram_bytes, flash_bytes=e.flash_bytes, attributed=e.attributed_share,
                       label=e.label)
        rows.append(row)
    return rows


def table(rows: list[dict]) -> str:
    head = "| model | target | partitions | CPU ops (cause: count) | NPU cycles (total / NPU) | inference | SRAM |"
    lines = [head, "|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['model']} | {r.get('target', '')} | refused: {r['error'][:120]} | | | | |")
            continue
        causes = Counter(c["cause"] for c in r["cpu"])
        cpu = f"{len(r['cpu'])} (" + ", ".join(f"{k}: {n}" for k, n in causes.most_common()) + ")" if r["cpu"] else "0"
        cycles = f"{r['total_cycles']:,} / {r['npu_cycles']:,}" if "total_cycles" in r else "n/a"
        ms = f"{r['inference_ms']:.3f} ms" if "inference_ms" in r else "n/a"
        sram = f"{r['sram_bytes'] / 1024:.1f} KiB" if "sram_bytes" in r else "n/a"
        lines.append(f"| {r['model']} | {r['target']} | {r['partitions']} | {cpu} | {cycles} | {ms} | {sram} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("models", nargs="*")
    p.add_argument("--targets", default=",".join(TARGETS))
    p.add_argument("--quantizer", default="ethos-u")
    p.add_argument("-o", "--output", help="append the rows (JSON lines)")
    p.add_argument("--one", action="store_true", help=argparse.SUPPRESS)      # a child: one model
    args = p.parse_args(argv)
    quantizer, targets = args.quantizer, args.targets.split(",")
    if args.one:
        print(json.dumps(one(args.models[0], quantizer, targets)))
        return 0
    models = args.models or sorted(str(f) for f in (ROOT / "tests" / "corpus").glob("[!_]*.py"))
    rows = []
    for model in models:
        cmd = [sys.executable, __file__, model, "--one", "--targets", ",".join(targets), "--quantizer", quantizer]
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        lines = [line for line in done.stdout.splitlines() if line.startswith("[")]
        found = json.loads(lines[-1]) if lines else [{"model": Path(model).stem, "error": done.stderr.strip()[-300:]}]
        rows += found
        if args.output:
            with open(args.output, "a", encoding="utf-8") as f:
                f.writelines(json.dumps(r) + "\n" for r in found)
        print(f"{Path(model).stem}: done", file=sys.stderr)
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
