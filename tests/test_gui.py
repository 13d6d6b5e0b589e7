"""pytest-qt tests driving the real window over real pipeline runs.

Each real run costs seconds, so the tests are few and each walks a whole user story. Settings go
to a temporary INI file (VPU_INSPECTOR_SETTINGS), never to the user's (fixture `window`).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QToolBar

from app import dialogs
from app.settings import Store
from vpu_core.config import RunConfig
from vpu_core.graph.build import build_graph_model, display_id

REPO = Path(__file__).resolve().parents[1]

PY_MODEL = """
import torch
from torch import nn

def get_model():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 8 * 8, 5))
    return model, (torch.randn(1, 3, 8, 8),)
"""


def plain(text: str) -> str:
    """The node panel's text without the zero-width break opportunities in long names."""
    return text.replace("\u200b", "")


@pytest.mark.slow
def test_zoo_model_quantizer_switch_violation_jump_and_search(qtbot, window, run_and_wait):
    assert window.view_bar.violation_label.text() == ""          # no verdict before a result
    vpu = run_and_wait(window, {"model": "resnet8", "quantizer": "vpu"})
    a = vpu.analysis
    assert a.model == "resnet8" and a.quantizer == "vpu"
    view_model = window.graph_view.groups.grouped.flat       # drawn with its module groups (some closed)
    assert view_model == build_graph_model(a, fold_params=True)         # the view paints the core's graph
    counts = {r.rule.id: r.violations for r in a.rules}
    counts["vpu_op_list"] = len(a.partition.cpu_nodes)                  # rule 1 is listed with them
    assert window.panels.violations.group_counts() == counts
    assert "0 violations" in window.summary.text() and "no violations" in window.view_bar.violation_label.text()
    assert a.partition_rule.title in plain(window.panels.node_panel.toPlainText())   # summary: rule 1 too
    vpu_flagged = {n.id for n in view_model.nodes if n.violations}

    # switch quantizer with the toolbar button: the window re-runs by itself; the event loop keeps
    # answering during the run: a timer fires while the job runs and sees its progress on screen
    # (how often it fires under load is a `bench` figure, gui_max_stall_s, not a test)
    during_run = []
    timer = QTimer()
    timer.timeout.connect(lambda: during_run.append((window.runs.is_running(), window.progress.isVisible())))
    timer.start(50)
    xnn = run_and_wait(window, action=lambda: qtbot.mouseClick(window.controls.xnn_button,
                                                               Qt.MouseButton.LeftButton))
    timer.stop()
    assert (True, True) in during_run
    b = xnn.analysis
    assert b.quantizer == "xnnpack" and len(b.violations) > len(a.violations)
    xnn_model = window.graph_view.groups.grouped.flat
    assert xnn_model == build_graph_model(b, fold_params=True)
    shown = window.graph_view.graph_scene().model          # closed groups count what they hide
    assert sum(n.violations for n in shown.nodes) == sum(n.violations for n in xnn_model.nodes) == len(b.violations)
    assert {n.id for n in xnn_model.nodes if n.violations} != vpu_flagged
    assert f"{len(b.violations)} violations" in window.summary.text()
    cpu_ops = len(b.partition.cpu_nodes)       # the table lists rule 1's CPU ops, but apart
    assert window.panels.violations.count_label.text() == (
        f"{len(b.violations)} violations" + (f" · {cpu_ops} on the CPU" if cpu_ops else ""))

    # click a violation row: labelled by module path and op; the view selects and centres it
    tree = window.panels.violations.tree
    group = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                 if tree.topLevelItem(i).childCount() and tree.topLevelItem(i).text(0).startswith("2."))
    group.setExpanded(True)
    row = group.child(group.childCount() // 2)        # mid-graph: far from the scene edges
    node = row.data(0, Qt.ItemDataRole.UserRole + 1)
    info = b.nodes[node]
    assert row.text(0) == f"{info.module} · quantize" and node not in row.text(0)
    tree.scrollToItem(row)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualItemRect(row).center())
    target = display_id(xnn_model, node)
    assert window.graph_view.selected() == target == window.state.selection.node
    box = window.graph_view.graph_scene().items[target].box      # revealed if it was hidden
    visible = window.graph_view.visible_scene_rect()
    assert visible.contains(box)
    free = window.graph_view.mapToScene(window.graph_view.free_rect().toRect()).boundingRect()
    assert abs(free.center().y() - box.center().y()) < 0.1 * free.height()   # centred clear of the overlays
    assert target in plain(window.panels.node_panel.toPlainText())

    # search: matches come from the core (name, op or module path), Enter walks to the next one
    window.navigation.focus_search()
    qtbot.keyClicks(window.view_bar.search, "conv2d")
    matches = window.state.search.matches
    assert matches and all("conv2d" in m for m in matches)
    assert window.graph_view.selected() == matches[0]
    qtbot.keyClick(window.view_bar.search, Qt.Key.Key_Return)
    assert window.graph_view.selected() == matches[1]
    assert window.view_bar.matches.text() == f"2 of {len(matches)}"
    window.view_bar.search.clear()
    qtbot.keyClicks(window.view_bar.search, "stages.1.skip")              # a module path
    skip = [m for m in window.state.search.matches if b.nodes[m].op == "conv2d.default"]
    assert skip and all(b.nodes[m].module == "stages.1.skip" for m in skip)
    qtbot.keyClick(window.view_bar.search, Qt.Key.Key_Escape)              # Escape clears the search
    assert window.view_bar.search.text() == "" and window.state.search.matches == ()
    assert window.view_bar.matches.text() == ""


@pytest.mark.slow
def test_named_arguments_in_the_node_panel_and_a_new_model_resets_selection_and_search(
        qtbot, window, run_and_wait):
    first = run_and_wait(window, {"model": "resnet8", "quantizer": "vpu"})
    assert window.navigation.select_in("a", "conv2d_3")
    text = plain(window.panels.node_panel.toPlainText())
    stride = next(a for a in first.analysis.nodes["conv2d_3"].arguments if a.name == "stride")
    assert "ARGUMENTS" in text and "stride" in text and "padding" in text and str(list(stride.value)) in text
    window.view_bar.search.setText("relu")
    assert window.state.search.matches and window.state.selection.node == window.state.search.matches[0]
    selected = window.state.selection.node
    # the same model, other settings: the selection and search stay; another model: both reset
    run_and_wait(window, action=lambda: window.controls.calib.setValue(2))     # re-runs by itself
    assert window.state.selection.node == selected == window.graph_view.selected()
    assert window.view_bar.search.text() == "relu" and window.state.search.matches
    run_and_wait(window, {"model": "conv_relu", "quantizer": "vpu"})
    assert window.state.selection is None and window.graph_view.selected() is None
    assert window.view_bar.search.text() == "" and window.state.search.matches == ()
    assert "conv_relu" in plain(window.panels.node_panel.toPlainText())     # the summary again


@pytest.mark.slow
def test_open_pt2_and_py_then_bad_file_keeps_previous_graph_and_toolbar(qtbot, window, tmp_path, monkeypatch,
                                                                        run_and_wait, error_box):
    import torch

    py_path = tmp_path / "tiny_model.py"
    py_path.write_text(PY_MODEL, encoding="utf-8")
    namespace: dict = {}
    exec(PY_MODEL, namespace)
    module, inputs = namespace["get_model"]()
    pt2_path = tmp_path / "tiny_program.pt2"
    batch = tuple(t.expand(16, *t.shape[1:]).contiguous() for t in inputs)   # the run's batch size
    torch.export.save(torch.export.export(module, batch), str(pt2_path))

    pt2 = run_and_wait(window, action=lambda: window.files.open_model_path(str(pt2_path)))
    assert pt2.analysis.model == "tiny_program"
    assert window.state.graph().model == build_graph_model(pt2.analysis)

    asked = []
    monkeypatch.setattr(dialogs, "confirm_python_model", lambda parent, path: asked.append(path) or True)
    py = run_and_wait(window, action=lambda: window.files.open_model_path(str(py_path)))
    assert asked == [str(py_path)]                     # a .py runs code: the user was asked first
    assert py.analysis.model == "tiny_model"
    assert {n.label for n in window.state.graph().model.nodes} >= {"conv2d", "relu", "linear"}
    assert window.store.recent_files()[:2] == [str(py_path.resolve()), str(pt2_path.resolve())]

    bad = tmp_path / "broken.pt2"
    bad.write_bytes(b"this is not a zip archive")
    with qtbot.waitSignal(window.runs.failed, timeout=180_000) as blocker:
        window.files.open_model_path(str(bad))
    box = error_box()
    assert box.text() == blocker.args[0].message and "broken.pt2" in box.text()
    box.close()
    # consistent: the graph, the model box and the status bar all name what is on screen
    assert window.state.result is py and window.graph_view.groups.grouped.flat == window.state.graph().model
    assert window.controls.model_spec() == str(py_path.resolve())
    assert "Run failed" in window.summary.text() and "tiny_model" in window.summary.text()


@pytest.mark.slow
def test_dynamic_batch_is_refused_by_the_vpu_quantizer_with_a_dialog(qtbot, window, run_and_wait, error_box):
    ok = run_and_wait(window, {"model": "conv_relu", "quantizer": "vpu"})
    with qtbot.waitSignal(window.runs.failed, timeout=180_000) as blocker:
        window.controls.batch.setCurrentIndex(1)       # dynamic: the window re-runs by itself
    error = blocker.args[0]
    assert type(error).__name__ == "StaticShapeError"
    box = error_box()
    assert box.text() == error.message
    assert box.detailedText() == (error.detail or "")
    box.close()
    assert window.state.result is ok                    # the previous graph stays…
    assert window.controls.batch.currentIndex() == 0    # …and the toolbar shows its settings


def test_cancel_and_a_second_run_supersedes_the_first(qtbot, window, run_and_wait):
    # A seed no other test uses: this configuration is in no cache, so the run takes long enough
    # to be cancelled.
    with qtbot.waitSignal(window.runs.jobs.cancelled, timeout=180_000):
        window.runs.start(RunConfig(model="resnet8", quantizer="xnnpack", seed=12))
        qtbot.waitUntil(lambda: window.progress.isVisible())
        qtbot.mouseClick(window.controls.cancel_button, Qt.MouseButton.LeftButton)
    assert window.state.result is None and not window.runs.is_running()
    assert "Cancelled" in window.stage.text()
    assert window.view_bar.violation_label.text() == ""          # still no verdict

    results = []
    window.runs.succeeded.connect(results.append)
    window.runs.start(RunConfig(model="resnet8", quantizer="xnnpack"))
    last = run_and_wait(window, {"model": "conv_relu", "quantizer": "vpu"})
    assert [r.analysis.model for r in results] == ["conv_relu"] and last is results[0]
    assert not window.runs.is_running()                # the superseded job reported nothing


def test_fold_toggle_and_settings_persist(qtbot, window, tmp_path, run_and_wait):
    result = run_and_wait(window, {"model": "conv_relu", "quantizer": "vpu", "calib_batches": 1})
    folded = window.state.graph().model
    conv = next(n for n in folded.nodes if n.label == "conv2d")
    assert conv.folded and not any(n.is_param for n in folded.nodes)
    window.view_bar.fold.setChecked(False)              # drawn at once from the result on screen
    assert not window.runs.is_running()
    unfolded = window.graph_view.groups.grouped.flat
    assert unfolded == build_graph_model(result.analysis, fold_params=False)
    assert {n.id for n in unfolded.nodes if n.is_param} == set(conv.folded)
    window.navigation.select_in("a", conv.folded[0])    # a weight: shown as itself when unfolded
    assert window.graph_view.selected() == conv.folded[0]
    window.view_bar.fold.setChecked(True)
    assert window.graph_view.selected() == conv.id      # …and as its conv when folded
    window.close()
    store = Store()
    assert store.qs.fileName() == str(tmp_path / "settings.ini")
    assert store.window_state()[0] is not None and store.fold_params() is True
    assert store.run_options()["quantizer"] == "vpu" and store.run_options()["calib_batches"] == 1


def test_window_fits_a_laptop_screen_and_never_resizes_itself(qtbot, window, run_and_wait):
    hint = window.minimumSizeHint()
    assert hint.width() <= 1024 and hint.height() <= 700
    window.resize_for(1280, 720)
    qtbot.waitUntil(lambda: window.size().width() == 1280)
    run_and_wait(window, {"model": "conv_relu", "quantizer": "vpu", "calib_batches": 1})
    assert (window.width(), window.height()) == (1280, 720)
    assert window.minimumSizeHint().width() <= 1024
    assert window.node_dock.width() >= 300 and window.panels.node_panel.width() >= 280
    for bar in (window.view_bar, window.findChild(QToolBar, "runToolbar")):
        assert bar.width() <= 1280                      # what does not fit overflows into »


def test_window_module_does_not_import_torch():
    code = ("import sys; import app.window.main_window; "
            "print(sorted(m for m in ('torch', 'vpu_core.pipeline') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_open_dialog_warns_and_dropping_a_py_asks_first(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtCore import QMimeData, QPoint, QPointF, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent
    from PySide6.QtWidgets import QApplication

    dialog = dialogs.model_file_dialog(window)
    assert dialog.warning.text().endswith(dialogs.PY_WARNING) and "runs its Python code" in dialogs.PY_WARNING
    assert not dialog.warning.isHidden()

    script = tmp_path / "dropped.py"
    script.write_text(PY_MODEL, encoding="utf-8")
    asked, started = [], []
    monkeypatch.setattr(dialogs, "confirm_python_model", lambda parent, path: asked.append(path) or False)
    monkeypatch.setattr(window.runs, "start", lambda *a: started.append(a))
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(script))])

    def drag_and_drop():
        enter = QDragEnterEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
                                Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(window, enter)
        assert enter.isAccepted()
        QApplication.sendEvent(window, QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                                                  Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier))

    drag_and_drop()
    assert asked == [str(script)] and started == []       # declined: nothing runs
    monkeypatch.setattr(dialogs, "confirm_python_model", lambda parent, path: True)
    drag_and_drop()
    assert started and window.controls.model_spec() == str(script.resolve())


@pytest.mark.slow
def test_gui_screenshot_writes_the_whole_window_at_the_asked_size_and_exits(tmp_path):
    """`vpu-inspector check MODEL`, then `vpu-inspector gui MODEL --screenshot F.png --size WxH`,
    as a user (or CI) runs them: the window (a new process on check's cache) quantizes nothing,
    and F.json says where the canvas is and what ran."""
    import json

    from PySide6.QtGui import QImage

    env = {"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    shot = tmp_path / "w.png"
    check = subprocess.run([sys.executable, "-m", "app", "check", "conv_relu", "--calib-batches", "1"],
                           cwd=REPO, capture_output=True, text=True, env=env, timeout=300)
    assert check.returncode == 0, check.stderr
    out = subprocess.run([sys.executable, "-m", "app", "gui", "conv_relu", "--calib-batches", "1",
                          "--select", "conv2d", "--tab", "partition", "--size", "1024x700",
                          "--screenshot", str(shot)], cwd=REPO, capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    facts = json.loads((tmp_path / "w.json").read_text())
    assert facts["window"] == [1024, 700]
    x, y, w, h = facts["canvas"]
    assert 0 <= x and 0 < y and x + w <= 1024 and y + h <= 700 and w * h > 0.2 * 1024 * 700
    assert not {"prepare", "calibrate", "convert"} & set(facts["stages_run"])     # nothing quantized
    assert "int_sim" in facts["stages_run"]                  # simulated from the cached program
    image = QImage(str(shot))
    assert (image.width(), image.height()) == (1024, 700)
    assert len({image.pixel(x, y) for x in range(0, 1024, 9) for y in range(0, 700, 9)}) > 20
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix in (".png", ".json")) == ["w.json", "w.png"]

    failed = subprocess.run([sys.executable, "-m", "app", "gui", str(tmp_path / "missing.py"),
                             "--screenshot", str(tmp_path / "f.png")], cwd=REPO, capture_output=True,
                            text=True, env=env, timeout=300)
    assert failed.returncode == 2 and not (tmp_path / "f.png").exists()
    assert failed.stderr.strip().splitlines()[-1].startswith("vpu-inspector: error: ")
    assert "Traceback" not in failed.stderr


def test_reference_observers_is_a_run_setting_that_persists(qtbot, window):
    menu_texts = [a.text() for m in window.menuBar().actions() for a in m.menu().actions()]
    assert window.controls.reference_observers.text() in menu_texts
    assert window.controls.config().reference_observers is False
    with qtbot.waitSignal(window.controls.options_changed):     # a re-run, like any option change
        window.controls.reference_observers.setChecked(True)
    window.runs.cancel()
    assert window.controls.config().reference_observers is True
    window.close()
    assert Store().run_options()["reference_observers"] is True
