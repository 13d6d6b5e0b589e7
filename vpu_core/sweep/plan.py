"""What a sweep runs: model arguments expanded into model specs, crossed with quantizers and
profiles into runs, each with a file name in the sweep folder and its content key.

A model argument is a zoo name, a `.py` (optionally `:callable`) or `.pt2` file, a folder (its
`.py` and `.pt2` files, sorted; names starting with `_` or `.` skipped), or a text file listing
any of these one per line (`#` comments; relative paths are relative to the list file).

The content key of a run is the analysis key of its configuration (vpu_core.cache.keys: model
and profile bytes, every option, package versions, this package's code): a finished run whose
recorded key equals it is still valid and is not run again — not even a process is started.
No torch is imported here.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from vpu_core.cache.keys import FileHashes, digest, stage_keys
from vpu_core.config import RunConfig, split_model_spec
from vpu_core.quantizers.registry import is_quantizer, names as quantizer_names
from vpu_core.errors import InspectorError

ROW_FORMAT = 1          # bump when a row's fields change meaning: every recorded run is re-run
MODEL_SUFFIXES = (".py", ".pt2")
LIST_SUFFIXES = (".txt", ".lst", ".list")


class SweepError(InspectorError):
    """The sweep cannot start (no models, a bad option)."""


@dataclass(frozen=True)
class ProfileRef:
    path: str | None        # None: the shipped profile
    label: str              # its [profile] name (file stem when unreadable), unique in the sweep


@dataclass(frozen=True)
class Run:
    config: RunConfig
    model_label: str        # unique in the sweep: the file stem (or zoo name), disambiguated
    profile: ProfileRef
    slug: str               # file name stem in DIR/runs/
    key: str | None         # content key; None when an input is unreadable (the run reports why)
    export_key: str | None  # runs sharing it share the export + calibration cache entries


@dataclass(frozen=True)
class Plan:
    runs: tuple[Run, ...]
    models: tuple[str, ...]
    quantizers: tuple[str, ...]
    profiles: tuple[ProfileRef, ...]


def expand_models(args: list[str] | tuple[str, ...]) -> list[str]:
    """Model specs from the command line's MODEL arguments, in order, without duplicates."""
    out: dict[str, None] = {}
    for arg in args:
        for spec in _expand(arg, depth=0):
            out.setdefault(spec, None)
    return list(out)


def _expand(arg: str, depth: int) -> list[str]:
    path = Path(arg)
    # os.path, not Path.is_dir: a name the system refuses (too long, a NUL) is a model the run
    # reports with its sentence, not an OSError here
    if os.path.isdir(arg):
        return [str(p) for p in sorted(path.iterdir())
                if p.suffix in MODEL_SUFFIXES and p.is_file() and not p.name.startswith(("_", "."))]
    if os.path.isfile(arg) and (path.suffix in LIST_SUFFIXES or not path.suffix):
        if depth > 4:
            raise SweepError(f"Model list {path} includes lists nested too deeply.")
        return _read_list(path, depth)
    return [arg]     # a zoo name, a model file, or something the run itself will report


def _read_list(path: Path, depth: int) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SweepError(f"Cannot read the model list {path}: {exc}.") from None
    out = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        entry = Path(line.split(":", 1)[0]) if not Path(line).exists() else Path(line)
        if not entry.is_absolute() and (path.parent / entry).exists():
            line = str(path.parent / line)
        out.extend(_expand(line, depth + 1))
    return out


def profile_refs(paths: list[str | None] | tuple[str | None, ...]) -> tuple[ProfileRef, ...]:
    """Each profile with a unique label: its [profile] name, else the file stem."""
    from resources import DEFAULT_PROFILE

    refs, seen = [], set()
    for path in dict.fromkeys(paths or [None]):
        label = _profile_name(Path(path) if path else DEFAULT_PROFILE)
        if label in seen:
            label = f"{label}-{Path(path).stem}" if path else f"{label}-default"
        seen.add(label)
        refs.append(ProfileRef(path, label))
    return tuple(refs)


def _profile_name(path: Path) -> str:
    try:
        name = tomllib.loads(path.read_text(encoding="utf-8")).get("profile", {}).get("name")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, AttributeError):
        name = None
    return str(name) if name else path.stem


def model_labels(specs: list[str]) -> dict[str, str]:
    """A short unique label per spec: the stem (+ callable), with a hash suffix on a clash."""
    def stem(spec: str) -> str:
        path_part, attr = split_model_spec(spec)
        base = Path(path_part).stem if Path(path_part).suffix in MODEL_SUFFIXES else spec
        return f"{base}:{attr}" if attr else base

    stems = {s: stem(s) for s in specs}
    counts: dict[str, int] = {}
    for s in stems.values():
        counts[s] = counts.get(s, 0) + 1
    return {s: (st if counts[st] == 1 else f"{st}-{hashlib.sha256(s.encode()).hexdigest()[:6]}")
            for s, st in stems.items()}


def plan_sweep(model_args: list[str], quantizers: tuple[str, ...] = ("vpu",),
               profiles: tuple[str | None, ...] = (None,), base: RunConfig = RunConfig()) -> Plan:
    """Every model × quantizer × profile of the sweep, models outermost."""
    specs = expand_models(model_args)
    if not specs:
        raise SweepError("No models to sweep: the arguments name no model file, folder or zoo name.")
    for q in quantizers:
        if not is_quantizer(q):
            raise SweepError(f"Unknown quantizer '{q}': expected {' or '.join(quantizer_names())}.")
    names = [q for q in dict.fromkeys(quantizers) if is_quantizer(q)]
    refs = profile_refs(list(profiles))
    labels = model_labels(specs)
    hashes = FileHashes()
    runs = []
    for spec in specs:
        for q in names:
            for ref in refs:
                config = dataclasses.replace(base, model=spec, quantizer=q, profile=ref.path)
                keys = stage_keys(config, hashes)
                slug = _slug(f"{labels[spec]}__{q}__{ref.label}")
                runs.append(Run(config, labels[spec], ref, slug,
                                run_key(keys.analysis) if keys else None,
                                keys.export if keys else None))
    return Plan(tuple(runs), tuple(labels[s] for s in specs), tuple(dict.fromkeys(quantizers)), refs)


def run_key(analysis_key: str) -> str:
    """The key a finished run is recorded under: its analysis key and the row format."""
    return digest("sweep-row", ROW_FORMAT, analysis_key)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._=-]+", "_", text).strip("._") or "run"
