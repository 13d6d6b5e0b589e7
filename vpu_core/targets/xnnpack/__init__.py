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
    quantizer.py   its quantizer, ExecuTorch's XNNPACKQuantizer (`--quantizer xnnpack`)
"""
from vpu_core.quantizers import registry as quantizers
from vpu_core.quantizers.offers import HISTOGRAM, MINMAX, Offers
from vpu_core.targets.registry import TargetInfo, register

QUANTIZER = quantizers.register(quantizers.QuantizerInfo(
    name="xnnpack", title="ExecuTorch XNNPACKQuantizer", factory="vpu_core.targets.xnnpack.quantizer:make",
    offers=Offers("xnnpack", ("keep_float", "per_channel", "observer"), (HISTOGRAM, MINMAX),
                  per_channel_when="with --per-tensor"),
    preload=("executorch.backends.xnnpack.quantizer.xnnpack_quantizer",)))

INFO = register(TargetInfo(
    name="xnnpack", title="XNNPACK",
    description="ExecuTorch's XnnpackPartitioner: what it really delegates, lowered and run on this CPU.",
    implementation="vpu_core.targets.xnnpack.target:XnnpackTarget", quantizer="xnnpack",
    verdict_title="Lowering with ExecuTorch XNNPACK"))
