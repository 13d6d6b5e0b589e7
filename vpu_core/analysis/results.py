"""What the analysis produces: small frozen dataclasses of plain values.

This is the boundary between the core and everything that displays it (CLI text/JSON, the GUI,
the HTML report). No torch objects cross it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from vpu_core.hardware.limits import BY_ID
from vpu_core.stages import TimingKey


# Where a partition puts a node: the id of an accelerator subgraph (a VPU subgraph, a target's
# delegate or partition) or the CPU. PartitionReport.assignment maps every node to one.
Placement = int | Literal["cpu"]
# An op's side of a partition, coarsely: inside some accelerator subgraph, or on the CPU.
RunsOn = Literal["vpu", "cpu"]
BoundaryDirection = Literal["vpu->cpu", "cpu->vpu"]     # a boundary edge leaves or enters a subgraph


NoteKind = Literal["extreme_scale", "kept_float", "calibration"]     # Note.kind
TensorKind = Literal["activation", "weight", "bias"]                  # what a quantized tensor is
# a requantization site: conv / linear, an op sharing one scale (add / cat / pool with differing
# scales), an average pool (its 1/window in the multiplier)
RequantKind = Literal["weighted", "shared", "avg_pool"]
NodeKind = Literal["placeholder", "call_function", "call_module", "call_method", "get_attr", "output"]   # fx opcode


@dataclass(frozen=True)
class RuleInfo:
    """Everything said about one rule, declared once in its module (vpu_core.analysis.rules.*)."""

    id: str            # stable id, e.g. "pow2_scale"; also its switch in a profile: constraints.<id>
    constraint: int    # number of the constraint in docs/spec.md (2..8)
    title: str
    reason: str        # why the hardware wants it (shown to users)
    short: str = ""    # a label for narrow tables ("pow2"); "" reads as the id
    name: str = ""     # what-if: a short name that reads in a sentence ("pow2 scales")
    verb: str = "costs"  # … and the verb that agrees with it ("pow2 scales cost 3.6 dB")
    int_sim_need: str = ""  # completes "Integer simulation needs …" ("" when it does not need it)


@dataclass(frozen=True)
class Violation:
    rule: str          # RuleInfo.id
    node: str          # fx node name the violation is reported on
    message: str       # one sentence with the offending values
    values: tuple = () # (key, value) pairs of the offending values, e.g. (("scale", 0.0273),)


@dataclass(frozen=True)
class Note:
    """Something about the run a user must know that is no rule violation: a scale no int8 grid
    can use (vpu_core.analysis.extreme), an op the VPU quantizer left in float for that reason,
    calibration data that carries no range (all zero)."""

    kind: NoteKind
    node: str          # the graph node it is about ("" for the run as a whole)
    message: str       # one sentence
    values: tuple = () # (key, value) pairs, e.g. (("scale", 1.33e36),)


@dataclass(frozen=True)
class RuleResult:
    rule: RuleInfo
    enabled: bool      # switched on in the hardware profile
    violations: int


@dataclass(frozen=True)
class Subgraph:
    id: int
    nodes: tuple[str, ...]


# Why the simulated VPU runs an op on the CPU (CpuNode.cause of its partition), in report order.
VpuCause = Literal["op_list", "dtype", "limit", "memory", "float"]
CAUSES: tuple[VpuCause, ...] = get_args(VpuCause)
# Why the real XNNPACK delegation (PartitionReport.source "xnnpack") left an op on the CPU
# (vpu_core.targets.xnnpack.why): "dtype" as above, or one of XNNPACK_CAUSES.
XnnpackCause = Literal["dtype", "no_kernel", "rejected", "left_out", "removed"]
XNNPACK_CAUSES: tuple[XnnpackCause, ...] = ("no_kernel", "rejected", "left_out", "removed")
# Every word a target's verdict gives for an op on the CPU: the VPU's, XNNPACK's and the Arm
# targets' own ("unsupported", "shape", "partition": targets.arm.results.ArmCause, a subset that
# mypy holds to this one where the Arm verdict builds its CpuNodes). A target with a new word
# adds it here.
CpuCause = VpuCause | XnnpackCause | Literal["unsupported", "shape", "partition"]


@dataclass(frozen=True)
class LimitFailure:
    """One per-op limit of the profile that a node breaks (vpu_core.hardware.limits)."""

    limit: str         # "conv2d.kernel_max" (op table + key), "memory.sram_bytes"
    value: object      # the offending value: an int, or (kH, kW) for a pair
    bound: object      # the profile's bound: an int, a pair, or a groups setting
    text: str          # "kernel 7×7 > 3×3"

    @property
    def sentence(self) -> str:
        """"kernel 7×7 > 3×3 (conv2d.kernel_max)"."""
        return f"{self.text} ({self.limit})"

    @property
    def cause(self) -> Literal["memory", "limit"]:
        return "memory" if self.limit.startswith("memory.") else "limit"


@dataclass(frozen=True)
class CpuNode:
    node: str
    op: str            # ATen op without "aten.", e.g. "softmax.int"
    reason: str
    cause: CpuCause = "op_list"        # one of CAUSES (XNNPACK_CAUSES in a delegation report, …)
    limits: tuple[LimitFailure, ...] = ()   # cause "limit" / "memory": every failing limit, in
                                       # the fixed order of vpu_core.hardware.limits.LIMITS
    runs_as: str = ""                  # an alias: "runs as the VPU's linear kernel (addmm …)"
    macs: int = 0                      # its multiply-accumulates (vpu_core.analysis.macs), on the CPU
    detail: tuple = ()                 # (key, value) pairs; the real XNNPACK delegation: what
                                       # XNNPACK said (config, check, lowered_ops, dtypes)

    @property
    def limit(self) -> str | None:
        """The first failing limit ("conv2d.kernel_max"), None unless cause is limit / memory."""
        return self.limits[0].limit if self.limits else None


@dataclass(frozen=True)
class Boundary:
    src: str
    dst: str
    direction: BoundaryDirection
    bytes: int
    shape: tuple[int, ...] = ()
    dtype: str = ""


@dataclass(frozen=True)
class PartitionReport:
    profile: str                       # profile name
    vpu_ops: tuple[str, ...]
    subgraphs: tuple[Subgraph, ...]
    cpu_nodes: tuple[CpuNode, ...]
    boundaries: tuple[Boundary, ...]
    transfer_bytes: int
    assignment: dict[str, Placement] = field(default_factory=dict)  # every node name -> its Placement
    source: str = "simulated"          # "simulated" (VPU op list) | "xnnpack" (real ExecuTorch delegation)
    lowered_counts: dict = field(default_factory=dict)  # xnnpack: node counts of the lowered graph
                                       # ("delegated_subgraphs", "delegated_nodes", "non_delegated_nodes")
    aliases: dict = field(default_factory=dict)  # node name -> "runs as the VPU's linear kernel
                                       # (addmm with a constant weight)", for every aliased op

    @property
    def fallback_nodes(self) -> tuple[CpuNode, ...]:
        """The ops that really run on the CPU: every CpuNode but those folded away while lowering
        (cause "removed": the lowered program has no op left for them, so they run nowhere)."""
        return tuple(c for c in self.cpu_nodes if c.cause != "removed")

    @property
    def removed_nodes(self) -> tuple[CpuNode, ...]:
        """Ops folded away while lowering (cause "removed"): neither on the accelerator nor the CPU."""
        return tuple(c for c in self.cpu_nodes if c.cause == "removed")

    def cpu_ops_by_cause(self) -> dict[CpuCause, int]:
        """Every cause of CAUSES with its number of CPU ops (0 included), in that order."""
        counts: dict[CpuCause, int] = {cause: 0 for cause in CAUSES}
        for c in self.cpu_nodes:
            counts[c.cause] = counts.get(c.cause, 0) + 1
        return counts

    def failing_limits(self) -> dict[str, list]:
        """limit id -> the offending values of the CPU ops that break it (each op under every
        limit it breaks), in the fixed limit order of hardware.limits."""
        out: dict[str, list] = {}
        for c in self.cpu_nodes:
            for f in c.limits:
                out.setdefault(f.limit, []).append(f.value)
        order = list(BY_ID)
        return {k: out[k] for k in sorted(out, key=order.index)}

    def boundary_tensors(self) -> dict[int, dict[tuple[str, str], int]]:
        """subgraph -> {(direction, tensor): bytes}: each tensor entering ("cpu->vpu") or leaving
        a VPU subgraph counted once (whatif.economics and the timing model account this way)."""
        out: dict[int, dict[tuple[str, str], int]] = {}
        for b in self.boundaries:
            sub = self.assignment[b.dst] if b.direction == "cpu->vpu" else self.assignment[b.src]
            if sub != "cpu":                 # always: a boundary's other end is in a subgraph
                out.setdefault(sub, {})[(b.direction, b.src)] = b.bytes
        return out


@dataclass(frozen=True)
class Summary:
    """The headline numbers: how much of the model the VPU really runs."""

    macs_total: int                    # multiply-accumulates of the whole model, from shapes
    macs_vpu: int                      # of those, in ops placed on the VPU
    weights_total: int                 # weight tensors of conv / linear ops and their aliases
    weights_quantized: int             # of those, read through a dequantize (int8 in the graph)
    weighted_on_vpu: int               # conv / linear ops (and aliases) placed on the VPU
    cpu_ops_by_cause: dict = field(default_factory=dict)   # cause -> count (CAUSES, 0 included)
    node_macs: dict = field(default_factory=dict)   # op name -> its MACs (ops with any): what any
                                       # target's share of the model counts (vpu_core.reports.headline)

    @property
    def vpu_mac_share(self) -> float:
        """Fraction of the model's MACs on the VPU (0.0 for a model without any MAC)."""
        return self.macs_vpu / self.macs_total if self.macs_total else 0.0


@dataclass(frozen=True)
class RequantSite:
    node: str                          # the conv/linear (or other requantizing op)
    shifts: tuple[int, ...] | None     # n per output channel when every M is exactly 2^-n
    exact: bool
    nearest_shifts: tuple[int, ...]    # round(-log2 M) per channel, always present
    max_rel_error: float               # max |M - 2^-n| / M over channels (0 when exact)
    out_of_range: bool                 # some n outside the profile's [min_shift, max_shift]
    s_in: float = 0.0
    s_w: tuple[float, ...] = ()
    s_out: float = 0.0
    kind: RequantKind = "weighted"
    input_scales: tuple[float, ...] = ()  # shared / avg_pool sites: one scale (and one shift) per input
    window: int = 1                    # avg_pool: values summed per output (M includes 1/window)


@dataclass(frozen=True)
class TensorQParams:
    node: str                          # the quantize / dequantize node (or weight) it belongs to
    kind: TensorKind
    dtype: str                         # "int8" | "int32" | …
    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    consumer: str = ""                 # the op that reads it (weights / bias), or the producer (activations)
    float_scales: tuple[float, ...] = ()  # before power-of-two rounding (VPU quantizer only)


@dataclass(frozen=True)
class Histogram:
    edges: tuple[float, ...]           # len(counts) + 1 bin edges
    counts: tuple[int, ...]


@dataclass(frozen=True)
class QuantParams:
    """The parameters of one quantize / dequantize node, as numbers (vpu_core.formatting shows them)."""

    scales: tuple[float, ...]          # () when the scale is computed at run time (unreadable)
    zero_points: tuple[int, ...]
    dtype: str                         # "int8", "int32", …
    quant_min: int
    quant_max: int
    axis: int | None = None            # the channel axis of a per-channel Q/DQ; None = per-tensor

    @property
    def per_channel(self) -> bool:
        return self.axis is not None


@dataclass(frozen=True)
class OpArgument:
    """One argument of an op, named by the op's schema ("stride", "padding"; "arg2" without one)."""

    name: str
    value: object                      # plain: int, float, bool, str, None, or a tuple of them;
                                       # a tensor argument is the name of the node that produces it
    refs: tuple[str, ...] = ()         # the graph nodes this argument reads (links in the GUI)


@dataclass(frozen=True)
class NodeInfo:
    name: str
    op: str                            # "conv2d.default", "quantize_per_tensor.default", "placeholder"…
    target: str                        # full target text
    kind: NodeKind                     # fx opcode
    arguments: tuple[OpArgument, ...]  # named by the op schema, in call order
    shape: str                         # "[16, 3, 32, 32]" or ""
    dtype: str
    qparams: QuantParams | None = None  # quantize / dequantize nodes only
    source: str = ""                   # nn_module_stack path / stack trace line
    sqnr_db: float | None = None
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    module_stack: tuple[tuple[str, str], ...] = ()  # (module id, short class) outermost first,
                                       # from nn_module_stack; a repeated call's id ends "@k"
    traced: bool = False               # torch.export recorded where this op ran (nn_module_stack):
                                       # module_stack () then means the model's own forward
    module: str = ""                   # module path the node belongs to: an op's own
                                       # nn_module_stack entry ("" in the model's own forward);
                                       # a quantize its producer's, a dequantize or a parameter
                                       # its consumer's ("" for graph inputs / output)
    top_module: str = ""               # the model's class ("BertModel") for a node at the top
                                       # level (module ""), what tables name it by; "" otherwise


@dataclass(frozen=True)
class ScaleMember:
    """One tensor of a shared-scale group: its quantize node (or the dequantize that stands for it)."""

    tensor: str                        # quantize node (or input dequantize) name
    producer: str                      # the op that computes the tensor ("" for a graph input)
    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    dequantizes: tuple[str, ...] = ()  # its dequantize nodes (what the ops read)


@dataclass(frozen=True)
class ScaleGroup:
    """Tensors forced to one scale: the inputs and outputs of add / cat / pooling ops, joined
    transitively (an add's output feeding another add puts all of them in one group)."""

    id: int
    ops: tuple[str, ...]               # the shared-scale ops that tie the members together
    members: tuple[ScaleMember, ...]
    shared: bool                       # every member has the same scale and zero point

    def nodes(self) -> tuple[str, ...]:
        """Every graph node of the group: ops, tensors, their dequantizes and producers."""
        out = dict.fromkeys(self.ops)
        for m in self.members:
            out.update(dict.fromkeys((m.tensor, *m.dequantizes, *((m.producer,) if m.producer else ()))))
        return tuple(out)


@dataclass(frozen=True)
class InputInfo:
    """One graph input as the run used it (after any batch change the user asked for)."""

    name: str                          # placeholder name, e.g. "input_ids"
    shape: tuple[int, ...]             # a symbolic (dynamic) dim counts at its example value
    dtype: str                         # "float32", "int64", "bool", …
    dynamic_dims: tuple[int, ...] = ()  # indices of symbolic dims


@dataclass(frozen=True)
class PredictionChange:
    """An op whose side the quantized analysis changed from the predicted one (or dropped)."""

    node: str
    predicted: RunsOn
    final: RunsOn | Literal[""]        # "" (no longer in the graph)
    reason: str                        # the final partition's reason


@dataclass(frozen=True)
class Analysis:
    model: str
    quantizer: str                                       # "vpu" | "xnnpack"; "unknown": a loaded
                                                         # program whose file does not say
    dynamic_batch: bool
    rules: tuple[RuleResult, ...]
    violations: tuple[Violation, ...]
    partition: PartitionReport
    requant: tuple[RequantSite, ...]
    tensors: tuple[TensorQParams, ...]
    sqnr_db: float | None
    layer_sqnr: dict = field(default_factory=dict)       # node name -> dB
    nodes: dict = field(default_factory=dict)            # node name -> NodeInfo
    edges: tuple[tuple[str, str], ...] = ()
    histograms: dict = field(default_factory=dict)       # "log2_scale_activation", "log2_scale_weight", "shifts", … -> Histogram
    timings_s: dict[TimingKey, float] = field(default_factory=dict)
    inputs: tuple[InputInfo, ...] = ()                   # the graph's user inputs, in call order
    scale_groups: tuple[ScaleGroup, ...] = ()            # tensors forced to share one scale
    partition_rule: RuleInfo | None = None               # constraint 1 (the op list), which the
                                                         # partition enforces: shown with the rules
    sqnr_reason: str = ""                                # why sqnr_db is None (empty when it is a number)
    summary: Summary | None = None                       # MAC share, weights quantized, CPU ops by cause
    notes: tuple[Note, ...] = ()                         # what a user must know beyond the rules
    predicted: bool = False                              # the float graph's predicted partition
                                                         # (vpu_core.analysis.predicted), shown
                                                         # while PT2E quantizes: no rules, no qparams
    already_quantized: bool = False                      # a Q/DQ program file, checked as it is
    accuracy_calls: int = 1                              # held-aside calls the SQNR figures rest on

    @property
    def accuracy_samples(self) -> int:
        """How many samples every accuracy figure of this analysis rests on (the graph's SQNR,
        each layer's, the integer simulation's): `accuracy_calls` held-aside calls at the run's
        batch, the leading dimension of its inputs (formatting.samples_text says it)."""
        return batch_samples(self.inputs[0].shape if self.inputs else ()) * max(self.accuracy_calls, 1)


def batch_samples(shape: tuple[int, ...]) -> int:
    """Samples in one batch of inputs of `shape` (its leading dimension; 1 for a scalar)."""
    return max(int(shape[0]), 1) if shape else 1
