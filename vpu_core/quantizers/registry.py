"""The registry of quantizers: each backend's package registers its own, importable without torch.

A quantizer belongs to the target package of its backend (vpu_core.targets.vpu: MyVPUQuantizer,
targets.xnnpack: XNNPACKQuantizer, targets.arm: EthosUQuantizer, targets.openvino: NNCF's
OpenVINOQuantizer), which calls `register(QuantizerInfo(...))` when it is imported, beside its
TargetInfo. Everything here is plain data naming code by "module:attribute", loaded on first
use, so the command line builds its `--quantizer` choices (`names()`) before torch is imported.

This module sits in the quantizers layer, below the targets that register into it (the core's
layers, pyproject [tool.importlinter]), so the pipeline can dispatch through it. The built-in
backends are found the way the factories are loaded: by module path. The first question to the
registry imports `vpu_core.targets` (torch-free, it imports the built-in target packages), as an
entry-point scan would; a package outside the project registers by being imported.

How a registered quantizer makes its graph (vpu_core.pipeline):
    factory     "module:attribute" of `make(request: QuantizerRequest) -> Quantizer` (torchao's
                PT2E Quantizer): the pipeline prepares with it, calibrates and converts
    quantize    "module:attribute" of `quantize(request, float_gm, batches) -> GraphModule`, for a
                backend whose own flow calibrates and converts in one call (NNCF's quantize_pt2e
                for OpenVINO): it replaces prepare → calibrate → convert and returns the
                converted Q/DQ graph (quantized_decomposed ops, weights folded), which the analysis
                reads like any other; no observers, so nothing to replay (`replays` False)
"""
from __future__ import annotations

import importlib
import importlib.util
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from vpu_core.errors import InspectorError

if TYPE_CHECKING:
    from vpu_core.profile import HardwareProfile
    from vpu_core.quantizers.offers import Offers
    from vpu_core.quantizers.overrides import NodeChanges


@dataclass(frozen=True)
class QuantizerRequest:
    """What a factory (or a quantize function) is asked for: one run's settings."""

    name: str                           # the registered name ("ethos-u-a16w8": its a16w8 variant)
    profile: HardwareProfile
    per_tensor: bool = False            # weights per-tensor instead of per-channel
    reference_observers: bool = False   # torchao's stock observers instead of the fast, identical ones
    keep_float: frozenset[str] = frozenset()   # ops the VPU quantizer leaves in float for mask constants
    changes: NodeChanges | None = None  # the run's per-op changes (vpu_core.quantizers.overrides)


@dataclass(frozen=True)
class QuantizerInfo:
    """A quantizer as the registry lists it: no torch, nothing loaded.

    name        `--quantizer NAME`, RunConfig.quantizer, the cache key's and the JSON's word
    title       who makes the graph ("ExecuTorch XNNPACKQuantizer"), for reports and tooltips
    factory     "module:attribute" of the PT2E Quantizer's maker (see the module docstring), or ""
    quantize    "module:attribute" of a one-call quantize function (see the module docstring), or ""
    offers      the per-op changes it lets a user make (overrides.Offers); None: keep_float only
    preload     modules stage "import" imports (timed on its own: ExecuTorch's quantizer module)
    requires    (module, pip package) pairs it cannot work without; `extra` installs them
    extra       the extra of this package that brings them ("ethos-u", "openvino")
    """

    name: str
    title: str
    factory: str = ""
    quantize: str = ""
    offers: Offers | None = None
    preload: tuple[str, ...] = ()
    requires: tuple[tuple[str, str], ...] = ()
    extra: str = ""

    @property
    def replays(self) -> bool:
        """It prepares with observers a later run can replay (sensitivity, per-op changes)."""
        return not self.quantize

    def unavailable(self) -> str | None:
        """One sentence when a package it needs is not installed here, else None (no import)."""
        missing = sorted({package for module, package in self.requires if not _importable(module)})
        if not missing:
            return None
        how = f": install them with pip install 'vpu-inspector[{self.extra}]'" if self.extra else ""
        return f"The {self.name} quantizer needs {' and '.join(missing)}{how}."

    def check_available(self) -> None:
        refused = self.unavailable()
        if refused is not None:
            raise InspectorError(refused)


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


_INFOS: dict[str, QuantizerInfo] = {}
_LOCK = threading.RLock()
_discovered = False


def register(info: QuantizerInfo) -> QuantizerInfo:
    """Add `info` (again with the same info: nothing changes); a name taken by another quantizer
    raises ValueError, as the target registry does."""
    with _LOCK:
        known = _INFOS.get(info.name)
        if known is not None and known != info:
            raise ValueError(f"quantizer {info.name!r} is already registered ({known.factory or known.quantize})")
        _INFOS[info.name] = info
    return info


def unregister(name: str) -> None:
    with _LOCK:
        _INFOS.pop(name, None)


def _discover() -> None:
    """Import the built-in target packages once (they register their quantizers); see the module
    docstring for why by module path."""
    global _discovered
    if _discovered:
        return
    with _LOCK:
        if not _discovered:
            _discovered = True
            importlib.import_module("vpu_core.targets")


def names() -> tuple[str, ...]:
    """Every registered quantizer's name, the built-ins first ("vpu", "xnnpack", "ethos-u", …)."""
    _discover()
    with _LOCK:
        return tuple(_INFOS)


def is_quantizer(name: str) -> bool:
    """A name the command line or a file gave is a registered quantizer."""
    return name in names()


def info(name: str) -> QuantizerInfo:
    """The QuantizerInfo of `name`; an InspectorError (one sentence) for any other name."""
    _discover()
    with _LOCK:
        found = _INFOS.get(name)
    if found is None:
        raise InspectorError(f"Unknown quantizer {name!r}: choose from {', '.join(names())}.")
    return found


def loaded(reference: str) -> Callable[..., Any]:
    """The attribute a "module:attribute" reference names, its module imported now."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)
