"""How the widgets name the sides of the partition a graph is coloured by.

The simulated VPU partition has subgraphs and CPU fallback ops; the real XNNPACK delegation has
delegates and ops not delegated; an Arm target (Ethos-U, TOSA INT) has NPU partitions and ops the
Arm backend left on the CPU. Names come from the target registry (vpu_core.targets: no torch).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QComboBox

from vpu_core.config import SIMULATED, QuantizerName
from vpu_core.quantizers.registry import is_quantizer


@dataclass(frozen=True)
class ColourChoice:
    """One entry of a "Colour by" list: the partition source it sets, its name, its tooltip (for
    an unavailable target: why), and whether it can be chosen here."""

    source: str                  # ViewOptions.partition_source ("simulated", "xnnpack", "ethos-u55-128")
    title: str                   # "VPU", "XNNPACK", "Ethos-U55-128"
    tooltip: str
    enabled: bool = True


def fill_colour_combo(combo: QComboBox, choices: Sequence[ColourChoice]) -> None:
    """`combo`'s entries (data: the source), keeping the current one; an entry that cannot be
    chosen is disabled, its tooltip saying why. Announces nothing."""
    current = combo.currentData()
    combo.blockSignals(True)
    try:
        combo.clear()
        model = combo.model()
        for i, choice in enumerate(choices):
            combo.addItem(choice.title, choice.source)
            combo.setItemData(i, choice.tooltip, Qt.ItemDataRole.ToolTipRole)
            item = model.item(i) if isinstance(model, QStandardItemModel) else None
            if not choice.enabled and item is not None:
                item.setEnabled(False)
        combo.setCurrentIndex(max(combo.findData(current), 0))
    finally:
        combo.blockSignals(False)


@dataclass(frozen=True)
class SideWords:
    """The words of one target's verdict, the same shape for every target: "partition" for a
    part on its accelerator (never "subgraph" or "delegate"), "CPU" for what it leaves there."""

    label: str       # the target: "VPU", "XNNPACK", "Ethos-U55-128"
    unit: str        # one accelerator part: "VPU partition", "XNNPACK partition", "Ethos-U55-128 partition"
    short: str       # the same, short: "partition"
    on: str          # its accelerator: "VPU", "XNNPACK", "NPU", "TOSA" (a boundary reads "CPU → NPU")
    cpu: str         # a node left on the CPU: "CPU"
    cpu_ops: str     # the count's noun: "CPU ops"


def side_words(source: str) -> SideWords:
    from vpu_core.graph.legend import accelerator_word

    title = target_title(source)
    return SideWords(title, f"{title} partition", "partition", accelerator_word(source), "CPU", "CPU ops")


def target_title(source: str) -> str:
    """The registry's title of the target a graph is coloured by ("VPU" for the simulated one)."""
    from vpu_core import targets

    if source == SIMULATED:
        return "VPU"
    try:
        return targets.info(source).title
    except targets.UnknownTarget:
        return source


def boundary_text(direction: str, source: str) -> str:
    """A boundary edge in the user's words: "CPU → NPU", "VPU → CPU" (never "cpu->vpu")."""
    on = side_words(source).on
    return f"CPU → {on}" if direction == "cpu->vpu" else f"{on} → CPU"


def target_name(source: str) -> str:
    """The registry's name of a partition source ("simulated" is the VPU target, "vpu")."""
    return "vpu" if source == SIMULATED else source


def own_quantizer(source: str, current: QuantizerName) -> QuantizerName:
    """The quantizer target `source` names (TargetInfo.quantizer); `current` when it names none,
    or when it is already a config of that quantizer (ethos-u-a16w8 for an Ethos-U)."""
    from vpu_core import targets

    try:
        own = targets.info(target_name(source)).quantizer
    except targets.UnknownTarget:
        return current
    if own is None or not is_quantizer(own) or current.startswith(own):
        return current
    return own
