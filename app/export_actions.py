"""File ▸ Export report… and File ▸ Export image…: sharing what the window shows.

The report is app.report.export_report (the core's one-file HTML, with the comparison when
compare mode is on); images come from app.image_export. Both are written atomically, run in
the GUI thread behind a busy cursor (they paint with Qt, which wants that thread; a report
takes about a second), and any failure ends in the usual error dialog.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from app import dialogs
from app.overlay import XNNPACK, delegation_entries, entries_size, paint_entries
from vpu_core.errors import InspectorError


class _BusyCursor:
    def __enter__(self):
        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)

    def __exit__(self, *exc):
        QGuiApplication.restoreOverrideCursor()
        return False


class ExportMixin:
    """MainWindow part: the two export actions (dialogs, then `export_report_to` / `export_image`)."""

    def _export_stem(self) -> str:
        if self.result is None:
            return "vpu-inspector"
        a = self.result.analysis
        stem = f"{a.model}_{a.quantizer}"
        if self.showing_compare():
            stem += f"_vs_{self.compare_result.b.analysis.quantizer}"
        return stem

    def _export_dir(self) -> Path:
        last = self.store.qs.value("export/dir")
        return Path(last) if last and Path(last).is_dir() else Path.cwd()

    def _nothing_to_export(self) -> bool:
        if self.result is None:
            self.statusBar().showMessage("Nothing to export yet: wait for the run to finish.", 5000)
            return True
        return False

    def export_report_dialog(self) -> None:
        if self._nothing_to_export():
            return
        path = dialogs.save_report_dialog(self, str(self._export_dir() / f"{self._export_stem()}.html"))
        if path:
            self.export_report_to(path)

    def export_image_dialog(self) -> None:
        if self._nothing_to_export():
            return
        chosen = dialogs.export_image_dialog(self, str(self._export_dir() / f"{self._export_stem()}.png"))
        if chosen:
            self.export_image(*chosen)

    def _guarded(self, what: str, work) -> Path | None:
        try:
            with _BusyCursor():
                path = Path(work())
        except InspectorError as exc:
            dialogs.show_error(self, exc, title=f"{what} failed", note="Nothing was written.")
            return None
        except OSError as exc:
            dialogs.show_error(self, InspectorError(f"{what} failed: {exc.strerror or exc}"),
                               title=f"{what} failed", note="Nothing was written.")
            return None
        self.store.qs.setValue("export/dir", str(path.parent))
        self.statusBar().showMessage(f"{what} written to {path}", 8000)
        return path

    def export_report_to(self, path: str | Path) -> Path | None:
        """The HTML report of the result on screen (both analyses and their comparison in
        compare mode)."""
        from app.report import export_report

        if self._nothing_to_export():
            return None
        other = self.compare_result.b.analysis if self.showing_compare() else None
        return self._guarded("Report", lambda: export_report(path, self.result.analysis, compare_with=other,
                                                             fold_params=self.fold()))

    def export_image(self, path: str | Path, region: str = "graph") -> Path | None:
        """region "view": what the graph area shows now; "graph": the whole graph(s)."""
        from app import image_export

        if self._nothing_to_export():
            return None
        path = Path(path)
        return self._guarded("Image", lambda: self._write_image(image_export, path, region))

    def _write_image(self, image_export, path: Path, region: str) -> Path:
        overlay = self.partition_source == XNNPACK
        if region == "view":
            if self.showing_compare():
                cv = self.compare_view
                return image_export.export_widget(cv, path, self._export_stem(), views=cv.views_list(),
                                                  labels=tuple(cv.headers.values()))
            if overlay:                  # the canvas exporter would draw its own (VPU) legend
                view = self.graph_view
                return image_export.export_widget(view, path, self._export_stem(),
                                                  view.viewport().geometry(), views=(view,))
            return image_export.export_view(self.graph_view, path)
        theme = self.graph_view.theme()
        if not self.showing_compare() and not overlay:
            shown = self.graph_view.graph_scene()        # as drawn: groups open / closed as now
            return image_export.export_graph(shown.model, shown.layout, path, theme)
        sides = ("a", "b") if self.showing_compare() else ("a",)
        return image_export.export_panels([self._panel(side, theme, overlay) for side in sides],
                                          path, theme, self._export_stem())

    def _panel(self, side: str, theme, overlay: bool) -> dict:
        from app.graph_view.legend import legend_size, paint_legend

        bundle = self.current_bundle(side)
        subgraphs = len({n.subgraph for n in bundle.model.nodes if n.category == "vpu"})
        if overlay:
            rows = delegation_entries(theme, subgraphs)
            size = entries_size(theme, rows)
            legend = lambda p, at: paint_entries(p, at, theme, rows)  # noqa: E731
        else:
            size = legend_size(theme, subgraphs)
            legend = lambda p, at: paint_legend(p, at, theme, subgraphs)  # noqa: E731
        title = self.compare_view.label(side) if self.showing_compare() else bundle.model.title
        return {"model": bundle.model, "layout": bundle.layout, "title": f"{side.upper()} · {title}"
                if self.showing_compare() else title, "legend": legend, "legend_size": size}
