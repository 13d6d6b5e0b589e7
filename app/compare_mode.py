"""Compare mode (MainWindow part): two configurations of one model, side by side.

Side A is the toolbar's configuration, side B the compare bar's changes to it (VPU vs XNNPACK by
default). Both run in one CompareWorker (progress and cancel as for a single run); a side whose
result is already on screen is reused rather than run again. The report docks show one side —
the one last clicked — and the Compare tab lists every matched op of the two.
"""
from __future__ import annotations

import html

from app import theme
from app.compare_table import partition_text, qparams_text, rules_text
from app.compare_view import CompareView, other
from app.worker import CompareWorker


def pair_html(cmp, side: str, node: str, op: str) -> str:
    """The top of the node panel in compare mode: what this node is matched with."""
    labels = {"a": cmp.a_label, "b": cmp.b_label}
    pair = cmp.pair_for(op, side)
    box = ('<table width="100%" cellpadding="6" cellspacing="0" style="background:#f3f0ff; '
           'margin-bottom:8px"><tr><td>{}</td></tr></table>')
    here = f"<b>{side.upper()} · {html.escape(labels[side])}</b>"
    if pair is None:
        text = (f'{here} — <b style="color:#7e22ce">no counterpart in {html.escape(labels[other(side)])}</b>'
                if op in (cmp.only_a if side == "a" else cmp.only_b) else
                f"{here} — not a compute op; nothing to match")
        return box.format(text)
    mine, theirs = (pair.a, pair.b) if side == "a" else (pair.b, pair.a)
    rows = [f"{here} {html.escape(mine.node)} ⇄ {html.escape(labels[other(side)])} "
            f"{html.escape(theirs.node)}  <span style='color:{theme.MUTED}'>({html.escape(pair.op)})</span>",
            f"qparams: {html.escape(qparams_text(mine))} &nbsp;vs&nbsp; {html.escape(qparams_text(theirs))}",
            f"breaks: {html.escape(rules_text(mine))} &nbsp;vs&nbsp; {html.escape(rules_text(theirs))}",
            f"VPU partition: {html.escape(partition_text(pair))}"]
    return box.format("<br>".join(rows))


class CompareModeMixin:
    compare_result = None
    compare_mode = False
    focus_side = "a"

    def _init_compare(self) -> None:
        from app.compare_bar import CompareBar

        self.compare_bar = CompareBar()
        self.compare_bar.hide()
        self.compare_view = CompareView()
        self.graph_stack.addWidget(self.compare_view)
        self.compare_bar.changed.connect(lambda: self.request_run(reuse=True))
        self.compare_bar.closed.connect(lambda: self.set_compare_mode(False))
        self.compare_bar.open_profile_requested.connect(self._open_compare_profile)
        self.compare_view.node_selected.connect(self._on_compare_selection)
        self.panels.compare.node_activated.connect(lambda side, node: self.select_in(side, node))

    def showing_compare(self) -> bool:
        return self.compare_mode and self.compare_result is not None

    def compare_options(self) -> dict:
        return {**self.run_options(), **self.compare_bar.overrides()}

    def set_compare_mode(self, on: bool) -> None:
        """Enter (B defaults to the other quantizer) or leave compare mode."""
        if on == self.compare_mode:
            return
        self.compare_mode = on
        self.view_bar.set_compare(on)
        self.compare_bar.setVisible(on)
        self.plots_dock.setVisible(not on)        # the diff table gets the whole width
        if on:
            if not self.compare_bar.configured:       # first time: B = the other quantizer
                a = self.run_options()
                self.compare_bar.set_overrides({**a, "quantizer": "xnnpack" if a["quantizer"] == "vpu" else "vpu"})
            self.request_run(reuse=True)
            return
        self.panels.set_comparison(None, None)
        if self.result is not None and self.result.options == self.run_options():
            if self.jobs.is_running():
                self.jobs.cancel()                # its compare result is not wanted any more
            self.focus_side = "a"
            self.apply_result(self.result)        # A is on screen already: no new run
        else:
            self.request_run(reuse=True)

    def _open_compare_profile(self) -> None:
        from app import dialogs

        path = dialogs.open_profile_dialog(self)
        if path:
            self.store.add_recent_profile(path)
            self.compare_bar.set_profiles(self.store.recent_profiles())
            self.compare_bar.set_profile(path)
            self.request_run(reuse=True)

    def compare_job(self, fold: bool, xnnpack: bool, reuse: bool):
        a, b = self.run_options(), self.compare_options()
        known = tuple(r for r in (self.result, *self._compare_sides()) if r is not None) if reuse else ()
        return lambda: CompareWorker(a, b, fold, xnnpack, known)

    def _compare_sides(self) -> tuple:
        return () if self.compare_result is None else (self.compare_result.a, self.compare_result.b)

    def apply_compare(self, result) -> None:
        self.overlay_available([result.a, result.b])
        self.compare_result = result
        self.result = result.a
        self.focus_side = "a"
        self._show_compare()

    def _show_compare(self) -> None:
        result, fold, source = self.compare_result, self.fold(), self.partition_source
        keep = self._compare_selection
        self.compare_view.set_result(result, result.a.bundle(fold, source), result.b.bundle(fold, source))
        names = {side: {n: r.analysis.nodes[n].op for n in r.analysis.nodes}
                 for side, r in (("a", result.a), ("b", result.b))}
        self.panels.set_comparison(result.comparison, names)
        self._show_side_report(self.focus_side, force=True)
        self.graph_stack.setCurrentWidget(self.compare_view)
        self.refresh_legends()
        self._update_compare_status()
        self.reset_walk()
        if keep and self.select_in(*keep, center=False):
            return
        self._compare_selection = None
        self.panels.tables.setCurrentIndex(self.panels.compare_index)
        self.panels.show_summary(self.side_result(self.focus_side).analysis, self.current_bundle(self.focus_side).model)

    _compare_selection = None

    def _show_side_report(self, side: str, force: bool = False) -> None:
        """The report docks follow the side the user works on."""
        if side == self.focus_side and not force:
            return
        self.focus_side = side
        run = self.side_result(side)
        self.panels.set_analysis(run.analysis, self.partition_source)
        label = self.compare_view.label(side)
        self.tables_dock.setWindowTitle(f"Report — {side.upper()}: {label}")
        self.plots_dock.setWindowTitle(f"Plots — {side.upper()}: {label}")

    def _on_compare_selection(self, side: str, node: str) -> None:
        if not self.showing_compare():
            return
        self._show_side_report(side)
        if not node:
            self._compare_selection = None
            self.panels.show_summary(self.side_result(side).analysis, self.current_bundle(side).model)
            return
        self._compare_selection = (side, node)
        self._show_compare_node(side, node)

    def _show_compare_node(self, side: str, node: str) -> None:
        run = self.side_result(side)
        prefix = pair_html(self.compare_result.comparison, side, node, self.compare_view.op_of(side, node))
        self.panels.show_node(run.analysis, self.current_bundle(side).model, node, prefix)

    def compare_select(self, side: str, node: str, center: bool = True) -> bool:
        from vpu_core.graph.build import display_id

        shown = display_id(self.current_bundle(side).model, node)
        if not self.compare_view.select(side, shown, center):
            return False
        self._show_side_report(side)
        self._compare_selection = (side, shown)
        self._show_compare_node(side, shown)
        return True

    def _update_compare_status(self) -> None:
        cmp, a = self.compare_result.comparison, self.compare_result.a.analysis
        b = self.compare_result.b.analysis
        self.setWindowTitle(f"VPU Inspector — {a.model}: {cmp.a_label} vs {cmp.b_label}")

        def side(label, analysis):
            n = len(analysis.violations)
            return (f"<b>{html.escape(label)}</b> "
                    f'<b style="color:{theme.DANGER if n else theme.OK}">{n} violations</b>')
        chips = [f"<b>{html.escape(a.model)}</b> · compare", side("A " + cmp.a_label, a), side("B " + cmp.b_label, b),
                 f"{len(cmp.pairs)} matched ops, {len(cmp.differing)} differ",
                 f"{len(cmp.partition_changes)} placed differently",
                 f"{len(cmp.only_a) + len(cmp.only_b)} unmatched"]
        self.summary.setText("&nbsp;&nbsp;·&nbsp;&nbsp;".join(chips))
