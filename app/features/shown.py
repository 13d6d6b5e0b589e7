"""What is shown, as words: small pure functions of the application state that several features
use (the partition a result is coloured by, a compare side's name, the window title). Not a
feature: no controller lives here, so every feature may import it (import contract "features are
independent")."""
from __future__ import annotations

from typing import TYPE_CHECKING

from app.state import AppState
from vpu_core.formatting import quantizer_label
from vpu_core.compare import Side

if TYPE_CHECKING:
    from vpu_core.session import Inspection


def source_of(inspection: Inspection | None) -> str:
    """The partition an inspection's graph is coloured by."""
    return inspection.view.partition_source if inspection is not None and inspection.view else "simulated"


def side_label(state: AppState, side: Side) -> str:
    """How compare mode names a side ("VPU", "XNNPACK · per-tensor"); "A" / "B" without one."""
    pair = state.comparison
    if pair is None:
        return side.upper()
    return pair.comparison.a_label if side == "a" else pair.comparison.b_label


def window_title(state: AppState) -> str:
    pair, result = state.comparison, state.result
    if state.showing_compare and pair is not None:
        return (f"VPU Inspector — {pair.a.analysis.model}: "
                f"{pair.comparison.a_label} vs {pair.comparison.b_label}")
    if result is not None:
        return f"VPU Inspector — {result.analysis.model} ({quantizer_label(result.analysis)})"
    return "VPU Inspector"
