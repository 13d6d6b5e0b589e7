"""Compare two analyses of the same model (e.g. VPU quantizer vs XNNPACK quantizer).

Two quantized graphs of one model name their nodes however torch.export and convert_pt2e
happened to number them, so nodes are matched by *what they compute*: the source module path
(`NodeInfo.source`, from nn_module_stack) together with the ATen op. When one module runs the
same op several times (or a graph has no source information), the k-th occurrence on one side
pairs with the k-th on the other, in graph order. Generated node names are never compared.

Only compute ops are matched (conv2d, relu, add, linear, …): Q/DQ nodes, parameters and graph
inputs differ by construction between quantizers and are summarised per op instead — each
matched op carries the qparams of its output activation, weight and bias on both sides, the
rules it breaks there (its own violations plus those reported on its weight / bias chain and its
output quantize), and its placement (VPU subgraph or CPU).

Pure Python on the analyses' plain values: used by the HTML report and the GUI's compare mode.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Literal, TypeGuard

from vpu_core.analysis.results import RunsOn
from vpu_core.errors import InspectorError
from vpu_core.formatting import quantizer_label

if TYPE_CHECKING:  # the analysis package imports torch; this module only reads its dataclasses
    from vpu_core.analysis.results import Analysis, NodeInfo, PartitionReport, TensorQParams, Violation
    from vpu_core.config import RunConfig

Side = Literal["a", "b"]        # compare mode's two sides: A (the configuration asked for) and B
SIDES: tuple[Side, ...] = ("a", "b")


def is_side(text: str) -> TypeGuard[Side]:
    """Whether `text` names a side ("a" or "b", as `gui --select b:NODE` writes it)."""
    return text in SIDES

_QDQ_PREFIX = "quantized_decomposed."


@dataclass(frozen=True)
class OpSide:
    """One matched op as seen in one of the two analyses."""
    node: str                                   # fx node name in that analysis
    placement: RunsOn
    subgraph: int | None                        # VPU subgraph id, None on the CPU
    output: TensorQParams | None = None         # qparams of the activation the op produces
    weight: TensorQParams | None = None
    bias: TensorQParams | None = None
    violations: tuple[Violation, ...] = ()      # attributed to this op (see module doc)
    short: tuple[tuple[str, str], ...] = ()     # (rule id, its short label: RuleInfo.short)

    @property
    def rules(self) -> tuple[str, ...]:
        """Ids of the rules this op breaks, each once, in first-seen order."""
        return tuple(dict.fromkeys(v.rule for v in self.violations))

    @property
    def rule_labels(self) -> tuple[str, ...]:
        """The short label of each of `rules` (its id when the rule declares none)."""
        short = dict(self.short)
        return tuple(short.get(r) or r for r in self.rules)


@dataclass(frozen=True)
class OpPair:
    key: str            # the source module path ("" when the graph has none)
    op: str             # ATen op, e.g. "conv2d.default"
    occurrence: int     # k-th time this (key, op) appears in graph order
    a: OpSide
    b: OpSide

    @property
    def partition_differs(self) -> bool:
        return self.a.placement != self.b.placement

    @property
    def rules_differ(self) -> bool:
        return set(self.a.rules) != set(self.b.rules)

    @property
    def qparams_differ(self) -> bool:
        return any(_qp_key(x) != _qp_key(y) for x, y in ((self.a.output, self.b.output),
                                                          (self.a.weight, self.b.weight),
                                                          (self.a.bias, self.b.bias)))

    @property
    def differs(self) -> bool:
        return self.partition_differs or self.rules_differ or self.qparams_differ


@dataclass(frozen=True)
class Comparison:
    a_label: str                    # e.g. "VPU"
    b_label: str                    # e.g. "XNNPACK"
    pairs: tuple[OpPair, ...]       # in graph order of side A
    only_a: tuple[str, ...]         # compute ops of A with no counterpart in B (node names)
    only_b: tuple[str, ...]
    rule_counts_a: dict = field(default_factory=dict)   # rule id -> violations in A (all 7 rules)
    rule_counts_b: dict = field(default_factory=dict)

    @property
    def differing(self) -> tuple[OpPair, ...]:
        return tuple(p for p in self.pairs if p.differs)

    @property
    def partition_changes(self) -> tuple[OpPair, ...]:
        return tuple(p for p in self.pairs if p.partition_differs)

    def pair_for(self, node: str, side: Side = "a") -> OpPair | None:
        """The pair holding `node` of side "a" or "b" (for the GUI's synchronised selection)."""
        for p in self.pairs:
            if (p.a if side == "a" else p.b).node == node:
                return p
        return None


def compare(a: Analysis, b: Analysis, a_label: str | None = None,
            b_label: str | None = None, part_a: PartitionReport | None = None,
            part_b: PartitionReport | None = None) -> Comparison:
    """Match the compute ops of `a` and `b` by (source module path, op) and diff them; each side
    placed by its simulated partition or by `part_a` / `part_b` (the verdict of the target a side
    is coloured by: the VPU beside an Ethos-U)."""
    keyed_a, keyed_b = _keyed_ops(a), _keyed_ops(b)
    sides_a, sides_b = _op_sides(a, part_a), _op_sides(b, part_b)
    pairs = tuple(OpPair(key, op, k, sides_a[name], sides_b[keyed_b[(key, op, k)]])
                  for (key, op, k), name in keyed_a.items() if (key, op, k) in keyed_b)
    only_a = tuple(name for kk, name in keyed_a.items() if kk not in keyed_b)
    only_b = tuple(name for kk, name in keyed_b.items() if kk not in keyed_a)
    return Comparison(a_label or default_label(a), b_label or default_label(b), pairs, only_a,
                      only_b, _rule_counts(a), _rule_counts(b))


def default_label(analysis: Analysis) -> str:
    return quantizer_label(analysis) + (" (dynamic batch)" if analysis.dynamic_batch else "")


# -- node roles ------------------------------------------------------------------------------------

def is_qdq(info: NodeInfo) -> bool:
    return info.op.startswith(_QDQ_PREFIX)


def is_compute_op(info: NodeInfo) -> bool:
    """A model op (conv2d, add, softmax…): not Q/DQ, parameter, input/output or a shape guard."""
    return info.kind == "call_function" and not is_qdq(info)


def node_role(info: NodeInfo) -> str:
    """"op" | "qdq" | "param" | "io" | "other": what a node is, for counting."""
    if info.kind in ("placeholder", "output"):
        return "io"
    if info.kind == "get_attr":
        return "param"
    if info.kind == "call_function":
        return "qdq" if is_qdq(info) else "op"
    return "other"


def source_key(info: NodeInfo) -> str:
    """The module path an op comes from; the whole source text is the key, read as an opaque id."""
    return info.source.strip()


# -- matching --------------------------------------------------------------------------------------

def _keyed_ops(analysis: Analysis) -> dict[tuple[str, str, int], str]:
    """(source, op, occurrence) -> node name, in graph order."""
    seen: Counter = Counter()
    out = {}
    for name, info in analysis.nodes.items():
        if not is_compute_op(info):
            continue
        key = (source_key(info), info.op)
        out[(*key, seen[key])] = name
        seen[key] += 1
    return out


def _op_sides(analysis: Analysis, part: PartitionReport | None = None) -> dict[str, OpSide]:
    owners = violation_owners(analysis)
    short = {r.rule.id: r.rule.short for r in analysis.rules if r.rule.short}
    by_op: dict[str, list] = {}
    for v in analysis.violations:
        by_op.setdefault(owners.get(v.node, v.node), []).append(v)
    outputs: dict = {}
    weights: dict = {}
    biases: dict = {}
    for t in analysis.tensors:
        table = {"activation": outputs, "weight": weights, "bias": biases}.get(t.kind)
        if table is not None and t.consumer:
            table.setdefault(t.consumer, t)      # first: the quantize right after the op
    assignment = (part or analysis.partition).assignment
    out = {}
    for name, info in analysis.nodes.items():
        if not is_compute_op(info):
            continue
        sub = assignment.get(name)
        on_vpu = isinstance(sub, int) and not isinstance(sub, bool)
        found = tuple(by_op.get(name, ()))
        out[name] = OpSide(name, "vpu" if on_vpu else "cpu", sub if on_vpu and isinstance(sub, int) else None,
                           outputs.get(name), weights.get(name), biases.get(name), found,
                           tuple(dict.fromkeys((v.rule, short[v.rule]) for v in found if v.rule in short)))
    return out


def violation_owners(analysis: Analysis) -> dict[str, str]:
    """Every non-op node -> the compute op its violations are charged to.

    Parameters and their Q/DQ chain belong to the op consuming them; an activation Q/DQ belongs
    to the op producing the tensor, or — for a graph input — to the first op reading it.
    """
    nodes = analysis.nodes
    const = _constant_nodes(nodes)
    owners: dict[str, str] = {}
    for name, info in nodes.items():
        if is_compute_op(info):
            continue
        if name in const or info.kind == "placeholder":
            op = _walk(nodes, name, "outputs")
        else:
            op = _walk(nodes, name, "inputs") or _walk(nodes, name, "outputs")
        if op:
            owners[name] = op
    return owners


def _constant_nodes(nodes: dict) -> set[str]:
    const: set[str] = set()
    for name, info in nodes.items():             # graph order: producers first
        if info.kind == "get_attr" or (is_qdq(info) and info.inputs
                                       and all(i in const for i in info.inputs)):
            const.add(name)
    return const


def _walk(nodes: dict, start: str, direction: str) -> str | None:
    """Breadth-first through Q/DQ and parameter nodes to the nearest compute op."""
    frontier, seen = [start], {start}
    while frontier:
        nxt = []
        for name in frontier:
            for other in getattr(nodes[name], direction):
                info = nodes.get(other)
                if info is None or other in seen:
                    continue
                if is_compute_op(info):
                    return other
                if info.kind != "output":
                    seen.add(other)
                    nxt.append(other)
        frontier = nxt
    return None


def _rule_counts(analysis: Analysis) -> dict[str, int]:
    return {r.rule.id: r.violations for r in analysis.rules}


def _qp_key(t: TensorQParams | None):
    return None if t is None else (t.dtype, t.scales, t.zero_points)


# -- the second configuration ----------------------------------------------------------------------

class CompareSpecError(InspectorError):
    """A --compare specification names an unknown setting or an invalid value."""


_SPEC_KEYS = ("quantizer", "per_tensor", "dynamic_batch", "calib_batches", "batch_size", "seed",
              "calib_data", "profile")
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def config_variant(base: RunConfig, spec: str) -> RunConfig:
    """`base` with the settings of `spec` changed: "xnnpack" (a quantizer name) or
    "quantizer=xnnpack,per_tensor=1,dynamic_batch=0,…" (RunConfig field names, - or _)."""
    spec = spec.strip()
    if spec and "=" not in spec and "," not in spec:
        spec = f"quantizer={spec}"
    types = {f.name: f.type for f in fields(base)}
    changes = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        key, sep, value = (x.strip() for x in item.partition("="))
        key = key.replace("-", "_")
        if not sep or key not in _SPEC_KEYS:
            raise CompareSpecError(f"Cannot read --compare '{item}': expected KEY=VALUE with KEY one of "
                                   f"{', '.join(_SPEC_KEYS)} (or just a quantizer name).")
        changes[key] = _spec_value(key, value, str(types[key]))
    if not changes:
        raise CompareSpecError("--compare is empty: give a quantizer (xnnpack) or KEY=VALUE settings.")
    return replace(base, **changes)


def _spec_value(key: str, value: str, type_text: str):
    if key == "quantizer":
        from vpu_core.quantizers.registry import names

        if value.lower() not in names():
            raise CompareSpecError(f"Unknown quantizer '{value}' in --compare: use {', '.join(names())}.")
        return value.lower()
    if type_text == "bool":
        if value.lower() not in _TRUE + _FALSE:
            raise CompareSpecError(f"--compare {key}={value}: expected 1/0, true/false, yes/no.")
        return value.lower() in _TRUE
    if type_text in ("int", "int | None"):
        if type_text != "int" and value.lower() in ("", "none", "own"):
            return None                    # batch_size: the model's own batch
        try:
            number = int(value)
        except ValueError:
            raise CompareSpecError(f"--compare {key}={value}: expected a whole number.") from None
        if number < 1 and key != "seed":
            raise CompareSpecError(f"--compare {key}={value}: must be at least 1.")
        return number
    return value or None                   # paths: empty means "none"


def config_labels(a: RunConfig, b: RunConfig) -> tuple[str, str]:
    """Short names for two configurations that tell them apart ("VPU", "XNNPACK · dynamic batch")."""
    return _config_label(a, b), _config_label(b, a)


def _config_label(config: RunConfig, other: RunConfig) -> str:
    from pathlib import Path

    parts = [config.quantizer.upper()]
    if config.quantizer != "vpu" and (config.per_tensor or other.per_tensor):
        parts.append("per-tensor" if config.per_tensor else "per-channel")   # VPU: always per-channel
    if config.dynamic_batch != other.dynamic_batch:
        parts.append("dynamic batch" if config.dynamic_batch else "static batch")
    if config.batch_size != other.batch_size:
        parts.append(f"batch {config.batch_size}" if config.batch_size else "model's batch")
    if config.profile != other.profile:
        parts.append(Path(config.profile).stem if config.profile else "default profile")
    if config.calib_data != other.calib_data:
        parts.append(Path(config.calib_data).name if config.calib_data else "synthetic data")
    return " · ".join(parts)
