"""The What-if dock's contents: the profile editor, what each constraint costs, the next kernel.

Three tabs, each its own widget (app.widgets.profile_editor, ablation_chart, op_candidates); the
what-if feature (app.features.whatif) feeds them and acts on what they announce.
"""
from __future__ import annotations

from PySide6.QtWidgets import QTabWidget

from app.widgets.ablation_chart import AblationChart
from app.widgets.op_candidates import OpCandidatesPanel
from app.widgets.profile_editor import ProfileEditor

TAB_PROFILE, TAB_ABLATION, TAB_CANDIDATES = 0, 1, 2


class WhatIfPanel(QTabWidget):
    def __init__(self) -> None:
        super().__init__()
        self.editor, self.chart, self.candidates = ProfileEditor(), AblationChart(), OpCandidatesPanel()
        self.addTab(self.editor, "Profile")
        self.addTab(self.chart, "Cost")
        self.addTab(self.candidates, "Next kernel")
        self.setTabToolTip(TAB_PROFILE, "The hardware profile as a form: Apply, Revert, Save as TOML")
        self.setTabToolTip(TAB_ABLATION, "What each constraint 2–8 costs in SQNR on this model")
        self.setTabToolTip(TAB_CANDIDATES, "Op-list what-if and partition economics")
