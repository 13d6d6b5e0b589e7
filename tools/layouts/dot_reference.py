"""Graphviz dot as a quality and speed reference (optional: only if `dot` is on PATH).

dot gets the same node sizes and similar separations as our layout, lays the graph out
with its defaults (network-simplex ranking, median/transpose ordering, spline edges), and
its result is converted to a `Layout`: boxes from the node positions, edge polylines from
the B-spline control points sampled as cubic Bezier pieces. Crossings are then counted
with the very same `metrics.count_crossings` as ours (geometric, on the drawn polylines),
so the two numbers are comparable. Never used at run time; Graphviz is not a dependency.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from typing import Any
from pathlib import Path

from vpu_core.graph.model import GraphModel

from vpu_core.layout.engine import layout_graph
from vpu_core.layout.metrics import count_crossings
from vpu_core.layout.types import NODE_SEP, RANK_SEP, EdgeRoute, Layout, NodeSize, default_node_size

BEZIER_STEPS = 6


def dot_available() -> bool:
    return shutil.which("dot") is not None


def to_dot(model: GraphModel, node_size: NodeSize | None = None) -> str:
    """DOT text with vertex names n0, n1, ... in model order (ids may need quoting)."""
    size = node_size or default_node_size
    index = {n.id: i for i, n in enumerate(model.nodes)}
    lines = ["digraph G {",
             f"  graph [rankdir=TB, nodesep={NODE_SEP / 72:.3f}, ranksep={RANK_SEP / 72:.3f}];",
             '  node [shape=box, fixedsize=true, label=""];']
    for i, n in enumerate(model.nodes):
        w, h = size(n)
        lines.append(f"  n{i} [width={w / 72:.4f}, height={h / 72:.4f}];")
    for e in model.edges:
        if e.src in index and e.dst in index:
            lines.append(f"  n{index[e.src]} -> n{index[e.dst]};")
    lines.append("}")
    return "\n".join(lines)


def _bezier(pts: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out = [pts[0]]
    for i in range(0, len(pts) - 3, 3):
        p0, p1, p2, p3 = pts[i:i + 4]
        for k in range(1, BEZIER_STEPS + 1):
            t = k / BEZIER_STEPS
            a, b, c, d = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t ** 3
            out.append((a * p0[0] + b * p1[0] + c * p2[0] + d * p3[0],
                        a * p0[1] + b * p1[1] + c * p2[1] + d * p3[1]))
    return out


def parse_plain(text: str, model: GraphModel) -> Layout:
    """A Layout from `dot -Tplain` output (inches, y up -> px, y down)."""
    ids = [n.id for n in model.nodes]
    boxes, edges = {}, []
    height = width = 0.0
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "graph":
            width, height = float(f[2]) * 72, float(f[3]) * 72
        elif f[0] == "node":
            x, y, w, h = (float(v) * 72 for v in f[2:6])
            boxes[ids[int(f[1][1:])]] = (x - w / 2, height - y - h / 2, w, h)
        elif f[0] == "edge":
            n = int(f[3])
            raw = [(float(f[4 + 2 * k]) * 72, height - float(f[5 + 2 * k]) * 72) for k in range(n)]
            edges.append(EdgeRoute(ids[int(f[1][1:])], ids[int(f[2][1:])], None,
                                   tuple(_bezier(raw))))
    return Layout(boxes=boxes, edges=tuple(edges), width=width, height=height)


def dot_layout(model: GraphModel, node_size: NodeSize | None = None,
               timeout: float = 900.0) -> tuple[Layout, float]:
    """(layout, seconds dot took). Raises RuntimeError if dot is missing or fails."""
    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError("Graphviz dot is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "g.dot"
        src.write_text(to_dot(model, node_size))
        t = time.perf_counter()
        res = subprocess.run([exe, "-Tplain", str(src)], capture_output=True, text=True,
                             timeout=timeout)
        elapsed = time.perf_counter() - t
    if res.returncode != 0:
        raise RuntimeError(f"dot failed: {res.stderr.strip()[:200]}")
    return parse_plain(res.stdout, model), elapsed


def run_dot(model: GraphModel, timeout: float = 900.0) -> dict | None:
    """{"time_s", "crossings", "layout"} of dot on `model`; None if dot is not installed,
    fails or times out (it is only a reference, never a reason to fail a benchmark)."""
    if not dot_available():
        return None
    try:
        ref, secs = dot_layout(model, timeout=timeout)
    except (RuntimeError, subprocess.TimeoutExpired, OSError):
        return None
    return {"time_s": secs, "crossings": count_crossings(ref), "layout": ref}


def compare_with_dot(model: GraphModel, timeout: float = 900.0) -> dict:
    """Our layout vs dot on one graph: times and crossings (same counter). The dot_* keys
    are None when dot is not available."""
    t = time.perf_counter()
    ours = layout_graph(model)
    out: dict[str, Any] = {"nodes": len(model.nodes), "edges": len(model.edges),
           "ours_s": time.perf_counter() - t, "ours_crossings": count_crossings(ours),
           "dot_s": None, "dot_crossings": None, "crossing_ratio": None}
    ref = run_dot(model, timeout)
    if ref is not None:
        out["dot_s"], out["dot_crossings"] = ref["time_s"], ref["crossings"]
        out["crossing_ratio"] = out["ours_crossings"] / max(out["dot_crossings"], 1)
    return out
