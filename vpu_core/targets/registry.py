"""The registry of targets: what each one is called and says about itself, importable without torch.

The command line builds its `--target` choices, the window its "Colour by" buttons and the sweep
its target list from here before torch is imported, so a `TargetInfo` is plain data and names its
implementation by module path; `load` imports that module (which may import torch) on first use.
Registration works as pyqtgraph's exporters do: a target's package calls `register(INFO)` when it
is imported, and vpu_core.targets imports the built-in packages.

A target's package registers its quantizer(s) the same way, beside its TargetInfo:
`vpu_core.quantizers.registry.register(QuantizerInfo(name, title, factory="module:attribute", offers=…))`
(re-exported here as `QuantizerInfo` / `register_quantizer`). That registry lives a layer below,
in vpu_core.quantizers, because the pipeline dispatches through it (`make_quantizer`); the
`--quantizer` choices are its names, and `TargetInfo.quantizer` names the target's own.
"""
from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vpu_core.errors import InspectorError
from vpu_core.quantizers.registry import QuantizerInfo as QuantizerInfo
from vpu_core.quantizers.registry import register as register_quantizer  # noqa: F401  (re-exported)

if TYPE_CHECKING:
    from vpu_core.targets.protocol import Target


@dataclass(frozen=True)
class TargetInfo:
    """A target as the registry lists it: no torch, no implementation loaded.

    name            the stable key: `--target NAME`, the JSON `targets` object, ViewOptions.partition_source
                    ("vpu", "xnnpack", "ethos-u55-128"); lower case, no spaces
    title           short, for buttons and table columns ("VPU", "XNNPACK", "Ethos-U55-128")
    description     one sentence: what judges the graph ("ExecuTorch's XnnpackPartitioner, lowered and
                    run on this CPU")
    implementation  "package.module:attribute" of the Target (vpu_core.targets.protocol): a class
                    (instantiated once, without arguments) or an instance
    quantizer       the quantizer it offers, registered by its package (vpu_core.quantizers.registry:
                    "vpu", "xnnpack"), or None
    judges          the quantizers whose graphs it can judge; None: any graph (the VPU judges all)
    judges_hint     completes the refusal of another quantizer's graph ("quantize with --quantizer ethos-u")
    verdict_title   what a progress bar says while it judges ("Lowering with ExecuTorch XNNPACK")
    result_modules  torch-free modules whose frozen dataclasses its estimate is made of: the cache
                    rebuilds a cached estimate from those classes only (vpu_core.cache.codec)
    static_shapes   it compiles fixed shapes only: a graph with a dynamic batch is refused (Vela and
                    the TOSA INT profile take static tensors, and would compile one size of it)
    reads_profile   its result depends on the hardware profile's analysis (the VPU's partition, the
                    profile's [timing] beside XNNPACK), so it is kept per profile; False: it reads the
                    quantized graph only (Arm's backend and Vela), so another --profile reuses it
    requires        (module, pip package) pairs it cannot work without (Vela, the TOSA tools): a
                    missing one makes it unavailable here (`unavailable()`: the sentence saying so)
    accelerator     what its accelerator side is called in a sentence and on a boundary ("NPU":
                    "CPU → NPU", "runs on the NPU"); "" means the title
    extra           the extra of this package that installs them ("ethos-u", "openvino")
    """

    name: str
    title: str
    description: str
    implementation: str
    quantizer: str | None = None
    judges: tuple[str, ...] | None = None
    judges_hint: str = ""
    verdict_title: str = ""
    result_modules: tuple[str, ...] = ()
    static_shapes: bool = False
    reads_profile: bool = True
    requires: tuple[tuple[str, str], ...] = ()
    accelerator: str = ""
    extra: str = ""

    @property
    def side(self) -> str:
        """The accelerator side's word ("NPU", "VPU", "XNNPACK")."""
        return self.accelerator or self.title

    @property
    def on_side(self) -> str:
        """Where its ops run, for "runs … on …": "the NPU" for a named accelerator, else the
        target itself ("XNNPACK")."""
        return f"the {self.accelerator}" if self.accelerator else self.title

    def unavailable(self) -> str | None:
        """One sentence when a package it needs is not installed here (the window's "Colour by"
        shows the target disabled with it), else None. Finds the modules without importing them."""
        missing = sorted({package for module, package in self.requires if not _importable(module)})
        if not missing:
            return None
        how = f": install them with pip install 'vpu-inspector[{self.extra}]'" if self.extra else ""
        return f"The {self.title} target needs {' and '.join(missing)}{how}."

    def refusal(self, quantizer: str, dynamic_batch: bool = False) -> str | None:
        """One sentence when this target cannot judge a graph of `quantizer` (with a dynamic batch), else None."""
        if dynamic_batch and self.static_shapes:
            return (f"The {self.title} target compiles fixed shapes only (its compiler takes static tensors "
                    "and would compile one size of a dynamic batch): drop --dynamic-batch.")
        if self.judges is None or quantizer in self.judges:
            return None
        allowed = " or ".join(self.judges)
        hint = f": {self.judges_hint}" if self.judges_hint else ""
        return (f"The {self.title} target judges graphs of the {allowed} quantizer, not {quantizer}{hint}.")


def _importable(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


class UnknownTarget(InspectorError):
    """A target name no package registered."""


_INFOS: dict[str, TargetInfo] = {}
_LOADED: dict[str, Target] = {}
_LOCK = threading.Lock()


def register(info: TargetInfo) -> TargetInfo:
    """Add `info` to the registry (again with the same info: nothing changes). A name taken by
    another target raises ValueError: names are stable keys, two targets cannot share one."""
    with _LOCK:
        known = _INFOS.get(info.name)
        if known is not None and known != info:
            raise ValueError(f"target {info.name!r} is already registered ({known.implementation})")
        _INFOS[info.name] = info
    return info


def unregister(name: str) -> None:
    """Remove a target (a test's own target, when the test is done)."""
    with _LOCK:
        _INFOS.pop(name, None)
        _LOADED.pop(name, None)


def names() -> tuple[str, ...]:
    """Every registered target's name, in registration order (the built-ins first)."""
    with _LOCK:
        return tuple(_INFOS)


def infos() -> tuple[TargetInfo, ...]:
    with _LOCK:
        return tuple(_INFOS.values())


def info(name: str) -> TargetInfo:
    """The registered TargetInfo of `name`; UnknownTarget (one sentence) for any other name."""
    with _LOCK:
        found = _INFOS.get(name)
    if found is None:
        raise UnknownTarget(f"Unknown target {name!r}: choose from {', '.join(names())}.")
    return found


def load(name: str) -> Target:
    """The Target of `name`, its module imported on first use (it may import torch)."""
    described = info(name)
    with _LOCK:
        known = _LOADED.get(name)
    if known is not None:
        return known
    module_name, _, attribute = described.implementation.partition(":")
    made = getattr(importlib.import_module(module_name), attribute)
    target = made() if isinstance(made, type) else made
    with _LOCK:
        return _LOADED.setdefault(name, target)


def check_target(name: str, quantizer: str, dynamic_batch: bool = False) -> TargetInfo:
    """The TargetInfo of `name` when it can judge a graph of `quantizer` (with a dynamic batch);
    else an InspectorError with the target's one sentence (exit 2 on the command line, a dialog
    in the window)."""
    found = info(name)
    refused = found.refusal(quantizer, dynamic_batch)
    if refused is not None:
        raise InspectorError(refused)
    return found
