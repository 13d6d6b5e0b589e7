"""Targets: who judges a quantized graph. One package per backend, behind one registry.

A quantizer makes the Q/DQ graph; a target judges it: which nodes it would run and which it
leaves on the CPU and why (its verdict), optionally what its part costs (its estimate), what it
computes when run here, and what it exports. Any quantizer's graph can go to any target that
accepts it (TargetInfo.judges).

    from vpu_core import targets
    targets.names()                 # ("vpu", "xnnpack"): importing this package imports no torch
    targets.info("xnnpack").title   # "XNNPACK" (registry.TargetInfo)
    targets.load("xnnpack")         # the Target (protocol.Target); its module may import torch

The command line's `--target` choices, the window's "Colour by" buttons and the sweep read this
registry; the session runs a target's verdict and caches it (Session.target). A new target is one
package that calls `register(TargetInfo(...))` when imported (see vpu_core/targets/vpu for the
smallest built-in one), imported below like the built-ins or by whoever registers it.

A backend owns its quantizer too: its package registers a `QuantizerInfo` (vpu_core.quantizers.
registry: name, title, factory "module:attribute", offers, preload, requires) beside its
TargetInfo and names it in `TargetInfo.quantizer`; the quantizer's module lives in the package
(targets/vpu/quantizer.py: MyVPUQuantizer, targets/xnnpack/quantizer.py, targets/arm/quantizer.py).
`--quantizer` lists what the packages registered; vpu_core.pipeline makes it through the registry
(a factory of a PT2E Quantizer, or a `quantize` function for a backend that quantizes in one call).
"""
from vpu_core.targets.registry import (QuantizerInfo, TargetInfo, UnknownTarget, check_target, info, infos, load,
                                       names, register, register_quantizer, unregister)

# The built-in targets register themselves (their packages import no torch).
from vpu_core.targets import vpu, xnnpack  # noqa: E402,F401  (isort: after the registry)
from vpu_core.targets import arm  # noqa: E402,F401  (after the built-ins: the registry keeps their order)
from vpu_core.targets import openvino  # noqa: E402,F401

__all__ = ["QuantizerInfo", "TargetInfo", "UnknownTarget", "check_target", "info", "infos", "load", "names",
           "register", "register_quantizer", "unregister"]
