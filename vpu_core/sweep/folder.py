"""Reading a sweep folder back (the window's sweep table): rows as frozen values, and the
RunConfig that reproduces any row (double-click opens that model with its quantizer and profile).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from vpu_core.config import RunConfig
from vpu_core.errors import InspectorError

# The RunConfig fields a sweep summary keeps under "options" (sweep.run writes them, _row reads them).
RUN_OPTION_FIELDS = ("calib_batches", "seed", "batch_size", "per_tensor", "dynamic_batch", "calib_data",
                     "reference_observers")


class SweepFolderError(InspectorError):
    """The folder is not a sweep folder, or its summary is unreadable."""


@dataclass(frozen=True)
class SweepRow:
    model: str
    quantizer: str
    profile: str
    status: str                      # "ok" | "error" | "timeout"
    reason: str
    vpu_mac_share: float | None
    cpu_ops: int | None
    cpu_ops_by_cause: tuple[tuple[str, int], ...]
    subgraphs: int | None
    rules_broken: tuple[str, ...]
    sqnr_db: float | None
    seconds: float
    config: RunConfig                # what reproduces the run (model spec, quantizer, profile, options)
    page: str | None                 # the run's HTML page (absolute), when there is one


@dataclass(frozen=True)
class SweepSummary:
    folder: str
    rows: tuple[SweepRow, ...]
    models: int
    profiles: tuple[str, ...]
    quantizers: tuple[str, ...]
    wall_seconds: float


def load_sweep(folder: str | Path) -> SweepSummary:
    """The sweep in `folder` (its summary.json). Raises SweepFolderError with one sentence."""
    folder = Path(folder)
    path = folder / "summary.json" if os.path.isdir(folder) else folder
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        rows = tuple(_row(r, data.get("options") or {}, path.parent) for r in data["rows"])
    except FileNotFoundError:
        raise SweepFolderError(f"{folder} is not a sweep folder: it has no summary.json "
                               "(make one with `vpu-inspector sweep MODELS -o DIR`).") from None
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise SweepFolderError(f"Cannot read the sweep summary {path}: {exc}.") from None
    return SweepSummary(str(path.parent), rows, len(data.get("models") or []),
                        tuple(p.get("label", "") for p in data.get("profiles") or []),
                        tuple(data.get("quantizers") or []), float(data.get("wall_seconds") or 0.0))


def _row(r: dict, options: dict, root: Path) -> SweepRow:
    config = RunConfig(model=r.get("spec") or r["model"], quantizer=r["quantizer"], profile=r.get("profile_path"),
                       **{k: options[k] for k in RUN_OPTION_FIELDS if k in options})
    page = r.get("html") if r.get("status") == "ok" else None
    return SweepRow(
        model=r["model"], quantizer=r["quantizer"], profile=r["profile"], status=r["status"],
        reason=r.get("reason") or "", vpu_mac_share=r.get("vpu_mac_share"), cpu_ops=r.get("cpu_ops"),
        cpu_ops_by_cause=tuple((r.get("cpu_ops_by_cause") or {}).items()), subgraphs=r.get("subgraphs"),
        rules_broken=tuple(r.get("rules_broken") or ()), sqnr_db=r.get("sqnr_db"),
        seconds=float(r.get("seconds") or 0.0), config=config,
        page=str(root / page) if page else None)
