"""The on-disk half of the cache: one file per entry, written atomically, checked before use.

Layout (the folder is `cache_dir()`: $VPU_INSPECTOR_CACHE_DIR, else the user cache folder):

    <root>/v1/<store>/<key>.<sha16>.<ext>
      store  export (.pt2: torch.export.save) · calibration (.pt: tensors, torch.save)
             quantized (.pt: observer qparams) · program (.pt: the converted graph, program_codec)
             analysis (.json) · int_sim (.json)
      key    the store's content key (vpu_core.cache.keys)
      sha16  first 16 hex digits of the SHA-256 of the file's bytes

Reading an entry reads its bytes, recomputes their SHA-256 and compares it with the name: a
truncated, edited or damaged file is deleted and reported as a miss, never parsed. Writes go to
a temporary file in the same folder and are renamed into place (os.replace is atomic), so a
second process sharing the folder sees a whole entry or none. Reading an entry refreshes its
mtime; when the folder grows past the size cap, the entries read or written longest ago are
deleted first. Every failure here (permissions, a full disk) only costs the cache, never a run.
"""
from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

from vpu_core.stages import Store

ENV_DIR = "VPU_INSPECTOR_CACHE_DIR"
ENV_MAX_MB = "VPU_INSPECTOR_CACHE_MAX_MB"
DEFAULT_MAX_BYTES = 2 << 30          # 2 GiB
LAYOUT = "v1"
STALE_TMP_S = 3600                    # a writer's temp file older than this was left by a crash


def cache_dir() -> Path:
    """$VPU_INSPECTOR_CACHE_DIR, else the platform's user cache folder + vpu-inspector."""
    override = os.environ.get(ENV_DIR)
    if override:
        return Path(override).expanduser()
    home = Path.home()
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "vpu-inspector"
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(home / "AppData" / "Local")
        return Path(base) / "vpu-inspector" / "Cache"
    return Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache") / "vpu-inspector"


def _max_bytes() -> int:
    try:
        return int(float(os.environ[ENV_MAX_MB]) * (1 << 20))
    except (KeyError, ValueError):
        return DEFAULT_MAX_BYTES


class DiskCache:
    """Stage entries as files under `root`; every method is safe to call from several threads."""

    def __init__(self, root: Path | None = None, max_bytes: int | None = None) -> None:
        self.root = Path(root) if root is not None else cache_dir()
        self.max_bytes = max_bytes if max_bytes is not None else _max_bytes()
        self._lock = threading.Lock()

    def _folder(self, store: Store) -> Path:
        return self.root / LAYOUT / store

    def read(self, store: Store, key: str) -> bytes | None:
        """The verified bytes of an entry, or None (missing, damaged: then it is deleted)."""
        folder = self._folder(store)
        try:
            names = [n for n in os.listdir(folder) if n.startswith(key + ".")]
        except OSError:
            return None
        for name in names:
            path = folder / name
            parts = name.split(".")
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if len(parts) == 3 and hashlib.sha256(data).hexdigest()[:16] == parts[1]:
                _touch(path)
                return data
            _remove(path)                  # damaged or not ours: never trusted
        return None

    def write(self, store: Store, key: str, ext: str, data: bytes) -> None:
        folder = self._folder(store)
        name = f"{key}.{hashlib.sha256(data).hexdigest()[:16]}.{ext}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, folder / name)
            except BaseException:
                _remove(Path(tmp))
                raise
            for other in os.listdir(folder):   # an older version of the same entry
                if other.startswith(key + ".") and other != name:
                    _remove(folder / other)
        except OSError:
            return
        self.evict()

    def remove(self, store: Store, key: str) -> None:
        try:
            for name in os.listdir(self._folder(store)):
                if name.startswith(key + "."):
                    _remove(self._folder(store) / name)
        except OSError:
            pass

    def entries(self) -> list[tuple[float, int, Path]]:
        """(mtime, size, path) of every entry file."""
        out: list[tuple[float, int, Path]] = []
        base = self.root / LAYOUT
        try:
            stores = list(os.scandir(base))
        except OSError:
            return out
        for store in stores:
            if not store.is_dir():
                continue
            try:
                for entry in os.scandir(store.path):
                    try:
                        st = entry.stat()
                    except OSError:
                        continue
                    if entry.name.startswith(".tmp-"):
                        if time.time() - st.st_mtime > STALE_TMP_S:
                            _remove(Path(entry.path))
                        continue
                    out.append((st.st_mtime, st.st_size, Path(entry.path)))
            except OSError:
                continue
        return out

    def size(self) -> int:
        return sum(size for _, size, _ in self.entries())

    def evict(self) -> None:
        """Delete least recently used entries until the cache fits its cap."""
        with self._lock:
            entries = sorted(self.entries())
            total = sum(size for _, size, _ in entries)
            for _, size, path in entries:
                if total <= self.max_bytes:
                    break
                _remove(path)
                total -= size


def _touch(path: Path) -> None:
    try:
        os.utime(path)
    except OSError:
        pass


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
