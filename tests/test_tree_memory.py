"""The benchmark's memory sampler (tools/bench/tree_memory.py) on a real process tree: a parent
and the child it starts, each holding memory of its own; PSS is read sparingly but the peak is seen."""
import subprocess
import sys

from tools.bench.tree_memory import TreeMemory

HOLD = """
import subprocess, sys, time
block = bytearray(200 << 20)                     # 200 MiB, every page written
child = subprocess.Popen([sys.executable, "-c", "b = bytearray(150 << 20); import time; time.sleep(3)"])
time.sleep(3)
child.wait()
"""


def test_the_peak_of_a_process_and_its_child_is_seen():
    proc = subprocess.Popen([sys.executable, "-c", HOLD])
    with TreeMemory(proc.pid) as sampler:
        proc.wait(timeout=60)
    assert 350 <= sampler.peak_rss_mib < 500            # both blocks at once, plus two interpreters
    assert 340 <= sampler.peak_pss_mib <= sampler.peak_rss_mib
