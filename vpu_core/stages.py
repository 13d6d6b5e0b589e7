"""The one vocabulary of stages: every step a run reports progress for, times or caches, and for
each its progress title, what a process was doing when it ended there, its share of one bar for a
whole inspection, its key in `timings_s` and the cache stores that keep its result.

    load → export → import → prepare → calibrate → convert → analyze → delegate → int_sim →
    lower → run → layout;   whatif (the op-list what-if), predict (the float graph's predicted
    partition), timed and cached without a progress line of their own;
    ablate (check --ablate: prepare … convert, sqnr per constraint);   sensitivity (its own steps: prepare,
    calibrate, layers, alone, fixes, search)

`Stage` is what `RunContext.report` takes (vpu_core.progress), `TimingKey` what `timings_s`
holds (the JSON report's keys, unchanged), `Store` what the cache's memory maps and disk folders
are named (vpu_core.cache). This module imports nothing of the project: every layer may use it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Stage = Literal["load", "export", "import", "prepare", "calibrate", "convert", "analyze", "delegate",
                "int_sim", "whatif", "predict", "lower", "run", "layout", "ablate", "sqnr", "sensitivity",
                "layers", "alone", "fixes", "search", "stages"]
# Keys of Analysis.timings_s (and SensitivityReport.timings_s): a stage's time, or a part of one
# measured on its own (sqnr: inside analyze), or a time that is no stage (reading the cache, the
# predicted partition of the float graph).
TimingKey = Literal["load", "export", "import", "prepare", "calibrate", "convert", "analyze", "sqnr",
                    "xnnpack_delegation", "whatif", "cache_load", "predict",
                    "layers", "alone", "fixes", "search"]
# The cache's stores: a memory map and (most) a disk folder each, by these names.
Store = Literal["export", "inputs", "calibration", "qparams", "quantized", "program", "analysis", "int_sim",
                "whatif", "sensitivity", "target", "lowering", "graph", "profile"]
Span = tuple[float, float]


@dataclass(frozen=True)
class StageInfo:
    title: str | None = None          # the progress line's label (None: reported inside another stage)
    doing: str | None = None          # "… while DOING" (None: the title, lower case)
    span: Span | None = None          # share of one inspection's bar (None: not on it)
    timing: TimingKey | None = None   # its key in timings_s (None: not timed)
    stores: tuple[Store, ...] = ()    # the cache stores that keep what it computed


STAGE_INFO: dict[Stage, StageInfo] = {
    "load": StageInfo("Loading model", "loading the model", (0.0, 0.1), "load", ("profile",)),
    "export": StageInfo("Exporting (torch.export)", "exporting it (torch.export)", (0.1, 0.35), "export",
                        ("export", "inputs")),
    "import": StageInfo("Importing the quantizer", "importing the quantizer", (0.35, 0.35), "import"),
    "prepare": StageInfo("Preparing (PT2E)", "preparing it for quantization (PT2E)", (0.35, 0.45), "prepare"),
    "calibrate": StageInfo("Calibrating", "calibrating", (0.45, 0.7), "calibrate", ("calibration",)),
    "convert": StageInfo("Converting to Q/DQ", "converting it to Q/DQ", (0.7, 0.8), "convert",
                         ("quantized", "qparams", "program")),
    "analyze": StageInfo("Checking VPU rules", "checking the VPU rules", (0.8, 0.9), "analyze", ("analysis",)),
    "delegate": StageInfo("Lowering with ExecuTorch XNNPACK", "lowering it with ExecuTorch XNNPACK", (0.9, 0.95),
                          "xnnpack_delegation", ("target",)),
    "int_sim": StageInfo("Simulating the VPU in integers", "simulating the VPU in integers", (0.9, 0.95),
                         stores=("int_sim",)),
    "whatif": StageInfo(timing="whatif", stores=("whatif",)),
    "predict": StageInfo(timing="predict"),
    "lower": StageInfo("Lowering to an ExecuTorch program", "lowering it to an ExecuTorch program", (0.8, 0.93),
                       stores=("program", "lowering")),
    "run": StageInfo("Running on this CPU (ExecuTorch)", "running it on this CPU (ExecuTorch)", (0.93, 0.98)),
    "layout": StageInfo("Laying out graph", "laying out the graph", (0.95, 1.0), stores=("graph",)),
    "ablate": StageInfo("Relaxing each constraint", "relaxing each constraint"),
    "sqnr": StageInfo(timing="sqnr"),
    "sensitivity": StageInfo("Sensitivity per layer and fixes", "sensitivity", stores=("sensitivity",)),
    "layers": StageInfo(timing="layers"),
    "alone": StageInfo(timing="alone"),
    "fixes": StageInfo(timing="fixes"),
    "search": StageInfo(timing="search"),
    "stages": StageInfo("Comparing the stages node by node", "comparing the stages node by node"),
}

STAGES: tuple[Stage, ...] = get_args(Stage)
PIPELINE_STAGES: tuple[Stage, ...] = ("load", "export", "import", "prepare", "calibrate", "convert")
STAGE_TITLES: dict[Stage, str] = {s: i.title for s, i in STAGE_INFO.items() if i.title is not None}
STAGE_SPANS: dict[Stage, Span] = {s: i.span for s, i in STAGE_INFO.items() if i.span is not None}
# timings_s of `check --format json`, in the report's order (keys only added, never renamed)
JSON_TIMING_KEYS: tuple[TimingKey, ...] = ("export", "prepare", "calibrate", "convert", "analyze", "sqnr",
                                           "import")   # import: added after sqnr


def timing_key(stage: Stage) -> TimingKey:
    """`stage`'s key in timings_s (a stage that is not timed has none: KeyError)."""
    key = STAGE_INFO[stage].timing
    if key is None:
        raise KeyError(stage)
    return key


def doing(stage: Stage) -> str:
    """What a process was doing when it last reported `stage` ("calibrating")."""
    info = STAGE_INFO[stage]
    return info.doing or (info.title or stage).lower()
