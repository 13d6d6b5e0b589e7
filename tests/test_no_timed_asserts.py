"""No test measures speed: a clock in a test makes it pass alone and fail under load (a full run
once failed on "18 ticks in 4.0 s"). Speed targets are `vpu-inspector bench` figures."""
import re
from pathlib import Path

CLOCKS = re.compile(r"perf_counter|time\.time\(|monotonic\(|process_time\(|time\.time_ns\(")   # a tick rate needs one too


def test_no_test_reads_a_clock():
    here = Path(__file__).resolve()
    offenders = [f"{path.name}:{i}: {line.strip()}"
                 for path in sorted(here.parent.glob("**/*.py")) if path != here
                 for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if CLOCKS.search(line)]
    assert offenders == []
