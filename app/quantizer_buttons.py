"""The VPU | XNNPACK segmented switch used by the toolbar (side A) and the compare bar (side B)."""
from __future__ import annotations

from PySide6.QtWidgets import QButtonGroup, QPushButton, QWidget

VPU_ID, XNNPACK_ID = 0, 1


def quantizer_switch(owner: QWidget) -> tuple[QButtonGroup, QPushButton, QPushButton]:
    """Two checkable buttons styled as one segmented control; ids 0 = VPU, 1 = XNNPACK."""
    vpu, xnn = QPushButton("VPU"), QPushButton("XNNPACK")
    group = QButtonGroup(owner)
    for button_id, (button, name) in enumerate(((vpu, "segLeft"), (xnn, "segRight"))):
        button.setCheckable(True)
        button.setObjectName(name)   # the theme's style sheet rounds the outer corners
        group.addButton(button, button_id)
    vpu.setToolTip("MyVPUQuantizer: encodes the eight VPU constraints")
    xnn.setToolTip("ExecuTorch XNNPACKQuantizer: fine for a CPU, breaks most VPU rules")
    return group, vpu, xnn
