"""The analysis half: read a converted Q/DQ graph and produce an `Analysis` (plain frozen dataclasses).

    analysis = analyze(qm)                         # rules, partition, shifts, stats, SQNR

Everything is read from the Q/DQ graph itself (qm.converted); the quantizer is never trusted, so a
VPU graph, an XNNPACK graph and a Q/DQ .pt2 loaded from disk are checked the same way.

Importing the package is cheap: `vpu_core.analysis.results` (the plain dataclasses the GUI and the
reports read) must not pull in torch, so `analyze`, `RULES` and `check_vpu` load on first use.
"""
from __future__ import annotations

from typing import Any

__all__ = ["RULES", "analyze", "check_vpu"]


def __getattr__(name: str) -> Any:
    if name == "analyze":
        from vpu_core.analysis.analyzer import analyze

        return analyze
    if name in ("RULES", "check_vpu"):
        from vpu_core.analysis import rules

        return getattr(rules, name)
    raise AttributeError(f"module 'vpu_core.analysis' has no attribute {name!r}")
