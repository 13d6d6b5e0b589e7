"""Segmented buttons: the VPU | XNNPACK | Arm quantizer switch of the toolbar (side A) and the
compare bar (side B), and the same look for the view toolbar's choices."""
from __future__ import annotations

from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QPushButton, QWidget

from vpu_core.config import QuantizerName

VPU_ID, XNNPACK_ID, ARM_ID = 0, 1, 2
ARM_TIP = ("ExecuTorch Arm's EthosUQuantizer (symmetric int8, per-channel weights): the graph an "
           "Ethos-U or TOSA target compiles")


def quantizer_switch() -> tuple[QButtonGroup, QPushButton, QPushButton, QPushButton]:
    """Three checkable buttons styled as one segmented control; ids 0 = VPU, 1 = XNNPACK,
    2 = Arm (ethos-u; disabled, saying why, without the [ethos-u] extra)."""
    vpu, xnn, arm = QPushButton("VPU"), QPushButton("XNNPACK"), QPushButton("Arm")
    group = QButtonGroup(vpu)
    for button_id, button in enumerate((vpu, xnn, arm)):
        button.setCheckable(True)
        group.addButton(button, button_id)
    vpu.setToolTip("MyVPUQuantizer: encodes the eight VPU constraints")
    xnn.setToolTip("ExecuTorch XNNPACKQuantizer: fine for a CPU, breaks most VPU rules")
    missing = arm_missing()
    arm.setToolTip(missing or ARM_TIP)
    arm.setEnabled(missing is None)
    return group, vpu, xnn, arm


def arm_missing() -> str | None:
    """Why the Arm quantizer cannot run here (its packages, the tosa-int target's), else None."""
    from vpu_core import targets

    return targets.info("tosa-int").unavailable() if "tosa-int" in targets.names() else "no Arm backend"


def quantizer_of(button_id: int, current: QuantizerName) -> QuantizerName:
    """The quantizer a switch position means; the Arm button keeps an Arm config already chosen
    (ethos-u-a16w8)."""
    if button_id == ARM_ID:
        return current if current.startswith("ethos-u") else "ethos-u"
    return "xnnpack" if button_id == XNNPACK_ID else "vpu"


def button_of(quantizer: str) -> int:
    return ARM_ID if quantizer.startswith("ethos-u") else XNNPACK_ID if quantizer == "xnnpack" else VPU_ID


def segmented(*buttons: QPushButton) -> tuple[QWidget, QButtonGroup | None]:
    """The buttons side by side as one control (the theme rounds the outer corners only)."""
    box = QWidget()
    row = QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(0)
    for i, button in enumerate(buttons):
        button.setObjectName("segLeft" if i == 0 else "segRight" if i == len(buttons) - 1 else "segMid")
        row.addWidget(button)
    return box, buttons[0].group() if buttons and buttons[0].group() else None
