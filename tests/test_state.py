"""The application state on its own (no widgets): declared evented fields, the request → run →
result loop through the run feature, and the invariants AppState keeps — a failed run keeps the old
result and the request that made it, leaving compare mode clears side B, a new model resets the
selection and the search. Settings are read into and written from the state.

Runs are real (conv_relu, one calibration batch, batch 2: about a second each, shared through the
process-wide session)."""
from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import QObject, Signal

from app import dialogs
from app.features.persistence import SettingsController
from app.features.runs import RunController
from app.settings import Store
from app.state import AppState, CompareB, Look, Search
from vpu_core.config import RunConfig, ViewOptions
from vpu_core.session import default_session

CONFIG = RunConfig(model="conv_relu", calib_batches=1, batch_size=2, seed=3)   # a run no other test makes
RUN_TIMEOUT_MS = 180_000


class Toolbar(QObject):
    """The run feature's toolbar port without a widget: records what it was asked to show."""

    config_changed = Signal(object)
    run_clicked = Signal()
    cancel_clicked = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.shown: RunConfig | None = None

    def config(self) -> RunConfig:
        return self.shown or RunConfig()

    def set_config(self, config: RunConfig) -> None:
        self.shown = config

    def set_catalogue(self, entries, recent=None) -> None:
        pass

    def set_profiles(self, recent, current=None) -> None:
        pass

    def set_running(self, running: bool) -> None:
        pass

    def set_inputs(self, inputs) -> None:
        pass

    def set_program_file(self, quantizer) -> None:
        self.program_file = quantizer

    def dialog_parent(self) -> None:
        return None


@pytest.fixture(scope="module")
def inspections():
    """Two real inspections of conv_relu (side A, and side B under XNNPACK) drawn for the default view."""
    session = default_session()
    pair = session.compare(CONFIG, replace(CONFIG, quantizer="xnnpack"), ViewOptions())
    return session.inspect(CONFIG, ViewOptions()), pair


@pytest.fixture
def runs(qtbot, monkeypatch):
    """AppState and the run feature over a toolbar port; error dialogs recorded, not shown."""
    errors: list = []
    monkeypatch.setattr(dialogs, "show_error", lambda parent, error, **kw: errors.append(error))
    state = AppState()
    toolbar = Toolbar()
    controller = RunController(state, toolbar)
    controller.errors = errors
    yield state, controller, toolbar
    controller.jobs.shutdown()


def _wait_idle(qtbot, controller) -> None:
    qtbot.waitUntil(lambda: not controller.is_running(), timeout=RUN_TIMEOUT_MS)


def test_fields_are_declared_evented_and_guarded():
    state = AppState()
    fields = AppState.fields()
    assert {"config", "compare_b", "view", "look", "metric", "profile_draft", "result", "comparison",
            "selection", "ablation", "run"} <= set(fields)
    assert all(hasattr(state, f.signal) for f in fields.values())
    seen = []
    state.look_changed.connect(lambda: seen.append(state.look))
    state.look = Look(large_font=True)
    state.look = Look(large_font=True)                     # the same value: no second signal
    assert seen == [Look(large_font=True)]
    for name in ("result", "comparison", "compare_mode", "selection", "focus_side"):
        with pytest.raises(AttributeError, match="invariant"):
            setattr(state, name, None)                     # only through the state's methods


def test_a_request_runs_and_its_result_is_shown(qtbot, runs):
    state, controller, toolbar = runs
    state.config = CONFIG                                  # an edit of the request…
    assert not controller.is_running()                     # …settles first (debounced)
    qtbot.waitUntil(lambda: state.result is not None and not controller.is_running(), timeout=RUN_TIMEOUT_MS)
    shown = state.result
    assert shown.config == CONFIG and toolbar.shown == CONFIG and state.shown_for_request() == (shown,)
    assert state.run.config == CONFIG and state.run.error is None
    # a view change is drawn from the result on screen: no job
    state.set_fold(False)
    assert not controller.is_running() and state.result is not shown
    assert state.result.analysis is shown.analysis and not state.result.view.fold_params
    # the toolbar's edit is the request; going back to what is shown runs nothing
    toolbar.config_changed.emit(replace(CONFIG, calib_batches=2))
    assert state.config.calib_batches == 2
    toolbar.config_changed.emit(CONFIG)
    qtbot.wait(2 * 350)
    assert not controller.is_running() and state.result.config == CONFIG


def test_a_failed_run_keeps_the_result_and_the_request_that_made_it(qtbot, runs):
    state, controller, toolbar = runs
    controller.start(CONFIG)
    _wait_idle(qtbot, controller)
    shown = state.result
    bad = replace(CONFIG, dynamic_batch=True)              # the VPU quantizer refuses it
    with qtbot.waitSignal(controller.failed, timeout=RUN_TIMEOUT_MS):
        controller.start(bad)
    assert type(controller.errors[-1]).__name__ == "StaticShapeError"
    assert state.result is shown                           # the old result stays on screen…
    assert state.config == shown.config == toolbar.shown   # …with the request that made it
    assert state.run.error is controller.errors[-1] and state.run.config == bad   # what failed
    qtbot.wait(2 * 350)
    assert not controller.is_running()                     # going back ran nothing


def test_leaving_compare_mode_clears_side_b(qtbot, inspections):
    single, pair = inspections
    state = AppState()
    state.set_result(single)
    state.compare_b = CompareB.of(pair.b.config)
    state.set_compare_mode(True)
    state.set_comparison(pair)
    assert state.showing_compare and state.config_b() == replace(state.config, quantizer="xnnpack")
    node = next(iter(pair.b.graph.layout.boxes))
    state.select("b", node)
    state.set_focus_side("b")
    heard = []
    state.comparison_changed.connect(lambda: heard.append(("comparison", state.comparison)))
    state.compare_mode_changed.connect(lambda on: heard.append(("mode", state.comparison)))
    state.set_compare_mode(False)
    assert state.comparison is None and state.selection is None and state.focus_side == "a"
    assert state.result is pair.a and state.sides() == ("a",)      # A at once, no run
    assert heard == [("comparison", None), ("mode", None)]          # B gone before the mode says so
    assert state.compare_b == CompareB.of(pair.b.config)            # B's settings stay for next time


def test_a_new_model_resets_selection_and_search(inspections):
    single, pair = inspections
    state = AppState()
    state.set_result(single)
    assert state.show_node("a", "conv2d")
    state.search = Search("conv", ("conv2d",), 0)
    state.set_result(pair.a)                                # the same model again: both stay
    assert state.selection.node == "conv2d" and state.search.text == "conv"
    other = replace(single, config=replace(single.config, model="resnet8"))
    state.set_result(other)                                 # another model: both reset
    assert state.selection is None and state.search == Search()
    assert not state.show_node("b", "conv2d")               # no side B outside compare mode


def test_settings_are_read_into_and_written_from_the_state(tmp_path, monkeypatch):
    from app.settings import ENV_VAR

    monkeypatch.setenv(ENV_VAR, str(tmp_path / "settings.ini"))
    store = Store()
    store.save_run_options({"quantizer": "xnnpack", "calib_batches": 3})
    store.save_view_option("high_contrast", True)
    store.save_fold_params(False)
    state = AppState()
    settings = SettingsController(state, store)
    assert (state.config.quantizer, state.config.calib_batches) == ("xnnpack", 3)
    assert state.look == Look(high_contrast=True) and not state.view.fold_params
    state.config = replace(state.config, per_tensor=True)
    state.look = Look(large_font=True)
    state.add_recent_profile(str(tmp_path / "p.toml"))
    assert "per_tensor" not in store.run_options()
    settings.save()                                         # run options: when the window closes
    store.sync()
    again = Store()
    assert again.run_options()["per_tensor"] is True and again.view_option("large_font")
    assert not again.view_option("high_contrast")
    assert again.qs.value("recent_profiles") in ([str(tmp_path / "p.toml")], str(tmp_path / "p.toml"))
