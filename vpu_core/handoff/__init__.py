"""`vpu-inspector export`: what leaves the inspector for a deployment team.

    session.export(config, "out")     # XNNPACK: out is a .pte; VPU: out/ is a hand-off folder

Each target exports its own artefact (Target.export, through Session.export; `--target`, by
default the target that offers the run's quantizer): the VPU's and XNNPACK's are written here.

- `--target xnnpack`: the ExecuTorch program `check --run` runs (vpu_core.runtime.lowering),
  written as it is: `executorch.runtime.Runtime.get().load_program(path)` runs it anywhere
  ExecuTorch with XNNPACK is installed.
- `--target vpu`: a folder with `manifest.json` (vpu_core.handoff.manifest: every VPU subgraph
  with its ops in order and their kernels, int8 tensors with their 2^k scales as shift counts, the
  requant shift per output, boundaries with shapes and bytes) and `weights.npz` (int8 weights and
  int32 biases, no pickle). A graph whose VPU subgraphs need what a shift-only VPU cannot do (a
  non power-of-two scale, a float bias) is refused with one sentence naming the rule and node.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from vpu_core.errors import InspectorError

if TYPE_CHECKING:
    from vpu_core.targets.protocol import TargetJob


@dataclass(frozen=True)
class Exported:
    path: str
    kind: str                 # "pte" | "handoff"
    bytes: int
    detail: str               # one line for the terminal


def export_pte(job: TargetJob, output: Path) -> Exported:
    """The XNNPACK target's export: the lowered program `--run` runs, as a .pte."""
    from vpu_core.files import SaveError, atomic_write, check_output_path
    from vpu_core.runtime.service import program_bytes

    check_output_path(output, (".pte",), "the ExecuTorch program")
    lowered = program_bytes(job)
    try:
        atomic_write(output, lambda tmp: Path(tmp).write_bytes(lowered.buffer))
    except OSError as exc:
        raise SaveError(f"Cannot write the program to {output}: {exc.strerror or exc}.") from None
    inputs = ", ".join(f"{i['name']} {i['dtype']}[{', '.join(map(str, i['shape']))}]"
                       for i in lowered.meta.get("inputs", []))
    return Exported(str(output), "pte", len(lowered.buffer),
                    f"{len(lowered.op_map.delegates)} XNNPACK delegate(s); inputs: {inputs}")


def export_handoff(job: TargetJob, output: Path) -> Exported:
    """The VPU target's export: the hand-off folder (manifest.json + weights.npz)."""
    import numpy as np

    from vpu_core.handoff.manifest import WEIGHTS_FILE, build_manifest

    if output.suffix.lower() == ".pte":
        raise InspectorError(f"Cannot write {output}: a .pte is the ExecuTorch program of the XNNPACK "
                             "quantizer (add --quantizer xnnpack); the VPU quantizer exports a hand-off folder.")
    if output.exists() and not output.is_dir():
        raise InspectorError(f"Cannot write the VPU hand-off to {output}: it is a file, not a folder.")
    if not output.parent.is_dir():
        raise InspectorError(f"Cannot write the VPU hand-off to {output}: the folder {output.parent} "
                             "does not exist.")
    analysis = job.analysis()
    qm = job.quantized()
    _refuse_unshiftable(qm, analysis)
    manifest, arrays = build_manifest(qm, analysis)
    output.mkdir(exist_ok=True)
    from vpu_core.files import atomic_write

    atomic_write(output / WEIGHTS_FILE, lambda tmp: np.savez(tmp, **arrays))
    text = json.dumps(manifest, indent=1)
    atomic_write(output / "manifest.json", lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    size = len(text.encode()) + (output / WEIGHTS_FILE).stat().st_size
    ops = sum(len(s["ops"]) for s in manifest["subgraphs"])
    return Exported(str(output), "handoff", size,
                    f"{len(manifest['subgraphs'])} VPU subgraph(s), {ops} op(s), {len(arrays)} constant tensor(s)")


def _refuse_unshiftable(qm, analysis) -> None:
    from vpu_core.analysis.qgraph import QGraph
    from vpu_core.intsim.prereq import refusal

    if qm.config.quantizer != "vpu":
        raise InspectorError("A VPU hand-off is made from the VPU quantizer's graph: use --quantizer vpu.")
    found = refusal(QGraph(qm.converted, qm.profile), analysis.partition.assignment)
    if found is not None:
        raise InspectorError(found.sentence.replace("Integer simulation needs", "A VPU hand-off needs", 1))
