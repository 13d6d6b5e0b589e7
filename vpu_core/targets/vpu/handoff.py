"""The VPU target's export (`vpu-inspector export --target vpu`): what leaves the inspector for a
deployment team of the VPU.

    session.export(config, "out")     # out/ is a hand-off folder (XNNPACK's export is a .pte)

A folder with `manifest.json` (manifest.py: every VPU subgraph with its ops in order and their
kernels, int8 tensors with their 2^k scales as shift counts, the requant shift per output,
boundaries with shapes and bytes) and `weights.npz` (int8 weights and int32 biases, no pickle). A graph whose VPU subgraphs need what a shift-only VPU cannot do (a
non power-of-two scale, a float bias) is refused with one sentence naming the rule and node.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from vpu_core.errors import InspectorError
from vpu_core.targets.results import Exported

if TYPE_CHECKING:
    from vpu_core.targets.protocol import TargetJob


def export_handoff(job: TargetJob, output: Path) -> Exported:
    """The VPU target's export: the hand-off folder (manifest.json + weights.npz)."""
    import numpy as np

    from vpu_core.targets.vpu.manifest import WEIGHTS_FILE, build_manifest

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
