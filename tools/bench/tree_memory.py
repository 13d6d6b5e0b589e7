"""Peak memory of a process and everything it started, sampled from /proc (Linux).

    with TreeMemory(pid) as sampler:   # a thread reads the tree every 0.2 s
        ...
    sampler.peak_pss_mib               # the largest sum of proportional set sizes seen
    sampler.peak_rss_mib               # the largest sum of resident sizes seen

The window's worker is forked from a server that imported torch: the pages they share are counted
once per process in RSS, and shared out between them in PSS (smaps_rollup's Pss), so PSS is what
the tree really holds and RSS an upper bound.

RSS is read every 0.2 s (/proc/PID/status: counters, microseconds). PSS is not: smaps_rollup walks
the page tables under the process' memory lock — 34 ms for a 2 GB process here, which on two cores
slowed the very launch being timed (its allocations wait for the lock). It is read when the RSS sum
sets a new high by PSS_STEP, and once a second while the RSS sum stays within PSS_STEP of its peak:
a peak of PSS shorter than a second is seen to within PSS_STEP.
"""
from __future__ import annotations

import threading
import time
from pathlib import Path

INTERVAL_S = 0.2
PSS_STEP = 0.05          # a new RSS high by 5 %, or RSS within 5 % of its peak (once a second)
PSS_EVERY_S = 1.0


def descendants(pid: int) -> list[int]:
    """`pid` and every live process below it (by parent links in /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    tree, todo = [], [pid]
    while todo:
        p = todo.pop()
        tree.append(p)
        todo.extend(children.get(p, ()))
    return tree


def _kib(path: str, key: str) -> int:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


class TreeMemory:
    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_pss_mib = self.peak_rss_mib = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="tree-memory", daemon=True)

    def __enter__(self) -> TreeMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        read_at, read_rss = -PSS_EVERY_S, 0.0          # the last PSS reading: when, at what RSS sum
        while not self._stop.is_set():
            tree = descendants(self.pid)
            rss = sum(_kib(f"/proc/{p}/status", "VmRSS:") for p in tree) / 1024
            self.peak_rss_mib = max(self.peak_rss_mib, rss)
            now = time.monotonic()
            if rss > read_rss * (1 + PSS_STEP) or \
                    (rss >= self.peak_rss_mib * (1 - PSS_STEP) and now - read_at >= PSS_EVERY_S):
                pss = sum(_kib(f"/proc/{p}/smaps_rollup", "Pss:") for p in tree) / 1024
                self.peak_pss_mib, read_at, read_rss = max(self.peak_pss_mib, pss), now, rss
            self._stop.wait(INTERVAL_S)
