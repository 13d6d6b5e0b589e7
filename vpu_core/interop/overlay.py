"""A Model Explorer node-data file read back as an overlay on our graph (`check --overlay FILE`).

Any tool's per-node numbers in Model Explorer's format (a latency measured on the device by Arm's or
ExecuTorch's extensions, our own export) become values on our nodes: the single-graph form
{"results": {node id: {"value": …}}} or the multi-graph one {graph id: {"results": …}}. A node id is
one of ours (the converted graph's FX name) or one Model Explorer's PyTorch adapter gives our saved
program (vpu_core.interop.node_ids maps it back). Pure Python: the id map is passed in.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

from vpu_core.errors import InspectorError

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis

# The graph ids we look for in the multi-graph form: Model Explorer's PyTorch adapter names its one
# graph "graph"; our graph.json's is vpu_core.interop.graph_json.GRAPH_ID.
_GRAPH_IDS = ("graph", "vpu_inspector")


@dataclass(frozen=True)
class Overlay:
    """Per node of our graph, the value a node-data file gives it."""

    path: str
    name: str                            # the file's own name for it ("name"), else the file's stem
    values: dict                         # our node name -> float | str, in graph order
    unmatched: tuple[str, ...] = ()      # ids in the file that name no node of ours

    @property
    def numeric(self) -> bool:
        return all(isinstance(v, float) for v in self.values.values())


def read_results(path: str | Path) -> tuple[str, dict[str, object]]:
    """(name, {node id: value}) of a node-data file; InspectorError (one sentence) when it is none."""
    from vpu_core.paths import MISSING, input_problem, shown

    p = Path(path)
    problem = input_problem(path)       # a NUL, a folder, /dev/zero (read forever), no permission, …
    if problem == MISSING:
        raise InspectorError(f"Overlay file not found: {shown(p)}.")
    if problem:
        raise InspectorError(f"Cannot read the overlay file {shown(p)}: {problem}.")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InspectorError(f"Overlay file not found: {p}.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InspectorError(f"Cannot read the overlay file {p}: {exc}.") from None
    except ValueError as exc:
        raise InspectorError(f"The overlay file {p} is not JSON: {exc}.") from None
    graph = _graph_data(data, p)
    results = graph.get("results")
    if not isinstance(results, dict):
        raise InspectorError(f"The overlay file {p} is no Model Explorer node-data file: it has no \"results\" object.")
    values: dict[str, object] = {}
    for key, item in results.items():
        value = item.get("value") if isinstance(item, dict) else None
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise InspectorError(f"The overlay file {p} gives node {key!r} no number or text \"value\".")
        values[str(key)] = float(value) if isinstance(value, (int, float)) else value
    name = graph.get("name")
    return (name if isinstance(name, str) and name else p.stem), values


def _graph_data(data: object, p: Path) -> dict:
    """The GraphNodeData object of the file: itself, or one graph's of the multi-graph form."""
    if not isinstance(data, dict):
        raise InspectorError(f"The overlay file {p} is no Model Explorer node-data file: expected a JSON object.")
    if "results" in data:
        return data
    graphs = {k: v for k, v in data.items() if isinstance(v, dict) and "results" in v}
    if len(graphs) == 1:
        return next(iter(graphs.values()))
    for gid in _GRAPH_IDS:
        if gid in graphs:
            return graphs[gid]
    if not graphs:
        raise InspectorError(f"The overlay file {p} is no Model Explorer node-data file: it has no \"results\" object.")
    raise InspectorError(f"The overlay file {p} holds node data of {len(graphs)} graphs "
                         f"({', '.join(sorted(graphs))}) and none is ours ({' or '.join(_GRAPH_IDS)}).")


def overlay(path: str | Path, analysis: Analysis, adapter_ids: Callable[[], Mapping[str, str]]) -> Overlay:
    """The Overlay of the node-data file `path` on `analysis`' nodes. `adapter_ids()` (called only
    when some id is not one of our names): our name -> Model Explorer's id of our saved program."""
    name, results = read_results(path)
    ours: dict[str, object] = {}
    rest = [k for k in results if k not in analysis.nodes]
    back = {me: n for n, me in adapter_ids().items()} if rest else {}
    unmatched = []
    for key, value in results.items():
        node = key if key in analysis.nodes else back.get(key)
        if node is None:
            unmatched.append(key)
        else:
            ours[node] = value
    if not ours:
        shown = ", ".join(repr(k) for k in list(results)[:3])
        raise InspectorError(f"None of the {len(results)} node ids in {path} ({shown}{', …' if len(results) > 3 else ''}) "
                             f"names a node of {analysis.model}'s graph: was it written for another program?"
                             if results else f"The overlay file {path} gives no node a value.")
    order = {n: i for i, n in enumerate(analysis.nodes)}
    values = {n: ours[n] for n in sorted(ours, key=order.__getitem__)}
    return Overlay(str(path), name, values, tuple(unmatched))


def overlay_lines(ov: Overlay, analysis: Analysis) -> list[str]:
    """The text report's section: the file, how many nodes it covers, each node's value."""
    from vpu_core.formatting import op_label

    head = f"Overlay {ov.name!r} ({Path(ov.path).name}): values on {len(ov.values)} of {len(analysis.nodes)} nodes"
    if ov.unmatched:
        head += f"; {len(ov.unmatched)} ids name no node of ours ({', '.join(ov.unmatched[:3])}{', …' if len(ov.unmatched) > 3 else ''})"
    width = max((len(n) for n in ov.values), default=0)
    lines = [head]
    for node, value in ov.values.items():
        info = analysis.nodes[node]
        shown = _number(value) if isinstance(value, float) else str(value)
        lines.append(f"  {node:<{width}}  {shown:>12}  {op_label(info.op) if info.kind == 'call_function' else info.kind}")
    if ov.numeric and ov.values:
        nums = [float(v) for v in ov.values.values()]
        lines.append(f"  sum {_number(sum(nums))}, max {_number(max(nums))} ({max(ov.values, key=lambda n: ov.values[n])})")
    return lines


def overlay_json(ov: Overlay) -> dict:
    return {"file": ov.path, "name": ov.name, "nodes": len(ov.values), "unmatched": list(ov.unmatched),
            "values": {n: (v if not isinstance(v, float) or math.isfinite(v) else None) for n, v in ov.values.items()}}


def _number(v: float) -> str:
    return f"{v:.4g}" if abs(v) < 1e5 else f"{v:.3e}"
