"""Export: File ▸ Export report… and File ▸ Export image…, sharing what the window shows.

The report is app.export.report.export_report (the core's one-file HTML, with the comparison in
compare mode); images come from app.export.image_export. Both are written atomically, run in
the GUI thread behind a busy cursor (they paint with Qt, which wants that thread; a report
takes about a second), and any failure ends in the usual error dialog.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QGuiApplication

from app import dialogs
from app.features.shown import SIMULATED, side_label, source_of, source_title
from app.state import AppState
from app.widgets.delegation_legend import delegation_entries, entries_size, legend_title, paint_entries
from vpu_core.errors import InspectorError
from vpu_core.compare import Side

if TYPE_CHECKING:
    from app.graph_view import GraphView
    from app.settings import Store
    from app.widgets.compare_view import CompareView


class StatusLine(Protocol):
    def showMessage(self, text: str, timeout: int = 0) -> None: ...


class _BusyCursor:
    def __enter__(self) -> None:
        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)

    def __exit__(self, *exc: object) -> None:
        QGuiApplication.restoreOverrideCursor()


class ExportController(QObject):
    """The two export actions: dialogs, then `export_report_to` / `export_image`. Dialogs open
    over the window the canvas is in."""

    def __init__(self, state: AppState, graph_view: GraphView, compare_view: CompareView,
                 status_bar: StatusLine, store: Store) -> None:
        super().__init__(state)
        self.state = state
        self.graph_view, self.compare_view = graph_view, compare_view
        self.status_bar, self.store = status_bar, store

    def _export_stem(self) -> str:
        if self.state.result is None:
            return "vpu-inspector"
        a = self.state.result.analysis
        stem = f"{a.model}_{a.quantizer}"
        pair = self.state.comparison
        if self.state.showing_compare and pair is not None:
            stem += f"_vs_{pair.b.analysis.quantizer}"
        return stem

    def _export_dir(self) -> Path:
        last = self.store.qs.value("export/dir")
        return Path(last) if last and os.path.isdir(last) else Path.cwd()

    def _nothing_to_export(self) -> bool:
        if self.state.result is None:
            self.status_bar.showMessage("Nothing to export yet: wait for the run to finish.", 5000)
            return True
        return False

    def export_report_dialog(self) -> None:
        if self._nothing_to_export():
            return
        default = str(self._export_dir() / f"{self._export_stem()}.html")
        path = dialogs.save_report_dialog(self.graph_view.window(), default)
        if path:
            self.export_report_to(path)

    def export_image_dialog(self) -> None:
        if self._nothing_to_export():
            return
        default = str(self._export_dir() / f"{self._export_stem()}.png")
        chosen = dialogs.export_image_dialog(self.graph_view.window(), default)
        if chosen:
            self.export_image(*chosen)

    def _guarded(self, what: str, work) -> Path | None:
        try:
            with _BusyCursor():
                path = Path(work())
        except InspectorError as exc:
            dialogs.show_error(self.graph_view.window(), exc, title=f"{what} failed",
                               note="Nothing was written.")
            return None
        except OSError as exc:
            dialogs.show_error(self.graph_view.window(), InspectorError(f"{what} failed: {exc.strerror or exc}"),
                               title=f"{what} failed", note="Nothing was written.")
            return None
        self.store.qs.setValue("export/dir", str(path.parent))
        self.status_bar.showMessage(f"{what} written to {path}", 8000)
        return path

    def export_report_to(self, path: str | Path) -> Path | None:
        """The HTML report of the result on screen (both analyses and their comparison in
        compare mode)."""
        from app.export.report import export_report

        if self._nothing_to_export():
            return None
        state, pair, result = self.state, self.state.comparison, self.state.result
        if result is None:
            return None
        other = pair.b.analysis if state.showing_compare and pair is not None else None
        ablation = state.ablation                  # what each constraint costs, when it was run
        return self._guarded("Report", lambda: export_report(path, result.analysis, compare_with=other,
                                                             fold_params=state.view.fold_params,
                                                             ablation=ablation, attached=result.attached))

    def export_image(self, path: str | Path, region: str = "graph") -> Path | None:
        """region "view": what the graph area shows now; "graph": the whole graph(s)."""
        from app.export import image_export

        if self._nothing_to_export():
            return None
        path = Path(path)
        return self._guarded("Image", lambda: self._write_image(image_export, path, region))

    def _write_image(self, image_export, path: Path, region: str) -> Path:
        overlay = source_of(self.state.result) != SIMULATED
        compare = self.state.showing_compare
        if region == "view":
            if compare:
                cv = self.compare_view
                return image_export.export_widget(cv, path, self._export_stem(), views=cv.views_list(),
                                                  labels=tuple(cv.headers.values()))
            if overlay:                  # the canvas exporter would draw its own (VPU) legend
                view = self.graph_view
                return image_export.export_widget(view, path, self._export_stem(),
                                                  view.viewport().geometry(), views=(view,))
            return image_export.export_view(self.graph_view, path)
        theme = self.graph_view.theme()
        if not compare and not overlay:
            shown = self.graph_view.graph_scene()        # as drawn: groups open / closed as now
            if shown is None:
                raise InspectorError("Nothing is drawn yet.")
            return image_export.export_graph(shown.model, shown.layout, path, theme)
        sides = self.state.sides()
        return image_export.export_panels([self._panel(side, theme, overlay) for side in sides],
                                          path, theme, self._export_stem())

    def _panel(self, side: Side, theme, overlay: bool) -> dict:
        from app.graph_view.legend import legend_size, paint_legend

        from vpu_core.graph.legend import legend_facts

        graph = self.state.graph(side)
        if graph is None:
            raise InspectorError(f"Side {side.upper()} has no graph to export.")
        facts = legend_facts(graph.model)
        source = source_of(self.state.inspection(side))
        if source != SIMULATED:
            rows = delegation_entries(theme, facts, source)
            named = legend_title(source, source_title(source))
            size = entries_size(theme, rows, named)
            legend = lambda p, at: paint_entries(p, at, theme, rows, named)  # noqa: E731
        else:
            size = legend_size(theme, facts)
            legend = lambda p, at: paint_legend(p, at, theme, facts)  # noqa: E731
        compare = self.state.showing_compare
        title = side_label(self.state, side) if compare else graph.model.title
        return {"model": graph.model, "layout": graph.layout, "title": f"{side.upper()} · {title}"
                if compare else title, "legend": legend, "legend_size": size}
