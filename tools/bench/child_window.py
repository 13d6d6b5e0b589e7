"""The opening of every benchmark child script: a fresh interpreter that opens the real window as
`vpu-inspector gui` does.

The benchmarks run their probes as `python -c SCRIPT` so that interpreter start and every import
count as they do for a user; each script starts with WINDOW_CHILD_HEAD (T0 = the parent's clock at
launch, in the environment as PROBE_T0) and goes on with its own timings. As run_gui
(app.window.launch): the worker's server is started before Qt is imported (it imports torch on the
other core while the window is built), the first worker forked once the window is shown.
"""
WINDOW_CHILD_HEAD = r"""
import json, os, sys, time
T0 = float(os.environ["PROBE_T0"])
from vpu_core.worker.host import default_host
default_host().start_server()
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
default_host().start_worker()
"""
