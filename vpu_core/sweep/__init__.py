"""The fleet: many models × quantizers × profiles, each run in its own process, summarised.

    plan = plan_sweep(["models/", "resnet8"], quantizers=("vpu", "xnnpack"), profiles=(None,))
    result = run_sweep(plan, out_dir, SweepOptions(workers=2, timeout_s=600))   # local processes
    result = run_sweep(plan, out_dir, options, ray_address="local")           # as Ray tasks

Modules (the driver's import no torch — a test checks it; preload.py and worker.py do, in the
worker processes):
- plan.py       models and profiles expanded into runs, each with its content key
- worker.py     one run in this process (Session + disk cache, like `check`); `python -m` entry
- preload.py    what the local engine's fork server imports once (no run imports it again)
- folder.py     a sweep folder read back (the window's sweep table)
- cli.py        the `sweep` command line
- rows.py       the summary row of a run, from its `check --format json` (summary, causes, MACs)
- ledger.py     what both engines share: the ledger of runs (reuse, order, recording), the options
- local.py      the local engine: one forked process per run, timeouts, crashes, interrupts
- ray_engine.py the same runs as Ray tasks (import ray only there)
- outputs.py    what lands in the sweep folder: per-run files, summary.json / .csv, index.html
- run.py        a whole sweep: ledger, engine, summary, dashboard; the exit status
- fleet.py      fleet aggregates: blockers and next kernels over many runs
- dashboard.py  index.html, one self-contained file
- progress.py   the terminal progress bar with ETA
"""
