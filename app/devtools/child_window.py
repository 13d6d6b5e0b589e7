"""The opening of every benchmark child script: a fresh interpreter that builds the real window.

The benchmarks run their probes as `python -c SCRIPT` so that interpreter start and every import
count as they do for a user; each script starts with WINDOW_CHILD_HEAD (T0 = the parent's clock at
launch, in the environment as PROBE_T0) and goes on with its own timings.
"""
WINDOW_CHILD_HEAD = r"""
import json, os, sys, time
T0 = float(os.environ["PROBE_T0"])
from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication
from app import theme
from app.window.main_window import MainWindow
from vpu_core.config import RunConfig

app = QApplication(sys.argv[:1])
theme.apply_theme(app)
window = MainWindow()
window.resize_for(1280, 720)
window.show()
"""
