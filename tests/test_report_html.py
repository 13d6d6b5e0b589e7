"""The one-file HTML report, built from real resnet8 / conv_relu runs and parsed back."""
import dataclasses
import re
from collections import Counter

import pytest

from app.cli import main as cli_main
from vpu_core.analysis import analyze
from vpu_core.compare import compare
from vpu_core.reports.html import OPTIONAL_IDS, SECTION_IDS, build_report_html
from vpu_core.reports.html.svg_charts import bin_edges, count_bins, nice_ticks

SINGLE_IDS = tuple(i for i in SECTION_IDS if i not in OPTIONAL_IDS)
COMPARE_IDS = tuple(i for i in SECTION_IDS if i not in ("ablation", "targets"))   # no --target


@pytest.fixture(scope="module")
def resnet8(run_cached):
    return (analyze(run_cached(model="resnet8", quantizer="vpu")),
            analyze(run_cached(model="resnet8", quantizer="xnnpack")))


@pytest.fixture(scope="module")
def compare_report(resnet8, tmp_path_factory):
    """The full path the GUI's Export report takes: real graph images, atomic write."""
    from app.export.report import export_report

    vpu, xnn = resnet8
    path = export_report(tmp_path_factory.mktemp("report") / "resnet8.html", vpu, compare_with=xnn)
    return path, path.read_text(encoding="utf-8")


@pytest.mark.slow
def test_comparison_report_has_every_section_in_order(compare_report, html_page):
    path, html = compare_report
    page = html_page(html)
    assert page.ids == list(COMPARE_IDS)
    assert html.startswith("<!DOCTYPE html>") and "<title>resnet8" in html
    assert (path.stat().st_mode & 0o044) == 0o044          # shareable, not the temp file's 0600


@pytest.mark.slow
def test_report_is_self_contained(compare_report, html_page):
    _, html = compare_report
    page = html_page(html)
    images = [u for u in page.urls if u.startswith("data:")]
    # per side: the model collapsed to its blocks, and the flat graph (resnet8's is readable)
    assert len(images) == 4 and all(u.startswith("data:image/png;base64,") for u in images)
    assert all(u.startswith(("data:", "#")) for u in page.urls)       # nothing to fetch
    assert not re.search(r"https?://", html)                           # not even a namespace
    assert page.scripts_src == [] and page.links == [] and "@import" not in html
    assert page.svgs >= 7        # 4 histograms/scatter + SQNR bars + 2 comparison charts


@pytest.mark.slow
def test_comparison_rows_are_the_matched_ops(compare_report, resnet8, html_page):
    _, html = compare_report
    cmp = compare(*resnet8)
    page = html_page(html)
    rows = page.rows["pair"]
    assert len(rows) == len(cmp.pairs) == 22
    first = rows[0]
    assert first[0].startswith("conv2d.default entry.0 (Conv2d)")
    assert "pow2_scale" in first[2] and "pow2_scale" not in first[1]   # only the XNNPACK side
    assert "VPU breaks no VPU rule; XNNPACK breaks 4 of 7 VPU rules (53 violations)" in \
           re.sub(r"<[^>]+>", "", html)


@pytest.mark.slow
def test_violation_rows_match_the_analysis(resnet8, html_page):
    _, xnn = resnet8
    page = html_page(build_report_html(xnn))
    assert page.ids == list(SINGLE_IDS)
    rows = page.rows["violation"]
    assert len(rows) == len(xnn.violations) == 53
    # Rows sit under their rule's group, with the node and the message of the analysis.
    assert Counter(page.rules_of_rows) == Counter(v.rule for v in xnn.violations)
    assert Counter((r[0], r[2]) for r in rows) == Counter((v.node, v.message) for v in xnn.violations)
    assert "data:" not in "".join(page.urls)          # no image given: none embedded


def test_clean_vpu_run_reports_no_violations(run_cached, html_page):
    a = analyze(run_cached(model="conv_relu", quantizer="vpu"))
    html = build_report_html(a, "<svg xmlns='x'><rect/></svg>")
    page = html_page(html)
    assert "violation" not in page.rows
    assert "satisfies every enabled rule" in html
    assert any(u.startswith("data:image/svg+xml;base64,") for u in page.urls)
    assert f"{a.sqnr_db:.1f} dB" in html


@pytest.mark.slow
def test_user_text_is_escaped(resnet8):
    vpu, xnn = resnet8
    evil = "<script>alert(1)</script>"
    node = next(iter(xnn.violations)).node
    bad = dataclasses.replace(xnn, model=f"m{evil}.py",
                              violations=tuple(dataclasses.replace(v, message=v.message + evil)
                                               if v.node == node else v for v in xnn.violations))
    html = build_report_html(bad, compare_with=vpu)
    assert evil not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count("<script>") == 1               # only the report's own print/scroll helper


@pytest.mark.slow
def test_cli_report_with_comparison(tmp_path, capsys, html_page):
    out = tmp_path / "conv_relu.html"
    assert cli_main(["report", "conv_relu", "-o", str(out), "--compare", "quantizer=xnnpack"]) == 0
    page = html_page(out.read_text(encoding="utf-8"))
    assert page.ids == list(COMPARE_IDS)
    assert f"wrote {out}" in capsys.readouterr().out


def test_cli_report_errors_are_one_line(tmp_path, capsys):
    assert cli_main(["report", "conv_relu", "-o", str(tmp_path / "r.txt")]) == 2
    assert cli_main(["report", "conv_relu", "-o", str(tmp_path / "r.html"), "--compare", "tflite"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("vpu-inspector: error:") for line in err)
    assert "must end in .html" in err[0] and "tflite" in err[1]
    assert list(tmp_path.iterdir()) == []


def test_chart_helpers():
    assert nice_ticks(0, 34.8, 6) == [0, 10, 20, 30, 40]     # the axis always reaches the data
    assert nice_ticks(-12.3, -3.9, 8)[0] <= -12.3
    edges = bin_edges([-5.0, -5.0, -4.5, -3.0], 0.25)
    assert edges[0] < -5.0 and edges[-1] > -3.0
    counts = count_bins([-5.0, -5.0, -4.5, -3.0], edges)
    assert sum(counts) == 4 and max(counts) == 2
    centre = edges.index(-5.125)        # power-of-two values sit in the middle of their bin
    assert counts[centre] == 2


@pytest.mark.slow
def test_graph_pictures_are_legible_and_hotspots_named_like_the_window(compare_report, resnet8):
    """The pictures were shrunk to their column (labels ≈ 5 px) in a 1000 px frame
    (40 % empty), and "Most violations" listed fx names (linear_7)."""
    from vpu_core.formatting import node_label
    from vpu_core.reports.html.sections import MIN_SHOWN, hotspots_html

    _, html = compare_report
    imgs = re.findall(r'<img src="data:image/png[^"]*" alt="Q/DQ graph[^"]*" width="(\d+)" height="\d+"'
                      r' style="min-width:(\d+)px"', html)
    assert len(imgs) == 2 and all(abs(int(m) - MIN_SHOWN * int(w)) <= 1 for w, m in imgs)
    assert "max-height: 1000px" in html and "height: 1000px" not in html.replace("max-height: 1000px", "")
    _, xnn = resnet8
    listed = re.findall(r'<li title="([^"]+)"><span class="badge">\d+</span>([^<]*(?:<wbr>[^<]*)*)</li>',
                        hotspots_html(xnn))
    assert len(listed) == 8
    for node, text in listed:
        assert text.replace("<wbr>", "") == node_label(xnn.nodes[node]).replace("&", "&amp;")
        assert " · " in text and text.replace("<wbr>", "") != node
