"""Segmented button pairs: the VPU | XNNPACK switch of the toolbar (side A) and the compare bar
(side B), and the same look for the view toolbar's choices."""
from __future__ import annotations

from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QPushButton, QWidget

VPU_ID, XNNPACK_ID = 0, 1


def quantizer_switch() -> tuple[QButtonGroup, QPushButton, QPushButton]:
    """Two checkable buttons styled as one segmented control; ids 0 = VPU, 1 = XNNPACK."""
    vpu, xnn = QPushButton("VPU"), QPushButton("XNNPACK")
    group = QButtonGroup(vpu)
    for button_id, button in enumerate((vpu, xnn)):
        button.setCheckable(True)
        group.addButton(button, button_id)
    vpu.setToolTip("MyVPUQuantizer: encodes the eight VPU constraints")
    xnn.setToolTip("ExecuTorch XNNPACKQuantizer: fine for a CPU, breaks most VPU rules")
    return group, vpu, xnn


def segmented(*buttons: QPushButton) -> tuple[QWidget, QButtonGroup | None]:
    """The buttons side by side as one control (the theme rounds the outer corners only)."""
    box = QWidget()
    row = QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(0)
    for i, button in enumerate(buttons):
        button.setObjectName("segLeft" if i == 0 else "segRight")
        row.addWidget(button)
    return box, buttons[0].group() if buttons and buttons[0].group() else None
