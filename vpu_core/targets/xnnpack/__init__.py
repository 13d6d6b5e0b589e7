"""The XNNPACK target: ExecuTorch's XnnpackPartitioner, its lowering and its runtime on this CPU.

Its verdict is what XnnpackPartitioner really delegates of the converted graph (every op it
leaves out says why, in XNNPACK's own terms); it has no estimate (its time is measured: `--run`).
Everything the project knows about XNNPACK is here; importing this package imports no torch.

    target.py      XnnpackTarget: verdict, run, export (.pte)
    lowering.py    the ONE lowering: export → to_edge_transform_and_lower(XnnpackPartitioner) → .pte,
                   int32 biases of VPU graphs folded to float (XNNPACK re-quantizes them exactly)
    delegation.py  the verdict: lowered nodes mapped back to the converted graph (provenance.py)
    why.py         why XnnpackPartitioner left an op out, in its configs' own words
    service.py     lower once (cached: store.py), run on every request (measure.py: latency, ETDump
                   per-op times through op_map.py and xnn_blob.py, SQNR, output digests)
"""
from vpu_core.targets.registry import TargetInfo, register

INFO = register(TargetInfo(
    name="xnnpack", title="XNNPACK",
    description="ExecuTorch's XnnpackPartitioner: what it really delegates, lowered and run on this CPU.",
    implementation="vpu_core.targets.xnnpack.target:XnnpackTarget", quantizer="xnnpack",
    verdict_title="Lowering with ExecuTorch XNNPACK"))
