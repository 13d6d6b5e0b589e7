"""Colours and the one inline stylesheet of the report (the bundled fonts, print-friendly).

The partition colours repeat app/theme.py's CATEGORY_COLORS (the core must not import the Qt
app): VPU is the cool green, CPU fallback the warm orange, everywhere in the report.
"""
from __future__ import annotations

from vpu_core.reports.html.fonts import MONO_STACK, SANS_STACK

VPU = "#3aa76d"
VPU_DARK = "#1e7a4f"
VPU_SOFT = "#e3f4ea"
CPU = "#ef8b2c"
CPU_DARK = "#b45309"
CPU_SOFT = "#fdeedd"
QDQ = "#9aa5b8"
PARAM = "#cfd5df"
IO = "#5b7cfa"
DANGER = "#d92d20"
OK = "#15803d"
ACTIVATION = "#2563eb"
WEIGHT = "#8b5cf6"
FLOAT = "#64748b"

CATEGORY_COLORS = {"vpu": VPU, "cpu": CPU, "qdq": QDQ, "param": PARAM, "io": IO}
CATEGORY_NAMES = {"vpu": "VPU subgraph", "cpu": "CPU fallback", "qdq": "Quantize / dequantize",
                  "param": "Parameter", "io": "Input / output"}

# The graph canvas' own palette (app/graph_view/style.py), for the legend beside its image.
GRAPH_VPU_SHADES = ("#6cc58a", "#4db6ac", "#74a9e4", "#a3d468", "#4fc3dd", "#9aa6ec",
                    "#3fae8c", "#8ccbf2", "#b6dc9a", "#6f98d6")      # by subgraph id
GRAPH_LEGEND = (("CPU fallback", "#f4a640"), ("Quantize / dequantize", "#cfd3d8"),
                ("Parameter", "#eef0f3"), ("Input / output", "#37474f"))
GRAPH_BOUNDARY = "#e65100"
GRAPH_VIOLATION = "#e53935"

CSS = """
:root { --bg:#f4f5f7; --panel:#fff; --border:#e2e5ea; --text:#1f2933; --muted:#5f6b7a;
  --vpu:%(VPU)s; --vpu-dark:%(VPU_DARK)s; --vpu-soft:%(VPU_SOFT)s; --cpu:%(CPU)s;
  --cpu-dark:%(CPU_DARK)s; --cpu-soft:%(CPU_SOFT)s; --danger:%(DANGER)s; --ok:%(OK)s;
  --mono: %(MONO_STACK)s; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%%; }
body { margin: 0; background: var(--bg); color: var(--text); font: 14px/1.5 %(SANS_STACK)s; }
code, .mono { font-family: var(--mono); font-size: 12.5px; }
header.band { background: linear-gradient(115deg, #0f1f2e 0%%, #123b3a 55%%, #16604a 100%%);
  color: #fff; padding: 28px 40px 24px; }
header.band .kicker { text-transform: uppercase; letter-spacing: .12em; font-size: 11.5px;
  opacity: .75; font-weight: 600; }
header.band h1 { margin: 4px 0 10px; font-size: 28px; font-weight: 650; letter-spacing: -.01em; }
header.band .meta { display: flex; flex-wrap: wrap; gap: 8px; font-size: 12.5px; }
header.band .meta span { background: rgba(255,255,255,.12); border: 1px solid rgba(255,255,255,.18);
  padding: 2px 10px; border-radius: 999px; }
nav.toc { position: sticky; top: 0; z-index: 5; background: rgba(255,255,255,.96);
  border-bottom: 1px solid var(--border); padding: 0 40px; display: flex; gap: 4px;
  overflow-x: auto; }
nav.toc a { color: var(--muted); text-decoration: none; padding: 10px 12px; font-weight: 550;
  font-size: 13px; border-bottom: 2px solid transparent; white-space: nowrap; }
nav.toc a:hover { color: var(--text); border-bottom-color: var(--vpu); }
main { max-width: 1280px; margin: 0 auto; padding: 24px 32px 48px; }
section.card { background: var(--panel); border: 1px solid var(--border); border-radius: 12px;
  box-shadow: 0 1px 2px rgba(16,24,40,.04), 0 1px 8px rgba(16,24,40,.04); padding: 22px 26px;
  margin: 0 0 22px; }
section.card > h2 { margin: 0 0 4px; font-size: 19px; font-weight: 650; }
section.card > p.lede { margin: 0 0 16px; color: var(--muted); }
h3 { font-size: 15px; margin: 22px 0 8px; font-weight: 650; }
.kpis { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 12px;
  margin: 14px 0 18px; }
.kpi { border: 1px solid var(--border); border-radius: 10px; padding: 12px 14px; background: #fbfcfd;
  border-top: 3px solid #cbd2db; }
.kpi .v { font-size: 24px; font-weight: 680; line-height: 1.2; }
.kpi .k { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .05em;
  font-weight: 600; }
.kpi .s { color: var(--muted); font-size: 12px; }
.kpi.vpu { border-top-color: var(--vpu); } .kpi.cpu { border-top-color: var(--cpu); }
.kpi.bad { border-top-color: var(--danger); } .kpi.bad .v { color: var(--danger); }
.kpi.good { border-top-color: var(--ok); } .kpi.good .v { color: var(--ok); }
table { border-collapse: collapse; width: 100%%; font-size: 13px; }
th { text-align: left; color: var(--muted); font-weight: 600; font-size: 11.5px;
  text-transform: uppercase; letter-spacing: .04em; padding: 8px 10px; border-bottom: 1px solid
  var(--border); background: #f8f9fb; }
td { padding: 7px 10px; border-bottom: 1px solid #eef0f3; vertical-align: top; }
tbody tr:nth-child(even) td { background: #fafbfc; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.total td { font-weight: 650; background: #f3f5f8 !important; border-top: 1px solid var(--border); }
tr.diff td:first-child { box-shadow: inset 3px 0 0 var(--danger); }
.tablewrap { overflow-x: auto; border: 1px solid var(--border); border-radius: 8px; }
td code { overflow-wrap: anywhere; }   /* a long module path wraps instead of widening the table past the page */
.tablewrap table td:first-child, .tablewrap table th:first-child { padding-left: 14px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 6px 22px; margin: 0; }
dl.facts dt { color: var(--muted); font-weight: 550; } dl.facts dd { margin: 0; }
.pill { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 11.5px;
  font-weight: 650; white-space: nowrap; border: 1px solid transparent; }
.pill.vpu { background: var(--vpu-soft); color: var(--vpu-dark); border-color: #bfe5cf; }
.pill.cpu { background: var(--cpu-soft); color: var(--cpu-dark); border-color: #f8d3ad; }
.pill.fail { background: #fdecea; color: #b42318; border-color: #f7c8c3; }
.pill.ok { background: #e7f6ec; color: var(--ok); border-color: #bfe5cf; }
.pill.off { background: #eef0f3; color: var(--muted); }
.pill.tag { background: #eef6f2; color: var(--vpu-dark); border-color: #cfe8da; font-size: 12px;
  vertical-align: 3px; margin-left: 6px; }
.pill.rule { background: #f1f3f7; color: #344054; border-color: #e0e4ea; font-weight: 600; }
.muted { color: var(--muted); } .small { font-size: 12px; }
.warnline { background: #fff7ed; border-left: 3px solid var(--cpu); padding: 8px 12px;
  border-radius: 0 6px 6px 0; margin: 10px 0; color: #7c2d12; }
.okline { background: #f0fdf4; border-left: 3px solid var(--vpu); padding: 8px 12px;
  border-radius: 0 6px 6px 0; margin: 10px 0; color: #14532d; }
.reason { background: #f6f8fb; border-left: 3px solid #94a3b8; padding: 8px 12px; border-radius: 0 6px 6px 0;
  margin: 6px 0 10px; color: #344054; }
details.group { border: 1px solid var(--border); border-radius: 9px; margin: 10px 0; background: #fff; }
details.group > summary { cursor: pointer; padding: 10px 14px; font-weight: 600; list-style: none;
  display: flex; gap: 10px; align-items: center; }
details.group > summary::-webkit-details-marker { display: none; }
details.group > summary::before { content: "\\25B8"; color: var(--muted); transition: transform .15s; }
details.group[open] > summary::before { transform: rotate(90deg); }
details.group > .body { padding: 0 14px 12px; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 18px; }
figure.chart { margin: 0; border: 1px solid var(--border); border-radius: 10px; padding: 12px 12px 6px;
  background: #fff; }
figure.chart figcaption { font-weight: 650; font-size: 13.5px; margin: 0 0 2px; }
figure.chart figcaption .muted { font-weight: 400; }
svg.chart { display: block; width: 100%%; height: auto; }
.legend { display: flex; flex-wrap: wrap; gap: 16px; margin: 6px 0 12px; font-size: 12.5px; }
.sw { display: inline-block; width: 14px; height: 14px; border-radius: 4px;
  vertical-align: -2px; margin-right: 6px; border: 1px solid rgba(0,0,0,.08); }
.sgcell { display: inline-flex; align-items: center; gap: 2px; }
.legend .edge { display: inline-block; width: 26px; border-top: 3px dashed %(GRAPH_BOUNDARY)s;
  vertical-align: 3px; margin-right: 6px; }
.legend .badge { display: inline-block; background: %(GRAPH_VIOLATION)s; color: #fff; border-radius: 999px;
  font-size: 10.5px; font-weight: 700; min-width: 19px; text-align: center; padding: 0 5px;
  margin-right: 8px; }
ul.legend { list-style: none; padding: 0; }
ul.legend.vertical { flex-direction: column; gap: 7px; margin: 0 0 8px; }
ul.legend.vertical .sw { margin-right: 3px; } ul.legend.vertical .sw:last-of-type { margin-right: 8px; }
.graphgrid { display: grid; gap: 16px; align-items: start; }
.graphgrid.cols1 { grid-template-columns: minmax(0, 1fr) 300px; }
.graphgrid.cols2 { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr) 280px; }
.graphgrid h3 { margin-top: 0; }
.graphside h3 { font-size: 12px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted);
  margin: 4px 0 10px; }
.graphside ul.legend, .graphside p { margin: 0 0 24px; }
.graphbox { border: 1px solid var(--border); border-radius: 10px; background: #fff;
  max-height: 1000px; overflow: auto; text-align: center; padding: 10px; }
.graphbox img { max-width: 100%%; height: auto; }   /* never below its min-width (image_tag): scroll */
.sharebar { display: inline-block; width: 90px; height: 8px; background: #f4a640; border-radius: 4px;
  vertical-align: middle; overflow: hidden; }
.sharebar span { display: block; height: 100%%; background: #6cc58a; }
details.flatgraph { margin: 10px 0; } details.flatgraph summary { cursor: pointer; color: var(--muted); }
.sqnr-big { font-size: 40px; font-weight: 700; letter-spacing: -.02em; }
.side-a { color: var(--vpu-dark); } .side-b { color: #1d4ed8; }
.better { color: var(--ok); font-weight: 650; } .worse { color: var(--danger); font-weight: 650; }
.verdict { font-size: 15px; background: #f3f8f6; border: 1px solid #d5ebe0; border-radius: 9px;
  padding: 12px 16px; margin: 4px 0 18px; }
.scroll { max-height: 560px; overflow: auto; }
.chips { display: flex; flex-wrap: wrap; gap: 4px; }
.chips code { background: #f1f3f7; border-radius: 5px; padding: 0 6px; }
footer { color: var(--muted); font-size: 12px; text-align: center; padding: 8px 0 28px; }
@media print {
  body { background: #fff; font-size: 12px; }
  nav.toc { display: none; }
  header.band { -webkit-print-color-adjust: exact; print-color-adjust: exact; padding: 18px 24px; }
  main { max-width: none; padding: 12px 0; }
  section.card { box-shadow: none; break-inside: avoid-page; border-color: #ccd; }
  /* printed, nothing scrolls: a graph box or a wide table shows all of itself on the page */
  .graphbox, .scroll, .tablewrap { max-height: none; height: auto; overflow: visible; }
  .graphbox img { min-width: 0 !important; max-width: 100%%; }
  details.flatgraph > .graphbox, details.group > .body { display: block; }
  td, th { overflow-wrap: anywhere; }
  .pill, .kpi, tbody tr td, svg { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .grid2 { grid-template-columns: 1fr 1fr; }
}
""" % {"VPU": VPU, "VPU_DARK": VPU_DARK, "VPU_SOFT": VPU_SOFT, "CPU": CPU, "CPU_DARK": CPU_DARK,
       "CPU_SOFT": CPU_SOFT, "DANGER": DANGER, "OK": OK, "GRAPH_BOUNDARY": GRAPH_BOUNDARY,
       "GRAPH_VIOLATION": GRAPH_VIOLATION, "SANS_STACK": SANS_STACK, "MONO_STACK": MONO_STACK}

# Closed <details> do not print: open them all for printing (inline, no external script).
# Side-by-side graph frames scroll together, so the same region of both graphs stays in view.
PAGE_SCRIPT = """
window.addEventListener('beforeprint', function () {
  document.querySelectorAll('details').forEach(function (d) { d.open = true; });
});
(function () {
  var boxes = document.querySelectorAll('.graphgrid.cols2 .graphbox'), busy = false;
  boxes.forEach(function (box) {
    box.addEventListener('scroll', function () {
      if (busy) { return; }
      busy = true;
      boxes.forEach(function (o) { if (o !== box) { o.scrollTop = box.scrollTop; o.scrollLeft = box.scrollLeft; } });
      window.requestAnimationFrame(function () { busy = false; });
    });
  });
})();
"""
