"""The Arm targets: ExecuTorch's Arm backend judging the converted graph, Ethos-U NPUs through Vela.

One package, several registered targets (configs.ARM_TARGETS): `ethos-u55-128`, `ethos-u55-256`,
`ethos-u65-256`, `ethos-u85-128`, `ethos-u85-256` (EthosUPartitioner, each partition compiled by
Vela for that accelerator configuration) and `tosa-int` (TOSAPartitioner for the TOSA-1.0 INT
profile, no Vela). They need ethos-u-vela and tosa-tools (`pip install 'vpu-inspector[ethos-u]'`);
without them choosing one is refused in one sentence. Importing this package imports no torch.

    configs.py       the targets as data (accelerator, TOSA spec, Vela's default system config)
    target.py        ArmTarget: verdict, estimate, run, export (the Target protocol)
    graph_prep.py    the exact rewrites any quantizer's graph needs before the Arm backend reads it
    recording.py     the Arm partitioner composed with a reporter that keeps every reason as data,
                     and one artifact folder per partition
    lowering.py      ExecuTorch's Arm ahead-of-time flow on the converted graph (TOSA, Vela), timed by stage
    shared.py        another Ethos-U configuration of the same TOSA subset: the lowering reused, Vela again
    verdict.py       node by node from the final lowered program, reasons from the partitioner
    vela_report.py   Vela's per-operation cycles, MACs and memory on the graph's nodes
    cpu_cost.py      the CPU side of an Ethos-U program measured here, beside Vela's NPU time
    tosa_numerics.py the TOSA partitions run in the TOSA reference model, against the Q/DQ graph
    export.py        the .pte with the TOSA files and Vela's reports beside it
    results.py       the frozen results (VelaEstimate, TosaNumerics, ArmSplit)
    quantizer.py     its quantizer, EthosUQuantizer (`--quantizer ethos-u`, `ethos-u-a16w8`)
"""
from vpu_core.extras import ARM_PACKAGES
from vpu_core.quantizers import registry as quantizers
from vpu_core.quantizers.offers import Offers
from vpu_core.targets.arm.configs import ARM_TARGETS
from vpu_core.targets.registry import TargetInfo, register

# EthosUQuantizer offers an op in float, or an op in its a16w8 config (int16 activations); with
# that config everywhere ("ethos-u-a16w8"), float only. It needs the TOSA tools, not Vela.
_NEEDS = tuple((m, p) for m, p in ARM_PACKAGES.items() if m != "ethosu.vela")
QUANTIZERS = tuple(quantizers.register(quantizers.QuantizerInfo(
    name=name, title="ExecuTorch Arm EthosUQuantizer" + (" (a16w8)" if wide else ""),
    factory="vpu_core.targets.arm.quantizer:make", preload=("executorch.backends.arm.quantizer",),
    offers=(Offers(name, ("keep_float",), ()) if wide
            else Offers(name, ("keep_float", "wide_activation"), (), wide_dtype="int16")),
    requires=_NEEDS, extra="ethos-u")) for name, wide in (("ethos-u", False), ("ethos-u-a16w8", True)))

INFOS = {c.name: register(TargetInfo(
    name=c.name, title=c.title, description=c.description,
    implementation=f"vpu_core.targets.arm.target:{c.name}", quantizer="ethos-u",
    verdict_title=("Lowering with ExecuTorch's Arm backend and Vela" if c.uses_vela
                   else "Lowering with ExecuTorch's Arm backend (TOSA)"),
    result_modules=("vpu_core.targets.arm.results",), static_shapes=True, reads_profile=False,
    accelerator="NPU" if c.uses_vela else "TOSA",
    requires=tuple((m, p) for m, p in ARM_PACKAGES.items() if c.uses_vela or m != "ethosu.vela"),
    extra="ethos-u")) for c in ARM_TARGETS.values()}
