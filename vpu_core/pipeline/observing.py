"""The observers of a prepared model, between calibration and convert_pt2e.

`Observers(prepared, report)` wraps every observer module's `calculate_qparams` (on the
instance, the class is untouched) so that:

* each observer's qparams are computed once: convert_pt2e, derived bias specs, shared specs and
  the float-vs-pow2 scale table (`observer_scales`) all get the same values (torchao's stock
  observers would otherwise run their search again for every caller);
* convert reports progress per observer — `report("convert", done / total)` — and a cancel
  request stops it between two observers (`report` raises Cancelled);
* the values convert used are recorded (`recorded()`), and can be replayed (`freeze`) on a
  freshly prepared copy of the same float graph: convert then builds the same Q/DQ graph
  without calibration or observer searches (the disk cache's "quantized" stage). A replay that
  meets an observer it has no value for raises StaleQParams: the caller calibrates instead.
"""
from __future__ import annotations

from typing import Callable

import torch
from torch.fx import GraphModule

from vpu_core.progress import ProgressFn

FORMAT = 1


class StaleQParams(Exception):
    """Recorded qparams do not fit this prepared graph."""


class Observers:
    def __init__(self, prepared: GraphModule, report: ProgressFn) -> None:
        self.report = report
        self.nodes = [n for n in prepared.graph.nodes
                      if n.op == "call_module" and hasattr(getattr(prepared, n.target, None), "calculate_qparams")]
        # One observer instance can sit at several targets (shared specs): key it by its first.
        self.modules: dict[str, torch.nn.Module] = {}
        self.canonical: dict[str, str] = {}
        for n in self.nodes:
            module = getattr(prepared, n.target)
            first = next((t for t, m in self.modules.items() if m is module), n.target)
            self.modules.setdefault(first, module)
            self.canonical[n.target] = first
        self.values: dict[str, tuple] = {}
        self.frozen = False
        # What observer_scales needs from the graph, read now: convert rewrites these nodes.
        self._edges = [(n.name, n.target, n.args[0], [u.name for u in n.users]) for n in self.nodes]
        self._identities = self._identity_keys()
        for target, module in self.modules.items():
            module.calculate_qparams = self._wrapper(target, type(module).calculate_qparams.__get__(module))

    def _wrapper(self, target: str, original: Callable):
        def calculate_qparams():
            if target not in self.values:
                if self.frozen:
                    raise StaleQParams(target)
                self.report("convert", len(self.values) / max(len(self.modules), 1))
                scale, zero_point = original()
                float_scale = getattr(self.modules[target], "float_scale", None)
                self.values[target] = (scale.detach().clone(), zero_point.detach().clone(),
                                       None if float_scale is None else float_scale.detach().clone())
            scale, zero_point, _ = self.values[target]
            return scale.clone(), zero_point.clone()
        return calculate_qparams

    def recorded(self) -> dict:
        """The qparams asked for so far, as plain tensors and strings (torch.save, weights_only)."""
        observers = {}
        for target, (scale, zero_point, float_scale) in self.values.items():
            entry = {"class": type(self.modules[target]).__name__, "scale": scale, "zero_point": zero_point}
            if float_scale is not None:
                entry["float_scale"] = float_scale
            observers[target] = entry
        return {"format": FORMAT, "observers": observers}

    def freeze(self, recorded: dict) -> bool:
        """Use `recorded` instead of calibration; False (nothing changed) if it does not fit."""
        try:
            if recorded.get("format") != FORMAT:
                return False
            observers = recorded["observers"]
            values = {}
            for target, entry in observers.items():
                module = self.modules.get(target)
                if module is None or type(module).__name__ != entry["class"]:
                    return False
                scale, zero_point = entry["scale"], entry["zero_point"]
                float_scale = entry.get("float_scale")
                if not all(isinstance(t, torch.Tensor) for t in (scale, zero_point)):
                    return False
                values[target] = (scale, zero_point, float_scale)
        except (KeyError, TypeError, AttributeError):
            return False
        for target, (_, _, float_scale) in values.items():
            if float_scale is not None:
                self.modules[target].float_scale = float_scale.clone()
        self.values, self.frozen = values, True
        return True

    # -- the same observer in another prepare of the same float graph ---------------------------
    def _identity_keys(self) -> dict[str, str]:
        """target -> what the observer is, independent of how prepare numbered it: its class and
        settings, the nodes it observes and the nodes reading it (every node of a shared
        instance, in graph order), and for a derived observer (an int32 bias) its sources."""
        seen: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        for n in self.nodes:
            seen.setdefault(self.canonical[n.target], []).append(
                (getattr(n.args[0], "name", str(n.args[0])), tuple(sorted(u.name for u in n.users))))
        keys: dict[str, str] = {}

        def key(target: str) -> str:
            if target not in keys:
                module = self.modules[target]
                sources = [next((t for t, m in self.modules.items() if m is src), "?")
                           for src in getattr(module, "obs_or_fqs", ())]
                keys[target] = repr((type(module).__name__, _settings(module), seen.get(target, []),
                                     [key(t) if t in self.modules else t for t in sources]))
            return keys[target]
        for target in self.modules:
            key(target)
        return keys

    def by_identity(self, recorded: dict) -> dict[str, dict]:
        """`recorded` (this graph's recorded qparams) keyed by observer identity instead of
        target, for `adopt` on another prepare of the same float graph."""
        observers = recorded.get("observers", {}) if isinstance(recorded, dict) else {}
        return {self._identities[t]: entry for t, entry in observers.items() if t in self._identities}

    def adopt(self, donor: dict[str, dict]) -> list[str] | None:
        """Use the qparams another prepare of the same float graph recorded (`by_identity`) for
        every observer identical to one of its own (an observer's qparams depend only on its
        settings and the values it observes, which are the same). Returns the targets left
        without qparams — [] when none is: no calibration needed (the graph is frozen); else only
        those must calibrate, and the adopted ones pass their input through meanwhile (their work
        is done) — or None when nothing could be adopted (nothing changed)."""
        mapped, missing = {}, []
        for target in self.modules:
            entry = donor.get(self._identities[target])
            if entry is None:
                missing.append(target)
            else:
                mapped[target] = entry
        if not mapped or not self.freeze({"format": FORMAT, "observers": mapped}):
            return None
        if missing:
            self.frozen = False         # the missing ones compute theirs after calibration
            for target in mapped:
                self.modules[target].forward = _passthrough
        return missing

    def observer_scales(self) -> list[dict]:
        """Float scale vs power-of-two scale of every observer, keyed by what it observes.

        `producer` is the observed node's name (kept by convert for activations); `consumers` are
        the ops reading the observed value (how a weight is found again after convert folds it).
        """
        out = []
        for name, target, src, consumers in self._edges:
            target = self.canonical[target]
            module = self.modules[target]
            if not hasattr(module, "min_val"):
                continue
            try:
                scale, _ = module.calculate_qparams()
            except Exception:  # an observer that saw no data (or has no recorded value)
                continue
            float_scale = self.values[target][2]
            float_scale = scale if float_scale is None else float_scale
            out.append({
                "observer": name, "producer": getattr(src, "name", str(src)),
                "producer_op": getattr(src, "op", ""), "consumers": consumers,
                "scale": [float(s) for s in scale.flatten()],
                "float_scale": [float(s) for s in float_scale.flatten()],
            })
        return out


_SETTINGS = ("dtype", "qscheme", "quant_min", "quant_max", "ch_axis", "eps", "reduce_range", "bins",
             "averaging_constant", "is_dynamic")


def _settings(module: torch.nn.Module) -> tuple:
    """The constructor settings that decide an observer's qparams from the values it sees."""
    out = []
    for name in _SETTINGS:
        value = getattr(module, name, None)
        if isinstance(value, torch.Tensor):
            value = value.flatten().tolist()
        out.append((name, str(value)))
    return tuple(out)


def _passthrough(x: torch.Tensor) -> torch.Tensor:
    return x
