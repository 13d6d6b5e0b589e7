"""`check --stages`: float → Q/DQ → the primary target's own numerics, node by node.

The target stage is what that target itself computes: "vpu" the integer simulation (the deployed
pass of vpu_core.intsim, every node), "xnnpack" ExecuTorch's XNNPACK runtime on this CPU (its
values inside the delegates, vpu_core.stagediff.runtime_taps). A target without numerics of its
own here gives the two stages float and qdq, with a note. Every figure sums over the held-aside
calls (the calls the SQNR and the integer simulation use).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vpu_core.analysis.qgraph import QGraph, is_op
from vpu_core.progress import ProgressFn
from vpu_core.stagediff.build import Accumulator
from vpu_core.stagediff.capture import converted_values, float_values, steps, value_node, vpu_setup
from vpu_core.stagediff.matching import match
from vpu_core.stagediff.results import StageDiff, Unmatched

if TYPE_CHECKING:
    from vpu_core.pipeline import QuantizedModel

NUMERIC_TARGETS = ("vpu", "xnnpack")


def check_stages(qm: QuantizedModel, target: str = "vpu", progress: ProgressFn | None = None,
                 arm: tuple[Any, Any] | None = None) -> StageDiff:
    """`arm`: (prepared graph, partitions) of an Arm target's lowering: its stage is the program
    with its TOSA partitions in the TOSA reference model (vpu_core.stagediff.tosa_stage)."""
    g = QGraph(qm.converted, qm.profile)
    notes: list[str] = []
    names = (["float"] if qm.float_graph is not None else []) + ["qdq"]
    if qm.float_graph is None:
        notes.append("the program was loaded already quantized: there is no float stage")
    vpu = runner = tosa = None
    placements: dict[str, dict[str, str]] = {}
    unmatched: list[Unmatched] = []
    coverage = None
    if target == "vpu":
        vpu, refused = vpu_setup(g)
        if refused is None:
            names.append("vpu")
            placements["vpu"] = {n: ("cpu" if p == "cpu" else f"vpu {p}") for n, p in vpu[0].items()}
        else:
            notes.append(f"no vpu stage: {refused}")
            vpu = None
    elif target == "xnnpack":
        from vpu_core.stagediff.runtime_taps import TapRunner, tapped_program

        tapped = tapped_program(qm)
        runner = TapRunner(tapped)
        names.append("xnnpack")
        placements["xnnpack"] = {n.name: (f"xnnpack {tapped.delegated[n.name]}" if n.name in tapped.delegated
                                          else "portable") for n in g.nodes if is_op(n)}
    elif arm is not None:
        from vpu_core.stagediff.tosa_stage import TosaStage

        tosa = TosaStage(*arm)
        names.append(target)
        placements[target] = {n.name: ("cpu" if n.name not in tosa.inside else "tosa") for n in g.nodes if is_op(n)}
        unmatched += [Unmatched(n.name, target, tosa.why_not(n)) for n in g.nodes if is_op(n) and not tosa.surfaces(n)]
    else:
        notes.append(f"{target} has no numerics of its own here yet: the stages end at the Q/DQ graph")
    pairs: dict = {}
    if qm.float_graph is not None:
        pairs, lost = match(qm.float_graph, qm.converted)
        unmatched += [Unmatched(n.name, "float", why) for n, why in lost]
        matched_names = set(pairs)
        unmatched += [Unmatched(n.name, "qdq", "no float op computes it (added when the graph was quantized)")
                      for n in g.nodes if is_op(n) and n.name not in matched_names]
    acc = Accumulator(names)
    calls = qm.heldout_calls
    seen_runtime: set[str] = set()
    for k, batch in enumerate(calls):
        if progress is not None:
            progress("stages", k / len(calls))
        floats = float_values(qm.float_graph, batch, {n.name for n in pairs.values()}) \
            if qm.float_graph is not None else {}    # (a float graph has no quantize: its ops are their values)
        runtime = runner.values(batch) if runner is not None else \
            tosa.values(batch, qm.converted) if tosa is not None else {}
        seen_runtime.update(runtime)
        reference = {op: floats[ref.name] for op, ref in pairs.items() if ref.name in floats}
        for op, qdq, deployed, local in converted_values(g, batch, vpu, reference if floats else None):
            values = {"qdq": qdq}
            ref = pairs.get(op.name)
            if ref is not None and ref.name in floats:
                values["float"] = floats[ref.name]
            if deployed is not None:
                values["vpu"] = deployed
            if op.name in runtime:
                values[names[-1]] = runtime[op.name]
            acc.add(op.name, values, {"qdq": local} if local is not None and "float" in names else None)
        acc.calls += 1
    if runner is not None:
        coverage, lost_ops = _runtime_coverage(g, runner.tapped.delegated, seen_runtime)
        unmatched += lost_ops
    if progress is not None:
        progress("stages", 1.0)
    return acc.summary(qm.converted, steps(g), placements, unmatched, notes, coverage)


def _runtime_coverage(g: QGraph, delegated: dict[str, int], valued: set[str]
                      ) -> tuple[tuple[int, int, int, int], list[Unmatched]]:
    """((delegated ops with a runtime value, delegated ops, XNNPACK operators whose output the
    runtime surfaced, operators), why the other ops have none). An op whose output is never
    quantized and whose one user is a delegated op is fused into that op's operator."""
    lost = []
    ops = [n for n in g.nodes if is_op(n)]
    fused = set()
    for n in ops:
        users = [u for u in n.users if is_op(u)]
        if value_node(n) is n and len(users) == 1 and n.name in delegated and users[0].name in delegated:
            fused.add(n.name)
        if n.name in valued:
            continue
        inside = "inside its delegate" if n.name in delegated else "outside the delegates"
        if n.name in fused:
            why = (f"fused: its output is never quantized; XNNPACK computes it with {users[0].name} as one "
                   "operator and never materialises it")
        elif value_node(n) is n:
            why = f"its output is never quantized: the runtime never materialises it ({inside})"
        else:
            why = f"its quantized output was not surfaced by the runtime ({inside})"
        lost.append(Unmatched(n.name, "xnnpack", why))
    inside_ops = [n.name for n in ops if n.name in delegated]
    operators = [n for n in inside_ops if n not in fused]
    return (sum(1 for n in inside_ops if n in valued), len(inside_ops),
            sum(1 for n in operators if n in valued), len(operators)), lost
