"""pytest-qt: File ▸ Export report… / Export image… on a real conv_relu run (PNG, SVG, HTML).

The files must be non-trivial (a real drawing, the graph's labels, the report's sections and
embedded images), written atomically (nothing else left in the folder), and a bad target must
end in the error dialog with nothing written.
"""
from __future__ import annotations

import pytest
from PySide6.QtGui import QImage

from app import dialogs
from vpu_core.reports.html import OPTIONAL_IDS, SECTION_IDS


def _colours(image: QImage, step: int = 7) -> set[int]:
    return {image.pixel(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)}


@pytest.mark.slow
def test_export_images_and_report_from_the_menus(qtbot, window, tmp_path, monkeypatch, run_and_wait, error_box):
    result = run_and_wait(window, {"model": "conv_relu", "quantizer": "xnnpack", "calib_batches": 1})
    model = window.state.graph().model
    ops = [n.label for n in model.nodes if n.category in ("vpu", "cpu")]

    dialog = dialogs.export_image_file_dialog(window, str(tmp_path / "x.png"))   # the real dialog
    assert [dialog.region.itemData(i) for i in range(dialog.region.count())] == ["graph", "view"]
    assert not dialog.region.isHidden()
    dialog.deleteLater()

    # whole graph, PNG and SVG, through the menu action with the dialog answered
    answers = iter([(str(tmp_path / "graph.png"), "graph"), (str(tmp_path / "graph.svg"), "graph"),
                    (str(tmp_path / "view.png"), "view"), (str(tmp_path / "view.svg"), "view")])
    monkeypatch.setattr(dialogs, "export_image_dialog", lambda parent, suggested: next(answers))
    action = next(a for a in window.menuBar().actions()[0].menu().actions() if a.text() == "Export image…")
    for _ in range(4):
        action.trigger()
    graph_png = QImage(str(tmp_path / "graph.png"))
    layout = window.state.graph().layout
    assert graph_png.width() >= layout.width and graph_png.height() >= layout.height   # whole graph + legend
    assert len(_colours(graph_png)) > 8                                                 # a drawing, not a blank
    graph_svg = (tmp_path / "graph.svg").read_text(encoding="utf-8")
    assert graph_svg.startswith("<?xml") and "<svg" in graph_svg
    assert all(label in graph_svg for label in ops)                                     # labels
    assert "quantize / dequantize" in graph_svg and "input / output" in graph_svg       # the legend,
    assert "on the CPU" not in graph_svg             # of the colours drawn only: all of it is on the VPU
    view_png = QImage(str(tmp_path / "view.png"))
    viewport = window.graph_view.viewport()
    assert (view_png.width(), view_png.height()) == (viewport.width(), viewport.height())
    assert len(_colours(view_png)) > 8
    view_svg = (tmp_path / "view.svg").read_text(encoding="utf-8")
    assert "<svg" in view_svg and "conv2d" in view_svg

    # the report: one HTML file with every section and the graph embedded
    monkeypatch.setattr(dialogs, "save_report_dialog", lambda parent, suggested: str(tmp_path / "report.html"))
    next(a for a in window.menuBar().actions()[0].menu().actions() if a.text() == "Export report…").trigger()
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    for section in SECTION_IDS:
        assert (f'id="{section}"' in html) == (section not in OPTIONAL_IDS)
    assert "data:image/png;base64," in html and result.analysis.model in html
    assert sorted(p.name for p in tmp_path.iterdir()) == ["graph.png", "graph.svg", "report.html",
                                                          "view.png", "view.svg"]    # no temp files left
    assert str(tmp_path) in window.statusBar().currentMessage()

    # a target the exporter cannot take: a dialog, nothing written, the window unchanged
    assert window.exports.export_image(tmp_path / "graph.jpg") is None
    box = error_box()
    assert "graph.jpg" in box.text() and ".png or .svg" in box.text()
    box.close()
    assert window.exports.export_report_to(tmp_path / "missing" / "r.html") is None
    box = error_box()
    assert "does not exist" in box.text()
    box.close()
    assert len(list(tmp_path.iterdir())) == 5 and window.state.result is result
