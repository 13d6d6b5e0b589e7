"""Content keys of the pipeline stages: a hash of everything that determines each stage's result.

    export       model identity (zoo name, or file name + callable + file bytes), batch, dynamic, seed
    calibration  export key + number of batches + seed + calibration file bytes
    quantized    calibration key + quantizer + per-tensor + reference observers + per-op changes
                 + (VPU only) the profile tables the quantizer reads: [ops] and [constraints]
    analysis     quantized key + the whole profile text + whether the XNNPACK lowering is included

Every key also covers the environment: Python, torch, torchao, executorch, transformers and numpy
versions and a hash of this package's own source and shipped profile, so an upgrade or an edit of
the code never serves an old result. Computing a key imports no torch (the GUI asks for a cached
result before torch is loaded) and reads each input file once per change of its size / mtime.

A key is None when an input cannot be read (a missing model file, a profile that is not TOML):
nothing is cached and the pipeline reports the problem as it always does.
"""
from __future__ import annotations

import functools
import hashlib
import stat
import json
import os
import sys
import threading
import tomllib
from dataclasses import dataclass
from pathlib import Path

from vpu_core.config import HELDOUT_SAMPLES, RunConfig, split_model_spec

PACKAGES = ("torch", "torchao", "executorch", "transformers", "numpy")
FORMAT = 1   # bump when the layout of any cached entry changes


def digest(*parts: object) -> str:
    """32 hex chars of SHA-256 over a canonical JSON of `parts`."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@functools.lru_cache(maxsize=1)
def environment() -> str:
    """Versions of everything that can change a result, and a hash of our own code."""
    from importlib import metadata

    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return digest(FORMAT, sys.version, versions, _code_hash())


def _code_hash() -> str:
    import resources
    import vpu_core

    h = hashlib.sha256()
    roots = (Path(vpu_core.__file__).parent, Path(resources.__file__).parent)
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".toml")):
            h.update(str(path.relative_to(root.parent)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()


class FileHashes:
    """SHA-256 of files, re-read only when a file's size, mtime or inode changes."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[tuple, str]] = {}
        self._lock = threading.Lock()

    def of(self, path: str | Path, fresh: bool = False) -> str | None:
        try:
            st = os.stat(path)
        except (OSError, ValueError):       # ValueError: a NUL in the name; the run reports it
            return None
        if not stat.S_ISREG(st.st_mode):     # /dev/zero, a pipe: read forever (the run refuses them)
            return None
        stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
        key = str(Path(path).resolve())
        with self._lock:
            known = self._known.get(key)
        if known and known[0] == stamp and not fresh:
            return known[1]
        h = hashlib.sha256()
        try:
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
        except OSError:
            return None
        with self._lock:
            self._known[key] = (stamp, h.hexdigest())
        return h.hexdigest()


@dataclass(frozen=True)
class StageKeys:
    export: str
    calibration: str
    quantized: str
    analysis: str            # without the XNNPACK lowering
    analysis_delegated: str  # with it


def model_identity(spec: str, hashes: FileHashes, fresh: bool = False) -> list | None:
    """What the loaded model depends on, as loading.load_model reads `spec`."""
    from vpu_core.zoo import ZOO

    if spec in ZOO:
        return ["zoo", spec]
    path_part, attr = split_model_spec(spec)
    path = Path(path_part)
    if path.suffix not in (".py", ".pt2"):
        return None
    content = hashes.of(path, fresh)
    if content is None:
        return None
    return [path.suffix, path.stem, attr or "get_model", content]


def _profile_text(profile: str | None) -> str | None:
    """The text of the profile the run loads: a path, or a shipped profile's name ("edge_npu"),
    resolved as load_profile resolves it (read as a path, a name had no key: nothing cached)."""
    from vpu_core.profile import resolve_profile

    try:
        return resolve_profile(profile).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _quantizer_profile(config: RunConfig, text: str) -> object:
    """The part of the profile that changes the quantized program (MyVPUQuantizer reads the op
    lists and the constraint switches; XNNPACK ignores the profile). The partition and the
    shift range are analysis: changing only them re-analyses without re-quantizing."""
    if config.quantizer != "vpu":
        return None
    data = tomllib.loads(text)
    return {"ops": data.get("ops"), "constraints": data.get("constraints")}


def _changes(config: RunConfig) -> object:
    """The per-op changes of the quantization (vpu_core.quantizers.overrides); None without any."""
    if not config.has_overrides:
        return None
    return [config.keep_float, config.per_channel, config.observers, config.wide_activations]



def stage_keys(config: RunConfig, hashes: FileHashes, fresh: bool = False) -> StageKeys | None:
    model = model_identity(config.model, hashes, fresh)
    text = _profile_text(config.profile)
    if model is None or text is None:
        return None
    calib: list[str] | None = None
    if config.calib_data:
        content = hashes.of(config.calib_data, fresh)
        if content is None:
            return None
        calib = [Path(config.calib_data).suffix, content]
    try:
        quant_profile = _quantizer_profile(config, text)
    except tomllib.TOMLDecodeError:
        return None
    env = environment()
    export = digest(env, "export", model, config.batch_size, config.dynamic_batch, config.seed)
    calibration = digest(export, "calibration", config.calib_batches, config.seed, calib,
                         "heldout", HELDOUT_SAMPLES)
    quantized = digest(calibration, "quantized", config.quantizer, config.per_tensor,
                       config.reference_observers, quant_profile, _changes(config))
    analysis = digest(quantized, "analysis", text)
    return StageKeys(export, calibration, quantized, analysis, digest(analysis, "xnnpack_delegation"))
