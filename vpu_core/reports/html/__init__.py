"""The one-file HTML stakeholder report (`vpu-inspector report`, File ▸ Export report).

Pure Python, no Qt: the caller hands over an `Analysis`, optionally a second one to compare
with, and the graph image it rendered (PNG bytes or SVG text). Everything — CSS, charts (inline
SVG), images and the bundled fonts (data: URIs) — is inside the one file: no network, no
external fonts or scripts.

    html = build_report_html(analysis, graph_image=png_bytes, compare_with=xnn_analysis)
    write_report_html("resnet8.html", analysis, graph_image=png_bytes)   # atomic

Sections (stable ids, the tests look for them): #summary, #graph, #rules, #partition, #whatif,
#histograms, #sqnr, with integer simulation (Attached.int_sim) #int_sim, with a run on this CPU
(Attached.runtime, `report --run`) #runtime, with an ablation #ablation and, with a second
analysis, #comparison.
"""
from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from vpu_core.compare import Comparison, compare, default_label
from vpu_core.inspection import NOTHING_ATTACHED, Attached
from vpu_core.reports.html.comparison import comparison_section
from vpu_core.reports.html.fonts import font_face_css
from vpu_core.reports.html.html_kit import esc
from vpu_core.reports.html.numbers import histograms_section, sqnr_section
from vpu_core.reports.html.sections import (GraphImage, graph_section, partition_section,
                                           rules_section, summary_section)
from vpu_core.reports.html.style import CSS, PAGE_SCRIPT
from vpu_core.reports.html.targets import primary_summary_section, targets_section
from vpu_core.reports.html.whatif import ablation_section, whatif_section
from vpu_core.reports.summary_text import share_text

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.targets.results import RuntimeReport, TargetResult
    from vpu_core.whatif.results import AblationReport

SECTION_IDS = ("summary", "graph", "targets", "rules", "partition", "whatif", "histograms", "sqnr", "ablation",
               "comparison")
OPTIONAL_IDS = ("targets", "ablation", "comparison")     # only when the report is given what they show
VPU_IDS = ("rules", "partition", "whatif")    # the VPU's own: only when the VPU is a target
_NAV = {"summary": "Summary", "graph": "Graph", "rules": "Rules", "partition": "Partition",
        "whatif": "What-if", "histograms": "Scales", "sqnr": "SQNR",
        "ablation": "Constraint cost", "comparison": "Comparison", "int_sim": "Integer simulation",
        "runtime": "Run on this CPU", "targets": "Targets"}

__all__ = ["build_report_html", "write_report_html", "GraphImage", "SECTION_IDS", "OPTIONAL_IDS"]


def build_report_html(analysis: Analysis, graph_image: GraphImage | bytes | str | None = None, *,
                      compare_with: Analysis | None = None,
                      compare_graph_image: GraphImage | bytes | str | None = None,
                      comparison: Comparison | None = None,
                      ablation: AblationReport | None = None, attached: Attached = NOTHING_ATTACHED,
                      generated_at: _dt.datetime | None = None, embed_fonts: bool = True,
                      targets: Mapping[str, TargetResult] | None = None,
                      runs: Mapping[str, RuntimeReport] | None = None) -> str:
    """The whole report as one HTML string.

    `graph_image` is PNG bytes, SVG text or a GraphImage (with the size to show it at).
    `compare_with` adds the comparison section (matched by vpu_core.compare unless a ready
    `comparison` of the two is passed); `compare_graph_image` is its graph, shown beside ours.
    `ablation` (vpu_core.whatif AblationReport of `analysis`) adds what each constraint costs.
    `attached` (vpu_core.inspection) adds the what-if, the integer simulation and the run on this
    CPU computed for `analysis`.
    `embed_fonts`: the bundled fonts inside the page (~0.6 MB); without, the CSS only names them.
    `targets` (the primary first, vpu_core.targets) lead the report: the primary's verdict is the
    summary, each one's verdict is in #targets (with its run from `runs`), and the VPU's rules,
    partition and what-if are there only when the VPU is one of them.
    """
    tag = default_label(analysis) if compare_with is not None else ""   # which side a section shows
    results = dict(targets or {})
    primary = next(iter(results.values()), None)
    vpu_judges = primary is None or "vpu" in results      # the VPU's rules only when it is a target
    summary = summary_section(analysis, tag) if primary is None or primary.target == "vpu" else \
        primary_summary_section(analysis, primary, (runs or {}).get(primary.target))
    sections = [summary, graph_section(analysis, graph_image, compare_with, compare_graph_image, primary)]
    if results and list(results) != ["vpu"]:
        sections.append(targets_section(analysis, results, runs))
    if vpu_judges:
        sections += [rules_section(analysis, tag), partition_section(analysis, tag, attached.delegation),
                     whatif_section(attached, tag)]
    shipped = primary if primary is not None and primary.target != "vpu" else None   # colours the bars
    side = _side_word(shipped) if shipped is not None else "VPU"
    sections += [histograms_section(analysis, tag, vpu=vpu_judges),
                 sqnr_section(analysis, tag, shipped.verdict if shipped is not None else None, side)]
    if attached.int_sim is not None:
        from vpu_core.reports.html.int_sim import int_sim_section

        sections.append(int_sim_section(attached, tag))
    if attached.runtime is not None:
        from vpu_core.reports.html.runtime import runtime_section

        sections.append(runtime_section(analysis, attached, tag))
    if ablation is not None:
        sections.append(ablation_section(ablation))
    if compare_with is not None:
        cmp = comparison or compare(analysis, compare_with)
        sections.append(comparison_section(analysis, compare_with, cmp))
    present = {"ablation": ablation is not None, "comparison": compare_with is not None,
               "targets": bool(results) and list(results) != ["vpu"],
               **{key: vpu_judges for key in VPU_IDS}}
    ids = [s for s in SECTION_IDS if present.get(s, True)]
    if attached.int_sim is not None:
        ids.insert(ids.index("sqnr") + 1, "int_sim")
    if attached.runtime is not None:
        ids.insert(ids.index("int_sim" if attached.int_sim is not None else "sqnr") + 1, "runtime")
    when = (generated_at or _dt.datetime.now()).strftime("%Y-%m-%d %H:%M")
    title = _title(analysis, compare_with)
    if primary is not None and primary.target != "vpu" and compare_with is None:
        title = f"{analysis.model} — {primary.title}"
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="VPU Inspector">',
        f"<title>{esc(title)} — VPU Inspector report</title>",
        f"<style>{font_face_css() if embed_fonts else ''}{CSS}</style></head><body>",
        _header(analysis, compare_with, title, when, primary),
        '<nav class="toc">' + "".join(f'<a href="#{i}">{esc(_NAV[i])}</a>' for i in ids) + "</nav>",
        "<main>", *sections, "</main>",
        f"<footer>Generated by VPU Inspector on {esc(when)} · one self-contained file, "
        "no network resources</footer>",
        f"<script>{PAGE_SCRIPT}</script></body></html>\n",
    ])


def write_report_html(path: str | Path, analysis: Analysis,
                      graph_image: GraphImage | bytes | str | None = None, **kwargs: Any) -> Path:
    """Build the report and write it atomically (temp file + rename) to `path`.

    Raises vpu_core.files.SaveError (an InspectorError) when the file cannot be written.
    """
    from vpu_core.files import SaveError, atomic_write

    html = build_report_html(analysis, graph_image, **kwargs)
    path = Path(path)
    try:
        atomic_write(path, lambda tmp: Path(tmp).write_text(html, encoding="utf-8"))
    except OSError as exc:
        raise SaveError(f"Cannot write the report to {path}: {exc.strerror or exc}.") from None
    return path


def _side_word(r: TargetResult) -> str:
    from vpu_core import targets

    return targets.info(r.target).side if r.target in targets.names() else r.title


def _title(a: Analysis, b: Analysis | None) -> str:
    if b is None:
        return f"{a.model} — {default_label(a)}"
    return f"{a.model} — {default_label(a)} vs {default_label(b)}"


def _header(a: Analysis, b: Analysis | None, title: str, when: str, primary: TargetResult | None = None) -> str:
    def violations(x: Analysis) -> str:
        n = len(x.violations)
        return f"{n} violation{'s' if n != 1 else ''}"

    meta = [f"quantizer {a.quantizer}" + (f" vs {b.quantizer}" if b is not None else ""),
            "dynamic batch" if a.dynamic_batch else "static batch"]
    if primary is not None and primary.target != "vpu" and b is None:
        from vpu_core.reports.headline import headline_of

        h = headline_of(primary, a)
        meta = [f"target {h.title}", *meta, "all on the " + h.accelerator if h.ok else
                f"{h.cpu_ops} CPU op{'s' if h.cpu_ops != 1 else ''}", f"generated {when}"]
        chips = "".join(f"<span>{esc(m)}</span>" for m in meta)
        return (f'<header class="band"><div class="kicker">VPU Inspector · {esc(h.title)} report</div>'
                f'<h1>{esc(title)}</h1><div class="meta">{chips}</div></header>')
    meta.append(f"profile {a.partition.profile}")
    if b is None:
        meta.append(violations(a))
        if a.summary is not None and a.summary.macs_total:
            meta.insert(0, f"VPU runs {share_text(a.summary.vpu_mac_share)} of the MACs")
    else:
        meta += [f"{default_label(a)}: {violations(a)}", f"{default_label(b)}: {violations(b)}"]
    meta.append(f"generated {when}")
    chips = "".join(f"<span>{esc(m)}</span>" for m in meta)
    return (f'<header class="band"><div class="kicker">VPU Inspector · quantization report</div>'
            f'<h1>{esc(title)}</h1><div class="meta">{chips}</div></header>')
