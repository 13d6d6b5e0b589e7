"""Per-op changes of a quantizer's choices: what each quantizer can change, and the checks.

A run's configuration may ask for four kinds of change on single ops (vpu_core.config.RunConfig;
the fixes of vpu_core.sensitivity are made of them):

    keep_float        the op (and the activation fused to it) is not quantized: it runs in float,
                      on the CPU
    per_channel       its weights per-channel where the run quantizes weights per-tensor
    observer          another observer for the tensor the op writes (its output activation)
    wide_activation   16-bit activations for the op (a16w8), where the quantizer offers them

Which kinds a quantizer offers, and which observer kinds, its backend's package declares when it
registers the quantizer (QuantizerInfo.offers, vpu_core.quantizers.registry); a change it does not offer is refused with one sentence before any work, and a name
that is not an op of the exported graph once the graph exists (`check_names`). This module
imports no torch: the command line checks the offers before torch is loaded.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from vpu_core.errors import InspectorError
from vpu_core.quantizers.offers import CHANGE_KINDS, HISTOGRAM, MINMAX, ChangeKind, ObserverKind, Offers

__all__ = ["CHANGE_KINDS", "HISTOGRAM", "MINMAX", "ChangeKind", "ObserverKind", "Offers", "NodeChanges",
           "changes_of", "offers_of", "check_offered", "check_names", "kept_reason", "mark_kept", "OPTION"]

if TYPE_CHECKING:
    from vpu_core.config import RunConfig

OPTION = {"keep_float": "--keep-float", "per_channel": "--per-channel", "observer": "--observer",
          "wide_activation": "--a16w8"}


@dataclass(frozen=True)
class NodeChanges:
    """The per-op changes a quantizer applies (from RunConfig: `changes_of`)."""

    keep_float: frozenset[str] = frozenset()
    per_channel: frozenset[str] = frozenset()
    observers: tuple[tuple[str, str], ...] = ()
    wide_activations: frozenset[str] = frozenset()

    def observer(self, node: str) -> str | None:
        return dict(self.observers).get(node)


def changes_of(config: RunConfig) -> NodeChanges:
    return NodeChanges(frozenset(config.keep_float), frozenset(config.per_channel), config.observers,
                       frozenset(config.wide_activations))


def offers_of(quantizer: str) -> Offers:
    """What `quantizer` offers, as its target package registered it (QuantizerInfo.offers);
    keeping an op in float when it declared nothing (or is not registered)."""
    from vpu_core.quantizers import registry

    found = registry.info(quantizer).offers if registry.is_quantizer(quantizer) else None
    return found or Offers(quantizer, ("keep_float",), ())


def requested(config: RunConfig) -> list[tuple[ChangeKind, str]]:
    """(kind, op name) of every change `config` asks for."""
    return [*(("keep_float", n) for n in config.keep_float),
            *(("per_channel", n) for n in config.per_channel),
            *(("observer", n) for n, _ in config.observers),
            *(("wide_activation", n) for n in config.wide_activations)]


def check_offered(config: RunConfig) -> None:
    """One sentence for a change this configuration's quantizer does not offer (no torch)."""
    offers = offers_of(config.quantizer)
    for kind, node in requested(config):
        if kind not in offers.changes:
            raise InspectorError(f"{OPTION[kind]} {node}: the {config.quantizer} quantizer does not offer "
                                 f"{_what(kind)} (it offers {_offered(offers)}).")
    if config.per_channel and not config.per_tensor:
        raise InspectorError(f"--per-channel {config.per_channel[0]}: the weights are per-channel "
                             "already (it changes a run with --per-tensor).")
    seen: dict[str, str] = {}
    for node, observer in config.observers:
        if offers.observer(observer) is None:
            raise InspectorError(f"--observer {node}={observer}: the {config.quantizer} quantizer has no observer "
                                 f"'{observer}' (choose from {', '.join(k.name for k in offers.observers)}).")
        if node in seen:
            raise InspectorError(f"--observer {node}: two observers asked for ({seen[node]} and {observer}).")
        seen[node] = observer
    both = set(config.keep_float) & {n for k, n in requested(config) if k != "keep_float"}
    if both:
        raise InspectorError(f"{sorted(both)[0]} is kept in float and changed otherwise as well: "
                             "a float op has nothing to quantize.")


def _what(kind: ChangeKind) -> str:
    return {"keep_float": "keeping an op in float", "per_channel": "per-channel weights per op",
            "observer": "another observer per tensor",
            "wide_activation": "16-bit activations (a16w8)"}[kind]


def _offered(offers: Offers) -> str:
    return ", ".join(OPTION[k] for k in offers.changes)


def check_names(config: RunConfig, ops: Iterable[str]) -> None:
    """Every op a change names exists among `ops` (the exported graph's op names)."""
    known = set(ops)
    for kind, node in requested(config):
        if node not in known:
            close = sorted(n for n in known if n.split("_")[0] == node.split("_")[0])[:4]
            hint = f" (ops of that kind: {', '.join(close)}…)" if close else ""
            raise InspectorError(f"{OPTION[kind]} {node}: the exported graph has no op of that name{hint}.")


def kept_reason(node: str, op: str, fused_to: str | None = None) -> str:
    """The CPU node's reason for an op kept in float on request (partition cause "float")."""
    if fused_to:
        return (f"{op} was left in float with {fused_to}, which it is fused to (--keep-float "
                f"{fused_to}): the VPU computes int8 only")
    return f"{op} was left in float on request (--keep-float {node}): the VPU computes int8 only"


def mark_kept(model: object, kept: dict[str, str | None]) -> None:
    """Write the reason of every op kept in float on request into its node's meta, where the
    partition reads it (analysis.extreme.FLOAT_REASON_KEY; prepare and convert keep op nodes'
    meta). `kept`: {op name: the op it is fused to, or None}."""
    from vpu_core.analysis.extreme import FLOAT_REASON_KEY   # torch-free callers never get here
    from vpu_core.fx_utils import op_name

    for node in getattr(model, "graph").nodes:
        if node.name in kept:
            node.meta[FLOAT_REASON_KEY] = kept_reason(node.name, op_name(node), kept[node.name])
