"""pyqtgraph waits for the first plot on screen (app/widgets/plot_slot.py says why): a window
starts without it, a plot tab is built when it is first painted and draws what it was told."""
import os
import subprocess
import sys

from PySide6.QtWidgets import QLabel

from app.widgets.deferred import Deferred

_WINDOW = r"""
import sys
from PySide6.QtWidgets import QApplication
from app import theme
from app.window.main_window import MainWindow
app = QApplication([])
theme.apply_theme(app)
window = MainWindow()
window.resize_for(1280, 720)
window.show()
for _ in range(5):
    app.processEvents()
window.grab()
app.processEvents()
print("at start", "pyqtgraph" in sys.modules, window.panels.scale_hist.built)
window.plots_dock.raise_()
app.processEvents()
from app.widgets.deferred import grab_built
grab_built(window)                      # a screenshot: the plot built and shown in it
print("plots raised", "pyqtgraph" in sys.modules, window.panels.scale_hist.built, window.panels.shift_hist.built,
      window.panels.scale_hist.widget.isVisible())
window.panels.plots.setCurrentIndex(1)
for _ in range(5):
    app.processEvents()
print("shifts tab", window.panels.shift_hist.built)
"""


def test_the_window_starts_without_pyqtgraph_and_builds_a_plot_tab_when_it_is_shown(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "VPU_INSPECTOR_SETTINGS": str(tmp_path / "s.ini")}
    out = subprocess.run([sys.executable, "-c", _WINDOW], capture_output=True, text=True, env=env,
                         timeout=300).stdout.splitlines()
    assert out == ["at start False False", "plots raised True True False True", "shifts tab True"]


def test_a_deferred_tab_gives_the_widget_the_last_thing_it_was_told(qtbot):
    made: list[QLabel] = []

    def build() -> QLabel:
        made.append(QLabel())
        return made[-1]

    tab: Deferred[QLabel] = Deferred(build)
    qtbot.addWidget(tab)
    tab.apply(lambda label: label.setText("first"))
    tab.apply(lambda label: label.setText("second"))
    assert not tab.built and made == []
    tab.resize(200, 100)
    with qtbot.waitExposed(tab):
        tab.show()
    tab.repaint()
    qtbot.waitUntil(lambda: tab.built)
    assert [label.text() for label in made] == ["second"]
    tab.apply(lambda label: label.setText("third"))         # built: at once
    assert made[0].text() == "third" and len(made) == 1
