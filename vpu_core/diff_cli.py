"""`vpu-inspector diff A B`: two programs of one model compared node by node (vpu_core.stagediff.programs).

A and B are model specs as `check` takes them (a zoo name, file.py[:callable], a .pt2 program);
each is quantized with --quantizer (B with --quantizer-b when given) unless it is a program that
is quantized already. "float:MODEL" takes that model's float graph instead (float vs quantized).
Both run on A's held-aside calls (--calib-data, else the model's example inputs).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import TYPE_CHECKING

from vpu_core.arguments import add_run_options, config_from_args
from vpu_core.errors import InspectorError

if TYPE_CHECKING:
    from vpu_core.stagediff.programs import ProgramDiff

FLOAT = "float:"


def add_diff_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("diff", help="two programs of one model node by node: structure, numerics, first divergent op")
    add_run_options(p)       # the model positional is A
    p.add_argument("model_b", metavar="B", help="the second model or program (float:MODEL for its float graph)")
    from vpu_core.quantizers import QUANTIZERS

    p.add_argument("--quantizer-b", choices=QUANTIZERS, default=None, help="B's quantizer (default: --quantizer)")
    p.add_argument("--format", choices=("text", "json"), default="text")


def cmd_diff(args: argparse.Namespace) -> int:
    base = config_from_args(args)
    sides = []
    for spec, quantizer in ((args.model, base.quantizer), (args.model_b, args.quantizer_b or base.quantizer)):
        want_float = spec.startswith(FLOAT)
        model = spec[len(FLOAT):] if want_float else spec
        sides.append((dataclasses.replace(base, model=model, quantizer=quantizer), want_float, spec))
    from vpu_core.preflight import preflight

    for config, _, _ in sides:
        for note in preflight(config):
            print(f"vpu-inspector: note: {note}", file=sys.stderr)
    from vpu_core.progress import RunContext, TerminalProgress
    from vpu_core.session import STAGE_TITLES, default_session
    from vpu_core.stagediff.programs import diff_programs, same_inputs

    terminal = TerminalProgress(STAGE_TITLES)
    try:
        qms = [default_session().quantized(config, RunContext(terminal)) for config, _, _ in sides]
    finally:
        terminal.close()
    graphs = []
    for qm, (_, want_float, spec) in zip(qms, sides):
        if want_float and qm.float_graph is None:
            raise InspectorError(f"{spec} has no float graph: it is a program that was quantized already.")
        graphs.append(qm.float_graph if want_float else qm.converted)
    same_inputs(tuple(qms[0].example_inputs), tuple(qms[1].example_inputs))
    result = diff_programs(graphs[0], graphs[1], qms[0].heldout_calls, qms[0].profile)
    labels = {"A": _label(sides[0]), "B": _label(sides[1])}
    if args.format == "json":
        print(json.dumps(diff_to_json(result, labels), indent=1))
    else:
        print("\n".join(diff_lines(result, labels)))
    return 0


def _label(side) -> str:
    config, want_float, spec = side
    return f"{spec} (float graph)" if want_float else f"{config.model} ({config.quantizer} quantizer)"


def diff_to_json(result: ProgramDiff, labels: dict[str, str]) -> dict:
    from vpu_core.reports.stages import stages_to_json

    return {"a": labels["A"], "b": labels["B"],
            "structure": {"added": [{"node": u.node, "why": u.why} for u in result.structure_added],
                          "removed": [{"node": u.node, "why": u.why} for u in result.structure_removed],
                          "changed": [{"node_a": c.node_a, "node_b": c.node_b, "module": c.module, "op": c.op,
                                       "qparams": {t: {"a": qa, "b": qb} for t, qa, qb in c.what}}
                                      for c in result.changed]},
            "stages": stages_to_json(result.stages)}


def diff_lines(result: ProgramDiff, labels: dict[str, str], limit: int = 60) -> list[str]:
    from vpu_core.reports.stages import stages_lines

    lines = [f"A: {labels['A']}", f"B: {labels['B']}",
             f"Structure: {len(result.structure_added)} op(s) only in B, {len(result.structure_removed)} only in A, "
             f"{len(result.changed)} matched op(s) with other qparams"]
    for c in result.changed[:limit]:
        lines.append(f"  {c.node_b} ({c.module or 'top level'} · {c.op}): " +
                     "; ".join(f"{t} {qa} → {qb}" for t, qa, qb in c.what))
    if len(result.changed) > limit:
        lines.append(f"  … {len(result.changed) - limit} more: --format json has them all")
    return lines + [""] + stages_lines(result.stages, limit)
