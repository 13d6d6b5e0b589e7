"""The small immutable values the application state holds (each field is replaced, never mutated)."""
from __future__ import annotations

from dataclasses import dataclass, replace

from vpu_core.compare import Side
from vpu_core.config import QuantizerName, RunConfig


@dataclass(frozen=True)
class Selection:
    side: Side
    node: str                   # the node as drawn (a folded parameter is shown as its op)


@dataclass(frozen=True)
class Search:
    text: str = ""
    matches: tuple[str, ...] = ()
    index: int | None = None    # the match shown now


@dataclass(frozen=True)
class RunStatus:
    running: bool = False
    stage: str = ""             # stage title while running ("Calibrating"), or the last outcome
    fraction: float = 0.0
    model: str = ""             # model of the job running (or last started)
    quantizer: str = ""
    error: object = None        # the InspectorError of the last run when it failed
    cancelled: bool = False
    seconds: float | None = None
    config: RunConfig | None = None   # side A's configuration of the job running (or last started)


@dataclass(frozen=True)
class Look:
    """How the window draws, for a desk or a projector (saved between launches)."""

    large_font: bool = False    # bigger labels on the canvases, bigger text in the docks
    high_contrast: bool = False  # black outlines and edges, darker secondary text
    presentation: bool = False  # demos (F5): larger bold labels, thick edges, scaled legend;
                                # not saved: a new launch starts at the desk


@dataclass(frozen=True)
class CompareB:
    """Side B of compare mode: side A's configuration with these settings changed. The model,
    calibration data and seed are always A's, so the two runs differ only where the user asked."""

    quantizer: QuantizerName = "xnnpack"
    per_tensor: bool = False
    dynamic_batch: bool = False
    profile: str | None = None
    colour_by: str | None = None       # B's partition source when it differs from A's (the VPU
                                       # beside an Ethos-U: "ethos-u55-128"); None: as A

    def config(self, a: RunConfig) -> RunConfig:
        """B's full configuration for side A `a`."""
        return replace(a, quantizer=self.quantizer, per_tensor=self.quantizer != "vpu" and self.per_tensor,
                       dynamic_batch=self.dynamic_batch, profile=self.profile)

    @classmethod
    def of(cls, config: RunConfig, colour_by: str | None = None) -> CompareB:
        """B's settings as `config` has them (coloured by `colour_by`, None: as A)."""
        return cls(config.quantizer, config.per_tensor, config.dynamic_batch, config.profile, colour_by)

    @classmethod
    def other_quantizer(cls, a: RunConfig) -> CompareB:
        """The default B: A under the other quantizer."""
        return cls.of(replace(a, quantizer="xnnpack" if a.quantizer == "vpu" else "vpu"))
