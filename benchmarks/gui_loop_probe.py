"""Times the GUI's responsiveness targets on the real window (offscreen), from a fresh interpreter.

    python -m benchmarks.gui_loop_probe            # runs itself twice: empty cache, then warm cache

(from the repository's root: it imports tools.bench, which is not installed)

Reported (seconds): first graph after launch (process start → the default model's graph painted),
switching to XNNPACK, switching back to a configuration seen this session, the fold toggle (a new
drawing of the same result), the real XNNPACK overlay on / off, and compare mode on / off. "Painted" = the job's result applied and `window.grab()` done.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from tools.bench.child_window import WINDOW_CHILD_HEAD

CHILD = WINDOW_CHILD_HEAD + r"""runs = window.runs


def wait_for_job(start_fn):
    # A change that needs no job (a redraw of the result on screen) is timed as it is drawn.
    loop = QEventLoop()
    runs.succeeded.connect(loop.quit)
    runs.failed.connect(lambda e: (print("FAILED", e.message, file=sys.stderr), loop.quit()))
    QTimer.singleShot(1_200_000, loop.quit)
    start = time.perf_counter()
    start_fn()
    if runs.is_running():
        loop.exec()
    runs.succeeded.disconnect(loop.quit)
    app.processEvents()
    window.grab()
    return time.perf_counter() - start

vpu = RunConfig(model="resnet8", quantizer="vpu")
xnn = RunConfig(model="resnet8", quantizer="xnnpack")
out = {}
wait_for_job(lambda: runs.start(vpu))
out["first_graph_after_launch_s"] = time.time() - T0
# A toolbar click re-runs after a short pause (RERUN_DELAY_MS, for clicking through options);
# request() starts it at once, so the pause is not counted.
out["switch_to_xnnpack_s"] = wait_for_job(lambda: (window.controls.xnn_button.click(), runs.request()))
out["back_to_seen_config_s"] = wait_for_job(lambda: (window.controls.vpu_button.click(), runs.request()))
fold = window.view_bar.fold
out["fold_toggle_s"] = wait_for_job(lambda: fold.setChecked(not fold.isChecked()))
out["fold_toggle_back_s"] = wait_for_job(lambda: fold.setChecked(not fold.isChecked()))
out["overlay_on_s"] = wait_for_job(window.overlay.toggle)
out["overlay_off_s"] = wait_for_job(window.overlay.toggle)
out["compare_on_s"] = wait_for_job(lambda: window.compare.set_mode(True))
out["compare_off_s"] = wait_for_job(lambda: window.compare.set_mode(False))
print("PROBE", json.dumps(out), flush=True)
window.runs.jobs.shutdown()
"""


def run_once(cache_dir: str, settings: str) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "VPU_INSPECTOR_CACHE_DIR": cache_dir,
           "VPU_INSPECTOR_SETTINGS": settings, "PROBE_T0": repr(time.time())}
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env,
                          timeout=3600, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("PROBE ")), None)
    if line is None:
        raise SystemExit(f"probe failed:\n{proc.stderr[-2000:]}")
    return json.loads(line[len("PROBE "):])


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="vpu-gui-probe-") as tmp:
        cache, settings = os.path.join(tmp, "cache"), os.path.join(tmp, "settings.ini")
        for label in ("cold (empty disk cache)", "warm (disk cache from the run above)"):
            result = run_once(cache, settings)
            print(label)
            for key, value in result.items():
                print(f"  {key:28s} {value:7.2f} s")


if __name__ == "__main__":
    main()
