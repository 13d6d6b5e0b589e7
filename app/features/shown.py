"""What is shown, as words: small pure functions of the application state that several features
use (the partition a result is coloured by, a compare side's name, the window title). Not a
feature: no controller lives here, so every feature may import it (import contract "features are
independent")."""
from __future__ import annotations

from typing import TYPE_CHECKING

from app.state import AppState
from app.widgets.words import ColourChoice
from vpu_core.formatting import quantizer_label
from vpu_core.compare import Side
from vpu_core.config import SIMULATED

if TYPE_CHECKING:
    from vpu_core.session import Inspection


XNNPACK = "xnnpack"     # the XNNPACK target's name in the registry (Ctrl+D toggles VPU / XNNPACK)


def source_of(inspection: Inspection | None) -> str:
    """The partition an inspection's graph is coloured by."""
    return inspection.view.partition_source if inspection is not None and inspection.view else SIMULATED


def source_title(source: str) -> str:
    """The name of a colouring: "VPU", "XNNPACK", "Ethos-U55-128" (the target registry's titles)."""
    from vpu_core import targets

    if source == SIMULATED:
        return "VPU"
    try:
        return targets.info(source).title
    except targets.UnknownTarget:
        return source


def colour_choices() -> list[ColourChoice]:
    """One entry per registered target, in the registry's order (the VPU first): torch-free."""
    from vpu_core import targets

    choices = []
    for info in targets.infos():
        missing = info.unavailable()
        if info.name == "vpu":
            choices.append(ColourChoice(SIMULATED, info.title, "The VPU: its partition from the hardware "
                                                               "profile's op list and limits, and its rules"))
        else:
            choices.append(ColourChoice(info.name, info.title, missing or f"{info.description} "
                                        "(judged once per graph, in the worker: seconds to a minute)",
                                        enabled=missing is None))
    return choices


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
