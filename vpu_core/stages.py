"""The stages of one inspection (vpu_core.session): their order, the titles a progress bar shows,
each stage's share of a bar for the whole inspection, and a context that notes which ran.

    load → export → import → prepare → calibrate → convert → analyze → delegate → int_sim →
    lower → run → layout
"""
from __future__ import annotations

from vpu_core.progress import RunContext, span_fraction

STAGES = ("load", "export", "import", "prepare", "calibrate", "convert", "analyze", "delegate", "int_sim",
          "lower", "run", "layout")
STAGE_TITLES = {
    "load": "Loading model", "export": "Exporting (torch.export)",
    "import": "Importing the quantizer", "prepare": "Preparing (PT2E)",
    "calibrate": "Calibrating", "convert": "Converting to Q/DQ", "analyze": "Checking VPU rules",
    "delegate": "Lowering with ExecuTorch XNNPACK", "layout": "Laying out graph",
    "int_sim": "Simulating the VPU in integers",
    "lower": "Lowering to an ExecuTorch program", "run": "Running on this CPU (ExecuTorch)",
}
# Share of a progress bar per stage (rough: a smooth bar, not a time estimate).
STAGE_SPANS = {
    "load": (0.0, 0.1), "export": (0.1, 0.35), "import": (0.35, 0.35), "prepare": (0.35, 0.45), "calibrate": (0.45, 0.7),
    "convert": (0.7, 0.8), "analyze": (0.8, 0.9), "delegate": (0.9, 0.95), "layout": (0.95, 1.0),
    "int_sim": (0.9, 0.95), "lower": (0.8, 0.93), "run": (0.93, 0.98),
}


def overall_fraction(stage: str, fraction: float) -> float:
    """Where a stage's own 0..1 progress sits on one bar for the whole inspection."""
    return span_fraction(STAGE_SPANS, stage, fraction)


def recording(ctx: RunContext) -> tuple[RunContext, dict[str, None]]:
    """`ctx`, also noting the name of every stage that reports (every stage that runs does)."""
    ran: dict[str, None] = {}
    parent = ctx.progress

    def report(stage: str, fraction: float) -> None:
        ran.setdefault(stage)
        if parent is not None:
            parent(stage, fraction)
    return RunContext(report, ctx.cancel), ran
