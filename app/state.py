"""The one application state: what the window shows. Every feature reads it and listens to it.

Like napari's ViewerModel under its QtViewer, this object holds no widgets: controllers
(app/features) change it through its setters, and every setter announces a real change with
one signal, so the canvas, the docks, the status bar and the toolbars all follow the same
values. The results themselves are the core's (vpu_core.session Inspection / InspectionPair).

Invariants kept here rather than in each feature:
- a result for another model clears the selection and the search;
- the selection is one node of one side ("a", or "b" in compare mode);
- `showing_compare` is compare mode *with* a comparison to show (until the first comparison
  arrives, or after it failed, the single result stays on screen).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtCore import QObject, Signal

from vpu_core.config import ViewOptions

SIDES = ("a", "b")


@dataclass(frozen=True)
class Selection:
    side: str                   # "a" | "b"
    node: str                   # the node as drawn (a folded parameter is shown as its op)


@dataclass(frozen=True)
class Search:
    text: str = ""
    matches: tuple[str, ...] = ()
    index: int | None = None    # the match shown now


@dataclass(frozen=True)
class RunStatus:
    running: bool = False
    stage: str = ""             # stage title while running ("Calibrating"), or the last outcome
    fraction: float = 0.0
    model: str = ""             # model of the job running (or last started)
    quantizer: str = ""
    error: object = None        # the InspectorError of the last run when it failed
    cancelled: bool = False
    seconds: float | None = None


class AppState(QObject):
    result_changed = Signal()            # `result`: the inspection of the single view / side A
    comparison_changed = Signal()        # `comparison`: the InspectionPair of compare mode, or None
    compare_mode_changed = Signal(bool)
    view_changed = Signal()              # `view`: fold / partition source
    selection_changed = Signal()
    focus_side_changed = Signal(str)     # the side the docks report on in compare mode
    search_changed = Signal()
    run_changed = Signal()               # `run`: running, progress, last error

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.result = None               # vpu_core.session.Inspection | None
        self.comparison = None           # vpu_core.session.InspectionPair | None
        self.compare_mode = False
        self.view = ViewOptions()
        self.selection: Selection | None = None
        self.focus_side = "a"
        self.search = Search()
        self.run = RunStatus()

    # -- what is shown -------------------------------------------------------------------------
    @property
    def showing_compare(self) -> bool:
        return self.compare_mode and self.comparison is not None

    def sides(self) -> tuple[str, ...]:
        return SIDES if self.showing_compare else ("a",)

    def inspection(self, side: str = "a"):
        """The Inspection drawn on `side` (side A is the single view outside compare mode)."""
        if self.showing_compare:
            return self.comparison.a if side == "a" else self.comparison.b
        return self.result if side == "a" else None

    def analysis(self, side: str = "a"):
        inspection = self.inspection(side)
        return None if inspection is None else inspection.analysis

    def graph(self, side: str = "a"):
        """The DisplayGraph (model + layout) drawn on `side`, or None."""
        inspection = self.inspection(side)
        return None if inspection is None else inspection.graph

    # -- setters: each emits once, on a real change ---------------------------------------------
    def set_result(self, inspection) -> None:
        """Show `inspection` (None: nothing). A different model clears selection and search."""
        previous, self.result = self.result, inspection
        if previous is None or inspection is None or previous.config.model != inspection.config.model:
            self.select(None)
            self.set_search(Search())
        self.result_changed.emit()

    def set_comparison(self, pair) -> None:
        """Show `pair` in compare mode (None: no comparison). Its side A also becomes `result`
        (quietly: on screen it is the comparison), so leaving compare mode shows A at once."""
        shown = self.result
        self.comparison = pair
        if pair is not None:
            self.result = pair.a
            if shown is None or shown.config.model != pair.a.config.model:
                self.select(None)
                self.set_search(Search())
        elif self.focus_side != "a":
            self.set_focus_side("a")
        self.comparison_changed.emit()

    def set_compare_mode(self, on: bool) -> None:
        if on != self.compare_mode:
            self.compare_mode = on
            if not on:
                self.set_focus_side("a")
                if self.selection is not None and self.selection.side != "a":
                    self.select(None)
            self.compare_mode_changed.emit(on)

    def set_view(self, view: ViewOptions) -> None:
        if view != self.view:
            self.view = view
            self.view_changed.emit()

    def set_fold(self, fold: bool) -> None:
        self.set_view(replace(self.view, fold_params=fold))

    def set_partition_source(self, source: str) -> None:
        self.set_view(replace(self.view, partition_source=source))

    def select(self, side: str | None, node: str | None = None) -> None:
        """Select `node` on `side`; select(None) clears."""
        selection = Selection(side, node) if side is not None and node else None
        if selection != self.selection:
            self.selection = selection
            self.selection_changed.emit()

    def set_focus_side(self, side: str) -> None:
        if side != self.focus_side:
            self.focus_side = side
            self.focus_side_changed.emit(side)

    def set_search(self, search: Search) -> None:
        if search != self.search:
            self.search = search
            self.search_changed.emit()

    def set_run(self, **changes) -> None:
        run = replace(self.run, **changes)
        if run != self.run:
            self.run = run
            self.run_changed.emit()
