"""How long until the main window is on screen, measured from a fresh interpreter.

Run in a subprocess so that the interpreter start and every import count, exactly as when a user
types `vpu-inspector`. The child prints one line once the window has been shown and painted.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

_CHILD = """
import sys
from PySide6.QtWidgets import QApplication
from app import theme
from app.window.main_window import MainWindow
app = QApplication(sys.argv[:1])
theme.apply_theme(app)
window = MainWindow()
window.show()
app.processEvents()
window.grab()
print("shown", "torch" in sys.modules, flush=True)
"""


def measure_window_startup(repeats: int = 3) -> dict:
    """Median seconds from process start to a painted window, and whether torch was imported."""
    times, torch_loaded = [], False
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
               "VPU_INSPECTOR_SETTINGS": os.path.join(tmp, "settings.ini")}
        for _ in range(repeats):
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True,
                                  env=env, timeout=120)
            line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("shown")), "")
            if not line:
                raise RuntimeError(f"window start-up probe failed: {proc.stderr.strip()[-300:]}")
            times.append(time.perf_counter() - start)
            torch_loaded = torch_loaded or line.endswith("True")
    times.sort()
    return {"window_startup_s": times[len(times) // 2], "torch_imported_at_startup": torch_loaded}
