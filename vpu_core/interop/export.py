"""`export MODEL --format model-explorer -o DIR`: the quantized program and what we computed about
it, for Google's Model Explorer (ai-edge-model-explorer).

DIR/program.pt2      the converted Q/DQ program (torch.export.save; Model Explorer's own PyTorch
                     adapter opens it: `import torchao` registers its quantize ops, and the adapter
                     imports executorch, which does); a dynamic-batch one at its example batch
DIR/graph.json       our folded, grouped view in Model Explorer's graph format (interop.graph_json)
DIR/<overlay>.json   one node-data file per overlay (interop.node_data), keyed by the ids the
                     adapter gives program.pt2 (interop.node_ids): each target's placement (the
                     primary first), rule violations, scales, requant shifts, layer SQNR, pow2
                     rounding loss, boundary bytes, Vela's NPU cycles (Ethos-U targets), measured
                     µs (with a run)

`command` opens it all: `model-explorer DIR/program.pt2,DIR/graph.json --node_data_paths …`.
"""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from vpu_core.errors import InspectorError
from vpu_core.files import atomic_write
from vpu_core.progress import NO_CONTEXT, RunContext

if TYPE_CHECKING:
    from vpu_core.config import RunConfig
    from vpu_core.session import Session

PROGRAM, GRAPH = "program.pt2", "graph.json"


@dataclass(frozen=True)
class ModelExplorerExport:
    """What `export --format model-explorer` wrote."""

    folder: str
    program: str                    # the .pt2 path
    graph_json: str
    node_data: tuple[str, ...]      # the node-data files, the primary target's placement first
    nodes: int                      # node ids of the program (Model Explorer's adapter's)
    command: str                    # one line that opens them all in Model Explorer


def export_model_explorer(session: Session, config: RunConfig, folder: str | Path,
                          targets: Sequence[str] = ("vpu",), runs: int | None = None,
                          ctx: RunContext = NO_CONTEXT) -> ModelExplorerExport:
    """Write DIR (created if missing) for `config`; `targets` judged, the first the primary one;
    `runs`: also run the program on this CPU that many times (the measured-µs overlay)."""
    import torch

    from vpu_core.interop import graph_json, node_data
    from vpu_core.interop.node_ids import adapter_ids
    from vpu_core import targets as registry

    out = Path(folder)
    if out.exists() and not out.is_dir():
        raise InspectorError(f"Cannot write to {out}: it is a file, and --format model-explorer writes a folder.")
    out.mkdir(parents=True, exist_ok=True)
    names = tuple(dict.fromkeys(targets or ("vpu",)))
    inspection = session.inspect(config, view=None, ctx=ctx, targets=names, runtime_runs=runs)
    analysis, judged, attached = inspection.analysis, inspection.targets, inspection.attached
    program = out / PROGRAM
    save_for_model_explorer(session, config, program)
    loaded = torch.export.load(str(program))
    ids = adapter_ids(session.quantized(config).converted, loaded)
    # nodes the saved program has and our graph has not (torch.export's dtype asserts)
    added = [n.name for n in loaded.graph_module.graph.nodes if n.name not in set(ids.values())]
    files = [node_data.placement(analysis, name, registry.info(name).title, ids, attached.delegation, judged,
                                 added) for name in names]
    files += [node_data.violations(analysis, ids), node_data.scales(analysis, ids)]
    files += _metrics(analysis, judged, attached.runtime, ids)
    written = []
    for f in files:
        path = out / f"{f.stem}.json"
        _write_json(path, f.data)
        written.append(str(path))
    graph = out / GRAPH
    _write_json(graph, graph_json.graph_collection(analysis, ids, names[0], registry.info(names[0]).title,
                                                   attached.delegation, judged))
    command = "model-explorer " + shlex.quote(f"{program},{graph}") + " --node_data_paths " + \
        shlex.quote(",".join(written))
    return ModelExplorerExport(str(out), str(program), str(graph), tuple(written), len(set(ids.values())) + len(added),
                               command)


def _metrics(analysis, judged, runtime, ids) -> list:
    """The per-node metric overlays with values: ours, an Ethos-U target's NPU cycles, a run's µs."""
    from vpu_core.graph.metrics import node_metrics
    from vpu_core.interop import node_data

    measured = runtime.op_us() if runtime is not None and not runtime.refused else {}
    values = node_metrics(analysis, measured)
    files = [node_data.metric(key, values[key], ids)
             for key in ("sqnr", "shift", "pow2_loss", "boundary_bytes", "measured_us") if values[key]]
    for name, result in judged.items():
        cycles = node_metrics(analysis, judged=result)["npu_cycles"]
        if cycles:
            files.append(node_data.metric("npu_cycles", cycles, ids, stem=f"npu_cycles_{name.replace('-', '_')}",
                                          title=f"{result.title} NPU cycles (Vela estimate)"))
    return files


def _write_json(path: Path, data: dict) -> None:
    text = json.dumps(data, indent=1, ensure_ascii=False)
    atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def adapter_id_map(session: Session, config: RunConfig) -> dict[str, str]:
    """our node name -> the id Model Explorer's PyTorch adapter gives that node of `config`'s saved
    program (saved to a temporary folder and loaded back, as the adapter loads it)."""
    import tempfile

    import torch

    from vpu_core.interop.node_ids import adapter_ids

    with tempfile.TemporaryDirectory(prefix="vpu-inspector-ids-") as tmp:
        path = Path(tmp) / PROGRAM
        save_for_model_explorer(session, config, path)
        return adapter_ids(session.quantized(config).converted, torch.export.load(str(path)))


def save_for_model_explorer(session: Session, config: RunConfig, path: Path) -> None:
    """The converted program as `--save-program` saves it, but a dynamic-batch one at its example
    batch: Model Explorer 0.1.34's adapter fails on a symbolic shape among a node's several
    outputs ("Object of type SymInt is not JSON serializable"), and a picture needs no symbol."""
    import dataclasses

    from vpu_core.pipeline.program_file import save_program

    qm = session.quantized(config)
    if qm.config.dynamic_batch:
        qm = dataclasses.replace(qm, config=dataclasses.replace(qm.config, dynamic_batch=False))
    save_program(qm, path)
