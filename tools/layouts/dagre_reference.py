"""dagre (Netron's layout engine) as a speed and quality reference, like `dot_reference`.

Optional and never a dependency: used only when `node` is on the PATH and the dagre package can
be required from the folder in $VPU_INSPECTOR_DAGRE_DIR (a folder where `npm install
@dagrejs/dagre` or `npm install dagre` ran), or from node's own search path. The graph goes to
node as JSON with the same node sizes and separations as ours; node times `dagre.layout` alone
(not its start-up nor the JSON), returns the node centres and edge points, and the crossings are
counted with our `metrics.count_crossings`, so the numbers compare with ours and with dot's.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from vpu_core.graph.model import GraphModel

from vpu_core.layout.metrics import count_crossings
from vpu_core.layout.types import NODE_SEP, RANK_SEP, EdgeRoute, Layout, NodeSize, default_node_size

ENV_DIR = "VPU_INSPECTOR_DAGRE_DIR"

_RUNNER = r"""
const fs = require("fs");
let dagre;
for (const name of ["@dagrejs/dagre", "dagre"]) {
  try { dagre = require(name); break; } catch (e) {}
}
if (!dagre) { console.error("dagre not found"); process.exit(3); }
const args = process.argv.slice(1);   // node -e: argv[0] is node itself
const data = JSON.parse(fs.readFileSync(args[0], "utf8"));
const g = new dagre.graphlib.Graph({ multigraph: false });
g.setGraph({ rankdir: "TB", nodesep: data.nodesep, ranksep: data.ranksep, edgesep: 10 });
g.setDefaultEdgeLabel(() => ({}));
data.nodes.forEach((n, i) => g.setNode(String(i), { width: n[0], height: n[1] }));
data.edges.forEach(([s, t]) => g.setEdge(String(s), String(t)));
const t0 = performance.now();
dagre.layout(g);
const seconds = (performance.now() - t0) / 1000;
const nodes = data.nodes.map((_, i) => { const n = g.node(String(i)); return [n.x, n.y]; });
const edges = data.edges.map(([s, t]) => g.edge(String(s), String(t)).points.map(p => [p.x, p.y]));
fs.writeFileSync(args[1], JSON.stringify({ seconds, nodes, edges }));
"""


def _env() -> dict:
    env = dict(os.environ)
    folder = os.environ.get(ENV_DIR)
    if folder:
        modules = str(Path(folder) / "node_modules")
        env["NODE_PATH"] = os.pathsep.join(p for p in (modules, env.get("NODE_PATH", "")) if p)
    return env


STACK_KB = 400_000      # dagre recurses once per node of a long path: 5k-node graphs overflow
                        # node's default stack, so node gets a big one (and the OS limit lifted)


def _unlimited_stack() -> None:
    import resource

    try:
        resource.setrlimit(resource.RLIMIT_STACK, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    except (ValueError, OSError):
        pass


def _node_run(args: list[str], timeout: float) -> subprocess.CompletedProcess:
    exe = shutil.which("node")
    if exe is None:
        raise RuntimeError("node is not installed")
    return subprocess.run([exe, f"--stack-size={STACK_KB}", "-e", _RUNNER, "--", *args],
                          capture_output=True, text=True, timeout=timeout, env=_env(),
                          preexec_fn=_unlimited_stack if os.name == "posix" else None)


def to_json(model: GraphModel, node_size: NodeSize | None = None) -> dict:
    """The graph as dagre gets it: node sizes in model order, edges as index pairs."""
    size = node_size or default_node_size
    index = {n.id: i for i, n in enumerate(model.nodes)}
    edges = sorted({(index[e.src], index[e.dst]) for e in model.edges
                    if e.src in index and e.dst in index and e.src != e.dst})
    return {"nodes": [list(size(n)) for n in model.nodes], "edges": [list(e) for e in edges],
            "nodesep": NODE_SEP, "ranksep": RANK_SEP}


def dagre_layout(model: GraphModel, node_size: NodeSize | None = None,
                 timeout: float = 1800.0) -> tuple[Layout, float]:
    """(layout, seconds dagre.layout took). Raises RuntimeError when node or dagre is missing."""
    data = to_json(model, node_size)
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "g.json", Path(tmp) / "out.json"
        src.write_text(json.dumps(data))
        res = _node_run([str(src), str(dst)], timeout)
        if res.returncode != 0 or not dst.exists():
            raise RuntimeError(f"dagre failed: {res.stderr.strip()[:200]}")
        out = json.loads(dst.read_text())
    ids = [n.id for n in model.nodes]
    boxes = {}
    for nid, (w, h), (x, y) in zip(ids, data["nodes"], out["nodes"]):
        boxes[nid] = (x - w / 2.0, y - h / 2.0, w, h)
    edges = tuple(EdgeRoute(ids[s], ids[t], None, tuple((float(x), float(y)) for x, y in pts))
                  for (s, t), pts in zip(data["edges"], out["edges"]))
    width = max((x + w for x, _, w, _ in boxes.values()), default=0.0)
    height = max((y + h for _, y, _, h in boxes.values()), default=0.0)
    return Layout(boxes=boxes, edges=edges, width=width, height=height), float(out["seconds"])


def run_dagre(model: GraphModel, timeout: float = 1800.0) -> dict | None:
    """{"time_s", "crossings", "layout"} of dagre on `model`; None when node or dagre is missing,
    fails or times out (a reference only, never a reason to fail a benchmark)."""
    if shutil.which("node") is None:
        return None
    try:
        ref, secs = dagre_layout(model, timeout=timeout)
    except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError):
        return None
    return {"time_s": secs, "crossings": count_crossings(ref), "layout": ref}
