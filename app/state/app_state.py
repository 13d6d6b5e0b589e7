"""The one application state: what the user asks for (the request) and what the window shows (the result).

Like napari's ViewerModel under its QtViewer, this object holds no widgets. Its fields are declared
(app.state.evented.Field) and evented: every real change emits the field's `NAME_changed` signal
once. Widgets bind to fields both ways through their feature controller (app.features): a user's
edit sets the field, a field's change is shown by the widget. Nothing reads a widget to learn what
to run: a run starts because the request changed (RunController, debounced) or Run was pressed
(`request_run`). The settings file is read into and written from these fields
(app.features.persistence), never from widgets.

    the request   config (side A) · compare_b (side B) · compare_mode · view · look · focus_mode · metric ·
                  measure (run side A's lowered program on this CPU too) · time_limit_s ·
                  profile_draft (the What-if editor's form) beside profile_in_use
    the choices   catalogue (zoo) · recent_models · recent_profiles
    the result    result · comparison · ablation, sensitivity (of the result on screen; the session
                  keeps them all) · eval_spec (the user's metric function, as --eval)
                  · selection · focus_side · search · run · prediction_changes
                  (a result may first be the predicted partition of the float graph, replaced in
                  place by the quantized analysis: same node ids, same selection)
    events        run_requested(fresh) · reveal_requested(side, node) · drawn

Invariants kept here rather than in each feature (tests/test_state.py checks them without widgets):
- a result for another model clears the selection and the search;
- the selection is one node of one side ("a", or "b" in compare mode);
- leaving compare mode clears side B: its comparison, its selection, the focus on it;
- `showing_compare` is compare mode *with* a comparison to show (until the first comparison
  arrives, or after it failed, the single result stays on screen).
"""
from __future__ import annotations

import operator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from app.state.evented import Evented, Field
from app.state.values import CompareB, Look, RunStatus, Search, Selection
from vpu_core.compare import SIDES, Side
from vpu_core.config import RunConfig, ViewOptions

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis, PredictionChange
    from vpu_core.profile import HardwareProfile
    from vpu_core.session import DisplayGraph, Inspection, InspectionPair
    from vpu_core.sensitivity.results import SensitivityReport
    from vpu_core.whatif.results import AblationReport

MAX_RECENT = 8
DEFAULT_TIME_LIMIT_S = 1800.0          # a run still going then is stopped (Run ▸ Time limit of a run…)
same_object = operator.is_


class AppState(Evented):
    # -- the request -------------------------------------------------------------------------------
    config: Field[RunConfig] = Field(RunConfig(), "side A's run configuration (the run toolbar)")
    compare_b: Field[CompareB | None] = Field(None, "side B of compare mode; None until chosen")
    compare_mode: Field[bool] = Field(False, "two configurations side by side", readonly=True, emit_value=True)
    view: Field[ViewOptions] = Field(ViewOptions(), "how results are drawn: fold, hide Q/DQ, partition source")
    look: Field[Look] = Field(Look(), "large labels, high contrast, presentation mode")
    focus_mode: Field[bool] = Field(False, "docks, toolbars and status bar hidden: the canvas fills the window")
    metric: Field[str | None] = Field(None, "colour ops by this vpu_core.graph.metrics key; None: by partition")
    measure: Field[bool] = Field(False, "also lower side A to ExecuTorch XNNPACK and run it on this CPU "
                                        "(Inspection.attached.runtime: latency, SQNR, the 'measured µs' metric)")
    time_limit_s: Field[float | None] = Field(DEFAULT_TIME_LIMIT_S, "a run still going after this many "
                                              "seconds is stopped, its worker process killed (None: never)")
    profile_in_use: Field[HardwareProfile | None] = Field(None, "the hardware profile of the result on screen")
    profile_draft: Field[HardwareProfile | None] = Field(
        None, "the What-if editor's form as a profile (equal to profile_in_use: nothing edited)")
    # -- the choices -------------------------------------------------------------------------------
    catalogue: Field[tuple[tuple[str, str], ...]] = Field((), "the model zoo: (name, description)")
    recent_models: Field[tuple[str, ...]] = Field((), "model files opened, newest first")
    recent_profiles: Field[tuple[str, ...]] = Field((), "hardware profiles opened, newest first")
    # -- the result --------------------------------------------------------------------------------
    result: Field[Inspection | None] = Field(None, "the single view / side A", readonly=True, same=same_object)
    comparison: Field[InspectionPair | None] = Field(None, "compare mode's pair", readonly=True, same=same_object)
    ablation: Field[AblationReport | None] = Field(None, "what each constraint costs, for the result on screen",
                                                   same=same_object)
    sensitivity: Field[SensitivityReport | None] = Field(
        None, "which layer costs the decibels and its fixes, for the result on screen", same=same_object)
    eval_spec: Field[str | None] = Field(None, "the user's metric, FILE.py:fn (as --eval); None: SQNR only")
    selection: Field[Selection | None] = Field(None, "one node of one side", readonly=True)
    focus_side: Field[Side] = Field("a", "the side the docks report on", readonly=True, emit_value=True)
    search: Field[Search] = Field(Search(), "the search text, its matches and the one shown")
    run: Field[RunStatus] = Field(RunStatus(), "the job: running, stage, progress, last outcome")
    prediction_changes: Field[tuple[PredictionChange, ...]] = Field(
        (), "ops the quantized partition placed otherwise than the predicted one it replaced")

    config_changed = Signal()
    compare_b_changed = Signal()
    compare_mode_changed = Signal(bool)
    view_changed = Signal()
    look_changed = Signal()
    focus_mode_changed = Signal()
    metric_changed = Signal()
    measure_changed = Signal()
    time_limit_s_changed = Signal()
    profile_in_use_changed = Signal()
    profile_draft_changed = Signal()
    catalogue_changed = Signal()
    recent_models_changed = Signal()
    recent_profiles_changed = Signal()
    result_changed = Signal()
    comparison_changed = Signal()
    ablation_changed = Signal()
    sensitivity_changed = Signal()
    eval_spec_changed = Signal()
    selection_changed = Signal()
    focus_side_changed = Signal(str)
    search_changed = Signal()
    run_changed = Signal()
    prediction_changes_changed = Signal()
    # events: not values, moments
    run_requested = Signal(bool)         # Run pressed (fresh=True: re-read the files) or Apply
    reveal_requested = Signal(str, str)  # (side, node): selected by a table / the walk; bring it into view
    drawn = Signal()                     # the window has drawn the result / comparison now in the state

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)

    # -- what is asked -----------------------------------------------------------------------------
    def config_b(self) -> RunConfig:
        """Side B's full configuration (the default B, the other quantizer, until one is chosen)."""
        return (self.compare_b or CompareB.other_quantizer(self.config)).config(self.config)

    def request_run(self, fresh: bool = True) -> None:
        """Run the request now: `fresh` (the Run button, a file opened) re-reads model, profile and
        calibration files; otherwise (Apply) only what is not on screen yet runs."""
        self.run_requested.emit(fresh)

    def shown_for_request(self) -> tuple[Inspection, ...] | None:
        """The inspections on screen when they answer the request's configurations (their view may
        differ), else None: something must run."""
        if self.compare_mode:
            pair = self.comparison
            ok = pair is not None and pair.a.config == self.config and pair.b.config == self.config_b()
            return (pair.a, pair.b) if ok and pair is not None else None
        if self.result is not None and self.result.config == self.config and not self.predicted and \
                (not self.measure or self.result.attached.runtime is not None):
            return (self.result,)
        return None

    # -- what is shown -------------------------------------------------------------------------------
    @property
    def predicted(self) -> bool:
        """The single result on screen is the predicted partition (quantizing, or cancelled)."""
        return self.result is not None and self.result.analysis.predicted

    @property
    def showing_compare(self) -> bool:
        return self.compare_mode and self.comparison is not None

    def sides(self) -> tuple[Side, ...]:
        return SIDES if self.showing_compare else ("a",)

    def inspection(self, side: Side = "a") -> Inspection | None:
        """The Inspection drawn on `side` (side A is the single view outside compare mode)."""
        pair = self.comparison
        if self.showing_compare and pair is not None:
            return pair.a if side == "a" else pair.b
        return self.result if side == "a" else None

    def analysis(self, side: Side = "a") -> Analysis | None:
        inspection = self.inspection(side)
        return None if inspection is None else inspection.analysis

    def graph(self, side: Side = "a") -> DisplayGraph | None:
        """The DisplayGraph (model + layout) drawn on `side`, or None."""
        inspection = self.inspection(side)
        return None if inspection is None else inspection.graph

    # -- setters with invariants -----------------------------------------------------------------------
    def set_result(self, inspection: Inspection | None) -> None:
        """Show `inspection` (None: nothing). A different model clears selection and search."""
        previous = self.result
        if previous is None or inspection is None or previous.config.model != inspection.config.model:
            self.select(None)
            self.search = Search()
        self._assign("result", inspection, force=True)

    def set_comparison(self, pair: InspectionPair | None) -> None:
        """Show `pair` in compare mode (None: no comparison). Its side A also becomes `result`
        (quietly: on screen it is the comparison), so leaving compare mode shows A at once."""
        shown = self.result
        if pair is not None:
            self._store("result", pair.a)
            if shown is None or shown.config.model != pair.a.config.model:
                self.select(None)
                self.search = Search()
        else:
            if self.selection is not None and self.selection.side != "a":
                self.select(None)
            self.set_focus_side("a")
        self._assign("comparison", pair, force=True)

    def set_compare_mode(self, on: bool) -> None:
        """Enter or leave compare mode; leaving clears side B (comparison, selection, focus)."""
        if on == self.compare_mode:
            return
        if not on:
            self._store("compare_mode", False)           # side B goes before anyone hears of it
            if self.comparison is not None:
                self.set_comparison(None)
            self.set_focus_side("a")
            if self.selection is not None and self.selection.side != "a":
                self.select(None)
        self._assign("compare_mode", on, force=True)

    def set_view(self, view: ViewOptions) -> None:
        self.view = view

    def set_fold(self, fold: bool) -> None:
        self.view = replace(self.view, fold_params=fold)

    def set_partition_source(self, source: str) -> None:
        self.view = replace(self.view, partition_source=source)

    def view_b(self) -> ViewOptions:
        """How compare mode draws side B: A's view, coloured by B's own target when it has one."""
        colour = self.compare_b.colour_by if self.compare_b is not None else None
        return replace(self.view, partition_source=colour) if colour else self.view

    def views(self) -> tuple[ViewOptions, ...]:
        """The view of each side shown: (A,) or, in compare mode, (A, B)."""
        return (self.view, self.view_b()) if self.compare_mode else (self.view,)

    def select(self, side: Side | None, node: str | None = None) -> None:
        """Select `node` on `side`; select(None) clears."""
        self._assign("selection", Selection(side, node) if side is not None and node else None)

    def show_node(self, side: Side, node: str) -> bool:
        """Select `node` (any fx name; a folded parameter selects its op) on `side` and ask the
        canvas to bring it into view; False when the graph on that side does not draw it."""
        from vpu_core.graph.build import display_id

        graph = self.graph(side) if side in self.sides() else None
        if graph is None:
            return False
        shown = display_id(graph.model, node)
        if shown not in graph.layout.boxes:
            return False
        self.select(side, shown)
        self.reveal_requested.emit(side, shown)
        return True

    def set_focus_side(self, side: Side) -> None:
        self._assign("focus_side", side)

    def set_search(self, search: Search) -> None:
        self.search = search

    def set_run(self, **changes: Any) -> None:
        self.run = replace(self.run, **changes)

    # -- choices ---------------------------------------------------------------------------------------
    def add_recent_model(self, path: str) -> None:
        self.recent_models = _newest_first(path, self.recent_models)

    def add_recent_profile(self, path: str) -> None:
        self.recent_profiles = _newest_first(path, self.recent_profiles)


def _newest_first(path: str, items: tuple[str, ...]) -> tuple[str, ...]:
    path = str(Path(path).resolve())
    return (path, *(p for p in items if p != path))[:MAX_RECENT]
