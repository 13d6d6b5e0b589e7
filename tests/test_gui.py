"""pytest-qt tests driving the real window over real pipeline runs.

Each real run costs seconds, so the tests are few and each walks a whole user story. Settings go
to a temporary INI file (VPU_INSPECTOR_SETTINGS), never to the user's.
"""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QRectF, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from app import dialogs, theme
from app.settings import ENV_VAR, Store
from vpu_core.graph.build import build_graph_model, display_id

RUN_TIMEOUT_MS = 180_000
REPO = Path(__file__).resolve().parents[1]

PY_MODEL = """
import torch
from torch import nn

def get_model():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 8 * 8, 5))
    return model, (torch.randn(1, 3, 8, 8),)
"""


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "settings.ini"))
    theme.apply_theme(QApplication.instance())
    from app.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1600, 1000)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.jobs.shutdown()


def run_and_wait(qtbot, win, options: dict | None = None, action=None):
    """Start a run (or perform `action`, which starts one) and return its RunResult."""
    outcome = []
    win.jobs.succeeded.connect(outcome.append)
    win.jobs.failed.connect(outcome.append)
    try:
        action() if action else win.start_run(options)
        qtbot.waitUntil(lambda: bool(outcome), timeout=RUN_TIMEOUT_MS)
    finally:
        win.jobs.succeeded.disconnect(outcome.append)
        win.jobs.failed.disconnect(outcome.append)
    assert not hasattr(outcome[0], "message"), f"run failed: {outcome[0].message}\n{outcome[0].detail}"
    return outcome[0]


def error_box(qtbot) -> QMessageBox:
    def visible():
        return [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]

    qtbot.waitUntil(lambda: bool(visible()), timeout=RUN_TIMEOUT_MS)
    return visible()[0]


def test_zoo_model_quantizer_switch_violation_jump_and_search(qtbot, window):
    vpu = run_and_wait(qtbot, window, {"model": "resnet8", "quantizer": "vpu"})
    a = vpu.analysis
    assert a.model == "resnet8" and a.quantizer == "vpu"
    view_model = window.graph_view.grouped().flat       # drawn with its module groups (some closed)
    assert view_model == build_graph_model(a, fold_params=True)         # the view paints the core's graph
    assert window.panels.violations.group_counts() == {r.rule.id: r.violations for r in a.rules}
    assert f"{len(a.violations)} violations" in window.summary.text()
    assert not window.panels.node_panel.toPlainText().strip() == ""     # summary, not an empty panel
    vpu_flagged = {n.id for n in view_model.nodes if n.violations}

    # switch quantizer with the toolbar button: the window re-runs by itself; the event loop keeps
    # answering during the run (a timer keeps ticking)
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(50)
    started = time.perf_counter()
    xnn = run_and_wait(qtbot, window, action=lambda: qtbot.mouseClick(window.controls.xnn_button,
                                                                      Qt.MouseButton.LeftButton))
    elapsed = time.perf_counter() - started
    timer.stop()
    assert len(ticks) >= 0.25 * elapsed / 0.05, f"{len(ticks)} ticks in {elapsed:.1f} s"
    b = xnn.analysis
    assert b.quantizer == "xnnpack" and len(b.violations) > len(a.violations)
    xnn_model = window.graph_view.grouped().flat
    assert xnn_model == build_graph_model(b, fold_params=True)
    shown = window.graph_view.graph_scene().model          # closed groups count what they hide
    assert sum(n.violations for n in shown.nodes) == sum(n.violations for n in xnn_model.nodes) == len(b.violations)
    assert {n.id for n in xnn_model.nodes if n.violations} != vpu_flagged
    assert window.panels.violations.group_counts() == {r.rule.id: r.violations for r in b.rules}
    assert f"{len(b.violations)} violations" in window.summary.text()

    # click a violation row: the view selects and centres that node
    tree = window.panels.violations.tree
    group = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                 if tree.topLevelItem(i).childCount())
    group.setExpanded(True)
    row = group.child(group.childCount() // 2)        # mid-graph: far from the scene edges
    tree.scrollToItem(row)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualItemRect(row).center())
    target = display_id(xnn_model, row.text(0))
    assert window.graph_view.selected() == target == window.selected    # revealed if it was hidden
    box = window.graph_view.graph_scene().items[target].box
    visible = window.graph_view.visible_scene_rect()
    assert visible.contains(box)
    assert abs(visible.center().y() - box.center().y()) < 0.1 * visible.height()
    assert target in window.panels.node_panel.toPlainText()

    # search: matches come from the view, Enter walks to the next one
    window.focus_search()
    qtbot.keyClicks(window.view_bar.search, "conv2d")
    matches = window._matches
    assert matches and all("conv2d" in m for m in matches)
    assert window.graph_view.selected() == matches[0]
    qtbot.keyClick(window.view_bar.search, Qt.Key.Key_Return)
    assert window.graph_view.selected() == matches[1]
    assert window.view_bar.matches.text() == f"2 of {len(matches)}"


def test_open_pt2_and_py_then_bad_file_keeps_previous_graph(qtbot, window, tmp_path, monkeypatch):
    import torch

    py_path = tmp_path / "tiny_model.py"
    py_path.write_text(PY_MODEL, encoding="utf-8")
    namespace: dict = {}
    exec(PY_MODEL, namespace)
    module, inputs = namespace["get_model"]()
    pt2_path = tmp_path / "tiny_program.pt2"
    batch = tuple(t.expand(16, *t.shape[1:]).contiguous() for t in inputs)   # the run's batch size
    torch.export.save(torch.export.export(module, batch), str(pt2_path))

    pt2 = run_and_wait(qtbot, window, action=lambda: window.open_model_path(str(pt2_path)))
    assert pt2.analysis.model == "tiny_program"
    assert window.graph_model == build_graph_model(pt2.analysis)

    asked = []
    monkeypatch.setattr(dialogs, "confirm_python_model", lambda parent, path: asked.append(path) or True)
    py = run_and_wait(qtbot, window, action=lambda: window.open_model_path(str(py_path)))
    assert asked == [str(py_path)]                     # a .py runs code: the user was asked first
    assert py.analysis.model == "tiny_model"
    assert {n.label for n in window.graph_model.nodes} >= {"conv2d", "relu", "linear"}
    assert window.store.recent_files()[:2] == [str(py_path.resolve()), str(pt2_path.resolve())]

    bad = tmp_path / "broken.pt2"
    bad.write_bytes(b"this is not a zip archive")
    with qtbot.waitSignal(window.jobs.failed, timeout=RUN_TIMEOUT_MS) as blocker:
        window.open_model_path(str(bad))
    box = error_box(qtbot)
    assert box.text() == blocker.args[0].message and "broken.pt2" in box.text()
    box.close()
    assert window.result is py and window.graph_view.grouped().flat == window.graph_model
    assert "Run failed" in window.summary.text()


def test_dynamic_batch_is_refused_by_the_vpu_quantizer_with_a_dialog(qtbot, window):
    ok = run_and_wait(qtbot, window, {"model": "conv_relu", "quantizer": "vpu"})
    with qtbot.waitSignal(window.jobs.failed, timeout=RUN_TIMEOUT_MS) as blocker:
        window.controls.batch.setCurrentIndex(1)       # dynamic: the window re-runs by itself
    error = blocker.args[0]
    assert type(error).__name__ == "StaticShapeError"
    box = error_box(qtbot)
    assert box.text() == error.message
    assert box.detailedText() == (error.detail or "")
    box.close()
    assert window.result is ok                          # the previous graph stays


def test_cancel_and_a_second_run_supersedes_the_first(qtbot, window):
    # A seed no other test uses: this configuration is in no cache, so the run takes long enough
    # to be cancelled.
    with qtbot.waitSignal(window.jobs.cancelled, timeout=RUN_TIMEOUT_MS):
        window.start_run({"model": "resnet8", "quantizer": "xnnpack", "seed": 12})
        qtbot.waitUntil(lambda: window.progress.isVisible())
        qtbot.mouseClick(window.controls.cancel_button, Qt.MouseButton.LeftButton)
    assert window.result is None and not window.is_running()
    assert "Cancelled" in window.stage.text()

    results = []
    window.jobs.succeeded.connect(results.append)
    window.start_run({"model": "resnet8", "quantizer": "xnnpack"})
    last = run_and_wait(qtbot, window, {"model": "conv_relu", "quantizer": "vpu"})
    qtbot.wait(200)
    assert [r.analysis.model for r in results] == ["conv_relu"] and last is results[0]


def test_fold_toggle_and_settings_persist(qtbot, window, tmp_path):
    result = run_and_wait(qtbot, window, {"model": "conv_relu", "quantizer": "xnnpack"})
    folded = window.graph_model
    conv = next(n for n in folded.nodes if n.label == "conv2d")
    assert conv.folded and not any(n.is_param for n in folded.nodes)
    window.view_bar.fold.setChecked(False)
    unfolded = window.graph_view.graph_scene().model
    assert unfolded == build_graph_model(result.analysis, fold_params=False)
    assert {n.id for n in unfolded.nodes if n.is_param} == set(conv.folded)
    window.select_node(conv.folded[0])                 # a weight: shown as itself when unfolded
    assert window.graph_view.selected() == conv.folded[0]
    window.view_bar.fold.setChecked(True)
    assert window.graph_view.selected() == conv.id     # …and as its conv when folded
    window.close()
    store = Store()
    assert store.qs.fileName() == str(tmp_path / "settings.ini")
    assert store.window_state()[0] is not None and store.fold_params() is True
    assert store.run_options()["quantizer"] == "xnnpack"


def test_window_module_does_not_import_torch():
    code = ("import sys; import app.main_window; "
            "print(sorted(m for m in ('torch', 'vpu_core.pipeline') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_open_dialog_warns_and_dropping_a_py_asks_first(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    dialog = dialogs.model_file_dialog(window)
    assert dialog.warning.text().endswith(dialogs.PY_WARNING) and "runs its Python code" in dialogs.PY_WARNING
    assert not dialog.warning.isHidden()

    script = tmp_path / "dropped.py"
    script.write_text(PY_MODEL, encoding="utf-8")
    asked, started = [], []
    monkeypatch.setattr(dialogs, "confirm_python_model", lambda parent, path: asked.append(path) or False)
    monkeypatch.setattr(window, "start_run", lambda *a: started.append(a))
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(script))])
    drop = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
                      Qt.KeyboardModifier.NoModifier)
    window.dropEvent(drop)
    assert asked == [str(script)] and started == []       # declined: nothing runs
    monkeypatch.setattr(dialogs, "confirm_python_model", lambda parent, path: True)
    window.dropEvent(drop)
    assert started and window.controls.model_spec() == str(script.resolve())
