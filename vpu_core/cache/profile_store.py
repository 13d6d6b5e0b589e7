"""Validated hardware profiles on disk, so the window reads a profile without importing torch.

Validating a profile names ATen ops (torch.ops) and the rule registry (which imports torch). The
worker that runs a configuration validates its profile (and the shipped one) anyway; it keeps
them here, keyed by the file's text, its path and our code and package versions, and the window's
What-if dock reads them back as JSON (vpu_core.cache.codec). A profile nobody validated yet (or
without a disk cache) is validated here, as before.

    profile = validated_profile(path, disk)     # from the cache, or load_profile + kept
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from vpu_core.cache import codec
from vpu_core.cache.keys import digest, environment
from vpu_core.errors import ProfileError
from vpu_core.profile import HardwareProfile, load_profile, resolve_profile
from vpu_core.stages import Store

if TYPE_CHECKING:
    from vpu_core.cache.disk import DiskCache

STORE: Store = "profile"
MODULES = ("vpu_core.hardware.profile", "vpu_core.hardware.timing")


def validated_profile(spec: str | Path | None, disk: DiskCache | None) -> HardwareProfile:
    """The profile `spec` names (None: the shipped one), validated; ProfileError as load_profile."""
    path = resolve_profile(spec)
    try:
        key = digest(STORE, str(path), path.read_text(encoding="utf-8"), environment())
    except (OSError, UnicodeDecodeError):
        return load_profile(path)                 # its own sentence for a missing / unreadable file
    data = disk.read(STORE, key) if disk is not None else None
    if disk is not None and data is not None:
        try:
            return codec.decode(data, "HardwareProfile", MODULES)
        except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
            disk.remove(STORE, key)     # well-formed bytes, wrong content: never trusted
    profile = load_profile(path)
    if disk is not None:
        disk.write(STORE, key, "json", codec.encode(profile, MODULES))
    return profile


def keep_validated(specs: tuple[str | None, ...], disk: DiskCache | None) -> None:
    """Validate and keep the profiles `specs` name (the worker, for the window); a bad one is
    left to the run that reads it."""
    for spec in specs:
        try:
            validated_profile(spec, disk)
        except (ProfileError, TypeError):
            pass
