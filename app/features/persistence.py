"""Settings: what the window keeps between launches is read into the application state and written
from it — never from widgets.

    run options   state.config (quantizer, weights, batch, calibration batches, profile, observers)
                  · state.time_limit_s
    view          state.view.fold_params · state.look (large labels, high contrast)
    recents       state.recent_models · state.recent_profiles

Constructed before the features that bind widgets, so they start from the restored values. The
view, the look and the recents are written when they change; the run options when the window
closes (`save`), as the last request stands. Window geometry and dock layout are the window's own
(app.window.main_window).
"""
from __future__ import annotations

from PySide6.QtCore import QObject

from app.settings import RUN_KEYS, Store
from app.state import AppState, Look
from vpu_core.config import RunConfig


class SettingsController(QObject):
    def __init__(self, state: AppState, store: Store) -> None:
        super().__init__(state)
        self.state, self.store = state, store
        self.restore()
        state.view_changed.connect(lambda: store.save_fold_params(state.view.fold_params))
        state.look_changed.connect(self._save_look)
        state.recent_models_changed.connect(lambda: store.set_recent_files(list(state.recent_models)))
        state.recent_profiles_changed.connect(lambda: store.set_recent_profiles(list(state.recent_profiles)))
        state.time_limit_s_changed.connect(lambda: store.save_time_limit_s(state.time_limit_s))

    def restore(self) -> None:
        state, store = self.state, self.store
        state.config = RunConfig(**store.run_options())
        state.set_fold(store.fold_params())
        state.look = Look(large_font=store.view_option("large_font"),
                          high_contrast=store.view_option("high_contrast"))
        state.recent_models = tuple(store.recent_files())
        state.recent_profiles = tuple(store.recent_profiles())
        state.time_limit_s = store.time_limit_s(state.time_limit_s)

    def save(self) -> None:
        """Write what is saved at the end (the window is closing)."""
        self.save_run_options()

    def save_run_options(self) -> None:
        config = self.state.config
        self.store.save_run_options({key: getattr(config, key) for key in RUN_KEYS})

    def _save_look(self) -> None:
        look = self.state.look
        self.store.save_view_option("large_font", look.large_font)
        self.store.save_view_option("high_contrast", look.high_contrast)

