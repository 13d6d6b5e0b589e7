"""What the sensitivity analysis reports: plain frozen numbers (no torch), for the CLI, JSON,
reports and the window. vpu_core.sensitivity computes them; docs/spec.md, "Accuracy:
sensitivity and fixes", says what each means."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from vpu_core.stages import TimingKey

if TYPE_CHECKING:
    from vpu_core.targets.results import TargetResult

RowKind = Literal["op", "output"]


USEFUL_GAIN_DB = 0.5   # a predicted gain below this is not worth a fix's partition cost


@dataclass(frozen=True)
class LayerSensitivity:
    """One quantized layer (or the model's output): its errors in dB (None: not meaningful)."""

    node: str                       # the op (the graph's node name)
    op: str                         # ATen op, "output" for the model's output row
    output_node: str                # the node whose output the layer writes (its fused activation)
    local_db: float | None          # this layer quantized, its inputs exact
    cumulative_db: float | None     # everything quantized (the analysis' layer SQNR)
    weight_db: float | None         # only its weights (and int32 bias) quantized, exact inputs
    activation_db: float | None     # only its activations (inputs and output) quantized
    rank: int | None                # 1 = the largest share of the end-to-end error; None: the output row
    error_share: float | None = None    # its share of the end-to-end error energy, to first order
    alone_db: float | None = None   # end-to-end SQNR with only this layer quantized (top layers)
    kind: RowKind = "op"
    module: str = ""                # the module path it belongs to ("encoder.layer.3.output.dense")

    @property
    def inherited_db(self) -> float | None:
        """How much worse the cumulative error is than the local one (error it inherits)."""
        if self.local_db is None or self.cumulative_db is None:
            return None
        return self.local_db - self.cumulative_db


@dataclass(frozen=True)
class TargetOutcome:
    """What a target other than the simulated VPU makes of one configuration (vpu_core.targets):
    its CPU ops, subgraphs, boundary bytes, its share of the MACs and its own estimate."""

    target: str
    title: str
    cpu_ops: int
    subgraphs: int
    boundary_bytes: int
    mac_share: float
    estimate: float | None = None        # its cost model's total (None: it has none)
    unit: str = ""                       # "us" | "cycles"
    label: str = ""                      # who made the estimate ("Vela 5.1.0 estimate")

    @staticmethod
    def of(result: TargetResult, node_macs: dict[str, int]) -> TargetOutcome:
        """`node_macs`: every op's multiply-accumulates in the judged graph (vpu_core.analysis.macs)."""
        v, e = result.verdict, result.estimate
        total = sum(node_macs.values())
        on_target = sum(m for n, m in node_macs.items() if isinstance(v.assignment.get(n), int))
        share = on_target / total if total else 0.0
        return TargetOutcome(result.target, result.title, len(v.cpu_nodes), len(v.subgraphs), v.transfer_bytes,
                             share, e.total if e is not None else None, e.unit if e is not None else "",
                             e.label if e is not None else "")


@dataclass(frozen=True)
class Outcome:
    """A configuration's result on both sides of the trade (predicted for a fix; the baseline
    measured): accuracy, and what the partition becomes."""

    sqnr_db: float | None
    cpu_ops: int
    subgraphs: int
    boundary_bytes: int
    vpu_mac_share: float
    metric: float | None = None     # the user's --eval metric (None: no --eval)
    time_us: float | None = None    # the VPU target's [timing] estimate of its subgraphs
    sqnr_reason: str = ""
    targets: tuple[TargetOutcome, ...] = ()     # the other targets asked for (check --target)


@dataclass(frozen=True)
class Fix:
    """One proposed change and its predicted outcome (vpu_core.sensitivity.candidates)."""

    node: str                       # the layer it is for
    change: str                     # "keep_float" | "per_channel" | "observer" | "wide_activation"
    nodes: tuple[str, ...]          # the ops it changes (keep float may take the op forcing a shared scale)
    detail: str                     # one sentence: what it does
    args: tuple[str, ...]           # the command-line options that apply it
    predicted: Outcome
    gain_db: float | None           # predicted SQNR − baseline SQNR
    metric_gain: float | None = None
    seconds: float = 0.0            # what predicting it took


@dataclass(frozen=True)
class SearchStep:
    """One point of the accuracy vs NPU share curve: a set of fixes applied together."""

    fixes: tuple[str, ...]          # the options applied (args of each fix, flattened)
    outcome: Outcome


@dataclass(frozen=True)
class SearchResult:
    """The smallest set of fixes found that reaches `goal_db` (greedy over the proposed fixes,
    each step re-quantized), and every step on the way (the Pareto curve)."""

    goal_db: float
    reached: bool
    steps: tuple[SearchStep, ...]   # 0: the baseline; each next adds one fix
    reason: str = ""


@dataclass(frozen=True)
class SensitivityReport:
    model: str
    quantizer: str
    samples: int                    # samples the end-to-end figures rest on (baseline, fixes): every
                                    # held-aside call, as the analysis'
    calibration_samples: int
    baseline: Outcome
    layers: tuple[LayerSensitivity, ...]      # ranked ops first (rank order), the output row last
    fixes: tuple[Fix, ...]                    # best gain first
    offers: tuple[str, ...]                   # the change kinds this quantizer offers
    search: SearchResult | None = None
    metric_float: float | None = None         # the user's metric of the float model
    metric_name: str = ""                     # FILE.py:fn
    seconds: float = 0.0
    timings_s: tuple[tuple[TimingKey, float], ...] = ()
    ranking_samples: int = 0                  # samples the layer ranking (local, alone) rests on:
                                              # the first held-aside call

    def layer(self, node: str) -> LayerSensitivity | None:
        return next((r for r in self.layers if r.node == node or r.output_node == node), None)

    def fixes_for(self, node: str) -> tuple[Fix, ...]:
        return tuple(f for f in self.fixes if f.node == node)

    @property
    def no_fix_helps(self) -> bool:
        """Fixes were predicted and none gains USEFUL_GAIN_DB: the error is not where they were
        looked for (spread over many layers, as in MobileViT), so none of them is worth applying."""
        return bool(self.fixes) and all((f.gain_db or 0.0) < USEFUL_GAIN_DB for f in self.fixes)

    @property
    def best_fix(self) -> Fix | None:
        ranked = [f for f in self.fixes if f.gain_db is not None]
        return max(ranked, key=lambda f: f.gain_db or 0.0) if ranked else None
