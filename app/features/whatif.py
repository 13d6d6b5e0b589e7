"""What-if: the hardware profile editor, what each constraint costs, and the next kernel.

Feeds the What-if dock's widgets (app.widgets.whatif_panel) from the result on screen and acts on
what they announce:
- Profile: the profile in use (`state.profile_in_use`) as a form bound to `state.profile_draft`
  both ways: an edit of the form sets the draft, a draft set elsewhere ("try this op on the VPU")
  is shown by the form. Every change of the draft updates the diff against the shipped profile
  and says what Apply will re-run (vpu_core.whatif.profile_edit.requantization_needed). Apply
  validates the draft exactly like a --profile file, writes it to a file named by its content and
  makes it the request's profile, run *not* fresh: the session re-reads the Q/DQ graph on screen
  when the change cannot alter it (a shift range, the rounding, the break-even, an op this model
  lacks) and, when it can, quantizes again from the same export and calibration data
  (vpu_core.whatif.reprofile). Revert; Save as TOML. The toolbar's profile box and the editor's
  first line name the profile in use.
- Cost: the constraint ablation as a job of its own queue (app.jobs.ablation): it never cancels
  or blocks the window's run; progress and Cancel like every job. The session keeps every
  ablation; `state.ablation` is the one of the result on screen (the exported report shows it).
- Next kernel: the op-list candidates and the partition economics of the analysis on screen.
- Try it on the VPU (the node panel's link on a CPU node, or T with one selected): the edit that
  removes the node's cause (vpu_core.whatif.try_on_vpu) becomes the draft, the What-if dock opens
  on the Profile tab with that op's row selected and Apply focused. After an Apply, the result's
  numbers against the ones before the Apply are the before / after card over the canvas.
"""
from __future__ import annotations

import dataclasses
import hashlib
import re
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QStandardPaths, SignalInstance

from app import dialogs
from app.jobs.ablation import AblationJob, known_ablation
from app.jobs.runner import JobRunner
from app.jobs.worker import window_session
from app.state import AppState
from app.widgets.whatif_panel import TAB_ABLATION, TAB_CANDIDATES, TAB_PROFILE, WhatIfPanel
from resources import DEFAULT_PROFILE
from vpu_core.errors import InspectorError
from vpu_core.hardware.limits import GROUPS, LIMITS
from vpu_core.profile import AVG_POOL_DIVISORS, ROUNDING_MODES
from vpu_core.reports.whatif_text import constraint_name, profile_change_lines

if TYPE_CHECKING:
    from vpu_core.whatif.try_on_vpu import BeforeAfter
    from vpu_core.analysis.results import Analysis
    from vpu_core.config import RunConfig
    from vpu_core.profile import HardwareProfile
    from vpu_core.stages import Stage
    from vpu_core.whatif.results import AblationReport, OpListRow

__all__ = ["WhatIfController", "TAB_PROFILE", "TAB_ABLATION", "TAB_CANDIDATES"]


class Dock(Protocol):
    def show(self) -> None: ...

    def raise_(self) -> None: ...


class CardView(Protocol):
    """Where the before / after card of an Apply is shown (app.widgets.graph_area.GraphArea)."""

    def show_card(self, card: BeforeAfter | None) -> None: ...


class TryLinks(Protocol):
    """Where "Try it on the VPU" is clicked (app.widgets.panels.Panels)."""

    @property
    def try_on_vpu(self) -> SignalInstance: ...


class WhatIfController(QObject):
    def __init__(self, state: AppState, panel: WhatIfPanel, dock: Dock,
                 profile_dir: str | Path | None = None, try_links: TryLinks | None = None,
                 cards: CardView | None = None) -> None:
        super().__init__(state)
        self.state, self.panel, self.dock = state, panel, dock
        self.try_links, self.cards = try_links, cards
        self._applied: tuple[str, Analysis, str] | None = None   # (profile path, analysis before, change)
        self.profile_dir = Path(profile_dir) if profile_dir else _default_dir()
        # Profiles are loaded after the first run (validating op names imports torch).
        self.shipped: HardwareProfile | None = None
        self.analysis: Analysis | None = None
        self.ablations = JobRunner(self, state.time_limit_s)    # their own queue: never cancel the window's run
        self._ablating: RunConfig | None = None  # the configuration of the running ablation
        editor, chart = panel.editor, panel.chart
        editor.set_choices([], ROUNDING_MODES, AVG_POOL_DIVISORS)    # the rules come with the first result
        editor.limits.set_keys([(k.id, k.table, k.key, k.kind, k.doc, GROUPS if k.kind == "choice" else ())
                                for k in LIMITS])
        editor.changed.connect(self._on_form_edited)
        editor.apply_clicked.connect(self.apply)
        editor.revert_clicked.connect(self.revert)
        editor.save_requested.connect(self.save_dialog_chose)
        editor.add_op_requested.connect(self.add_op)
        chart.run_clicked.connect(self.run_ablation)
        chart.cancel_clicked.connect(self.ablations.cancel)
        self.ablations.progress.connect(self._on_ablation_progress)
        self.ablations.running_changed.connect(lambda running: chart.set_running(running))
        self.ablations.succeeded.connect(self._on_ablation_done)
        self.ablations.failed.connect(self._on_ablation_failed)
        self.ablations.cancelled.connect(self._on_ablation_cancelled)
        # a table row shows its node on the canvas
        panel.candidates.node_activated.connect(lambda node: state.show_node(state.focus_side, node))
        if try_links is not None:
            try_links.try_on_vpu.connect(self.try_on_vpu)
        state.result_changed.connect(self._on_result)
        state.run_changed.connect(self._on_run_changed)
        state.profile_draft_changed.connect(self._show_draft)
        state.time_limit_s_changed.connect(lambda: setattr(self.ablations, "time_limit_s", state.time_limit_s))
        state.ablation_changed.connect(lambda: None if self.ablations.is_running() else self._show_chart())

    @property
    def in_use(self) -> HardwareProfile | None:
        """The hardware profile of the result on screen (state.profile_in_use)."""
        return self.state.profile_in_use

    def show(self, tab: int | None = None) -> None:
        self.dock.show()
        self.dock.raise_()
        if tab is not None:
            self.panel.setCurrentIndex(tab)

    # -- the result on screen ----------------------------------------------------------------------
    def _on_result(self) -> None:
        inspection = self.state.result
        if inspection is None:
            return
        if inspection.analysis.predicted:    # the dock follows the quantized result, which comes next
            return
        self._show_card(inspection)
        self.analysis = inspection.analysis
        self._follow_profile(inspection.config.profile)
        self.panel.candidates.set_whatif(inspection.attached)
        failing = inspection.analysis.partition.failing_limits()     # each op under every limit it breaks
        self.panel.editor.limits.show_hits({limit: len(values) for limit, values in failing.items()})
        self.state.ablation = known_ablation(inspection.config)
        if not self.ablations.is_running():
            self._show_chart()

    def _follow_profile(self, path: str | None, keep_form: bool = False) -> None:
        """The form shows the profile of the run on screen, unless it holds edits of that profile
        (or `keep_form`: a run that failed or was cancelled leaves the edits to apply again)."""
        from vpu_core.cache.profile_store import validated_profile

        a, in_use, state = self.analysis, self.in_use, self.state
        disk = window_session().disk()            # validated by the worker: read without torch
        if a is not None:
            self.panel.editor.set_choices([(r.rule.id, f"{r.rule.constraint} · {constraint_name(r.rule)}",
                                            f"{r.rule.title} ({r.rule.id}): {r.rule.reason}") for r in a.rules],
                                          ROUNDING_MODES, AVG_POOL_DIVISORS)
        same = in_use is not None and in_use.path == str(path or DEFAULT_PROFILE)
        keep = in_use is not None and (keep_form or same) and self.is_modified()
        try:
            self.shipped = self.shipped or validated_profile(None, disk)
            profile = in_use if same and keep and in_use is not None else validated_profile(path, disk)
        except InspectorError:
            return                       # the run itself reported a bad profile
        if keep:                         # the edits stay, over this run's op counts
            edited = self.edited_profile()
            state.profile_in_use = profile
            self.panel.editor.show_ops(self._rows(edited.vpu_ops))
            state.profile_draft = self._form_profile()
        else:
            state.profile_in_use = profile
            self.panel.editor.show_profile(profile, self._rows(profile.vpu_ops))
            state.profile_draft = profile
        self._refresh()

    def _on_run_changed(self) -> None:
        run, inspection = self.state.run, self.state.result
        if not run.running and (run.error is not None or run.cancelled) and inspection is not None:
            self._follow_profile(inspection.config.profile, keep_form=True)   # e.g. an applied run failed

    def _rows(self, listed: tuple[str, ...]) -> tuple[OpListRow, ...]:
        from vpu_core.whatif.profile_edit import model_ops, op_list_rows

        return op_list_rows(listed, model_ops(self.analysis) if self.analysis is not None else ())

    # -- the profile editor ------------------------------------------------------------------------
    def _form_profile(self) -> HardwareProfile | None:
        """What the form says, as a profile (None before the first result)."""
        from vpu_core.whatif.profile_edit import edit

        return None if self.in_use is None else edit(self.in_use, **self.panel.editor.form_values())

    def _on_form_edited(self) -> None:
        self.state.profile_draft = self._form_profile()

    def _show_draft(self) -> None:
        """The draft changed: the form shows it (unless it came from the form), the status follows."""
        from vpu_core.whatif.profile_edit import same_profile

        draft, form = self.state.profile_draft, self._form_profile()
        if draft is not None and form is not None and not same_profile(draft, form):
            self.panel.editor.show_profile(draft, self._rows(draft.vpu_ops))
        self._refresh()

    def edited_profile(self) -> HardwareProfile:
        """The draft (the form's profile); the profile in use when nothing was run yet."""
        draft = self.state.profile_draft or self._form_profile()
        if draft is None:
            raise InspectorError("Run a model first: the editor edits the profile of the run on screen.")
        return draft

    def is_modified(self) -> bool:
        from vpu_core.whatif.profile_edit import same_profile

        return self.in_use is not None and not same_profile(self.edited_profile(), self.in_use)

    def needs(self) -> tuple[str, ...]:
        """Keys of the edit that make Apply quantize again (empty: it re-analyses only)."""
        from vpu_core.whatif.profile_edit import requantization_needed

        a = self.analysis
        if a is None or self.in_use is None:
            return ()
        ops = [info.op for info in a.nodes.values() if info.kind == "call_function"]
        return requantization_needed(self.in_use, self.edited_profile(), a.quantizer, ops, a.dynamic_batch)

    def _refresh(self) -> None:
        from vpu_core.whatif.profile_edit import profile_diff

        in_use, shipped = self.in_use, self.shipped
        if in_use is None or shipped is None:
            return
        edited, modified = self.edited_profile(), self.is_modified()
        source = Path(in_use.path)
        origin = ("shipped profile" if in_use.path == shipped.path else
                  f"applied: {source.name}" if source.parent == self.profile_dir else source.name)
        needs = self.needs() if modified else ()
        text = (f"Apply quantizes again from the same export and calibration data ({', '.join(needs)} "
                "changes the Q/DQ graph)." if needs else
                "Apply re-analyses the current Q/DQ graph only (no re-quantization).")
        self.panel.editor.show_status(f"{in_use.name} ({origin})", modified, text,
                                      profile_change_lines(profile_diff(shipped, edited)), in_use.path)

    def apply(self) -> str | None:
        """Validate the draft, write it to a content-named file, make it the request's profile and
        run (not fresh: the session re-quantizes only if the change needs it)."""
        from vpu_core.whatif.profile_edit import profile_to_toml, save_profile, validate_profile

        try:
            profile = validate_profile(self.edited_profile())
            text = profile_to_toml(profile)
            stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", profile.name) or "profile"
            path = self.profile_dir / f"{stem}-{hashlib.sha1(text.encode()).hexdigest()[:8]}.toml"
            self.profile_dir.mkdir(parents=True, exist_ok=True)
            in_use = save_profile(profile, path)
        except (InspectorError, OSError) as exc:
            dialogs.show_error(self.panel.window(), exc, title="Invalid hardware profile", note="")
            return None
        from vpu_core.whatif.profile_edit import profile_diff

        state = self.state
        if self.analysis is not None and self.in_use is not None:
            change = "; ".join(profile_change_lines(profile_diff(self.in_use, in_use))) or "the edited profile"
            self._applied = (str(path), self.analysis, change)
        state.profile_in_use = in_use
        self.panel.editor.show_profile(in_use, self._rows(in_use.vpu_ops))
        state.profile_draft = in_use
        self._refresh()
        shown = state.result.config if state.result is not None else state.config
        state.config = dataclasses.replace(shown, profile=str(path))     # the toolbar shows the profile
        state.request_run(fresh=False)
        return str(path)

    # -- try it on the VPU ----------------------------------------------------------------------------
    def try_on_vpu(self, node: str) -> bool:
        """Make the edit that moves `node` (of the result on screen) to the VPU the draft and open
        the editor on it, Apply focused; False when no profile edit helps that node."""
        from vpu_core.whatif.try_on_vpu import fixed_profile, vpu_fix

        a, in_use = self.analysis, self.in_use
        fix = vpu_fix(a, node) if a is not None and node in a.nodes else None
        draft = fixed_profile(self.edited_profile(), fix) if fix is not None and in_use is not None else None
        if fix is None or draft is None:
            return False
        self.show(TAB_PROFILE)
        self.state.profile_draft = draft
        editor = self.panel.editor
        if fix.kind == "limit":                     # the limits editor, on the first relaxed key
            editor.focus_limit(fix.limit)
        else:
            editor.focus_op(fix.entry)
        editor.apply_button.setFocus()              # Enter / Space applies: three keys, like three clicks
        return True

    def try_selected(self) -> bool:
        """T: "Try it on the VPU" for the selected node (side A)."""
        selection = self.state.selection
        if selection is None or selection.side != "a":
            return False
        return self.try_on_vpu(selection.node)

    def _show_card(self, inspection) -> None:
        """After an Apply: the numbers before it against this result's."""
        applied = self._applied
        if applied is None or inspection.config.profile != applied[0] or inspection.analysis.predicted:
            return                       # (a prediction first: the card waits for the quantized result)
        from vpu_core.whatif.try_on_vpu import before_after   # (it imports the rules, and torch: not before)

        self._applied = None
        if self.cards is not None:
            self.cards.show_card(before_after(applied[1], inspection.analysis, applied[2]))

    def revert(self) -> None:
        if self.in_use is not None:
            self.state.profile_draft = self.in_use

    def save_to(self, path: str | Path) -> HardwareProfile:
        """Write the form as a --profile file (validated first; ProfileError / SaveError raised)."""
        from vpu_core.whatif.profile_edit import save_profile

        return save_profile(self.edited_profile(), path)

    def save_dialog_chose(self, path: str) -> None:
        try:
            self.save_to(path)
        except InspectorError as exc:
            dialogs.show_error(self.panel.window(), exc, title="Cannot save the profile", note="")

    def add_op(self, name: str) -> None:
        from vpu_core.profile import is_known_op

        if not is_known_op(name):
            dialogs.show_error(self.panel.window(), InspectorError(f"'{name}' is not an ATen op."),
                               title="Unknown op", note="")
            return
        self.panel.editor.add_op_row(name)

    # -- constraint cost ---------------------------------------------------------------------------
    def run_ablation(self) -> None:
        inspection = self.state.result
        if inspection is None or self.ablations.is_running():
            return
        self._ablating = config = inspection.config
        self.panel.chart.set_progress(0.0, "Relaxing constraints…")
        self.ablations.request(lambda: AblationJob(config))

    def current_ablation(self) -> AblationReport | None:
        """The ablation of the run on screen, if one was made (the exported report shows it)."""
        return self.state.ablation

    def shutdown(self) -> None:
        self.ablations.shutdown()

    def _show_chart(self) -> None:
        chart, inspection = self.panel.chart, self.state.result
        if inspection is None:
            chart.show_idle("", "Run a model first.", can_run=False)
            return
        config = inspection.config
        report = self.state.ablation
        if report is not None:
            chart.show_report(report, inspection.analysis.model)
        elif config.quantizer != "vpu":
            chart.show_idle(inspection.analysis.model, "The ablation relaxes the VPU quantizer's constraints; "
                            "the XNNPACK quantizer ignores them.", can_run=False)
        else:
            chart.show_idle(inspection.analysis.model, "Run ablation quantizes this model once per constraint "
                            "2–8 with only that constraint relaxed (same export and calibration data) and "
                            "ranks what each costs.", can_run=True)

    def _on_ablation_progress(self, stage: Stage, fraction: float) -> None:
        rules = [r.rule for r in self.analysis.rules] if self.analysis is not None else []
        rule = rules[min(int(fraction * len(rules)), len(rules) - 1)] if rules else None
        what = constraint_name(rule) if rule is not None else "constraints"
        self.panel.chart.set_progress(fraction, f"Relaxing {what}…" if fraction < 1 else "")

    def _on_ablation_done(self, report: AblationReport) -> None:
        shown = self.state.result
        if shown is not None and shown.config == self._ablating:    # the session keeps it anyway
            self.state.ablation = report
        self._show_chart()
        self.panel.chart.set_status(f"Done in {report.seconds:.1f} s")

    def _on_ablation_cancelled(self) -> None:
        self._show_chart()
        self.panel.chart.set_status("Cancelled")

    def _on_ablation_failed(self, error: InspectorError) -> None:
        self._show_chart()
        self.panel.chart.set_status("Failed")
        dialogs.show_error(self.panel.window(), error, title="Ablation failed", note="")


def _default_dir() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppLocalDataLocation)
    return Path(base or Path.home() / ".vpu-inspector") / "profiles"
