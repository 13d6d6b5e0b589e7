"""The fleet: many models × quantizers × profiles, each run in its own process, summarised.

    plan = plan_sweep(["models/", "resnet8"], quantizers=("vpu", "xnnpack"), profiles=(None,))
    result = run_sweep(plan, out_dir, workers=2, timeout=600)     # local worker processes
    result = run_sweep_ray(plan, out_dir, address="local")         # the same runs as Ray tasks

Modules (none imports torch; the workers do, each in its own process):
- plan.py       models and profiles expanded into runs, each with its content key
- worker.py     one run in this process (Session + disk cache, like `check`); `python -m` entry
- rows.py       the summary row of a run, from its `check --format json` (+ MACs per CPU op)
- macs.py       multiply-accumulates per op, from the analysis' node shapes
- local.py      the local engine: one subprocess per run, timeouts, crashes, resume
- ray_engine.py the same runs as Ray tasks (import ray only there)
- outputs.py    what lands in the sweep folder: per-run files, summary.json / .csv, index.html
- fleet.py      fleet aggregates: blockers and next kernels over many runs
- dashboard.py  index.html, one self-contained file
- progress.py   the terminal progress bar with ETA
"""
