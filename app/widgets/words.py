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

from vpu_core.config import SIMULATED


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
    label: str       # what places the node: "VPU partition", "XNNPACK", "Ethos-U55-128"
    unit: str        # one accelerator part: "VPU subgraph", "XNNPACK delegate", "Ethos-U55-128 partition"
    short: str       # the same, short: "subgraph", "delegate", "partition"
    on: str          # a node on the accelerator: "VPU", "delegated", "NPU"
    cpu: str         # a node left on the CPU: "CPU", "not delegated", "CPU"
    cpu_ops: str     # the count's noun: "CPU fallback ops", "not delegated", "CPU ops"


def side_words(source: str) -> SideWords:
    if source == SIMULATED:
        return SideWords("VPU partition", "VPU subgraph", "subgraph", "VPU", "CPU", "CPU fallback ops")
    if source == "xnnpack":
        return SideWords("XNNPACK", "XNNPACK delegate", "delegate", "delegated", "not delegated", "not delegated")
    from vpu_core import targets

    try:
        title = targets.info(source).title
    except targets.UnknownTarget:
        title = source
    on = "TOSA" if source == "tosa-int" else "NPU"
    return SideWords(title, f"{title} partition", "partition", on, "CPU", "CPU ops")
