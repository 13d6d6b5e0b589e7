"""Progress you can trust: per-observer convert progress, cancel within a second, the terminal line."""
import io
import threading

import pytest

from vpu_core.config import RunConfig
from vpu_core.errors import Cancelled
from vpu_core.progress import Eta, TerminalProgress, call_cancellable
from vpu_core.session import STAGE_TITLES, Session


def test_cancel_during_convert_stops_within_a_second_and_leaves_nothing_behind():
    session, cancel = Session(disk_cache=False), threading.Event()
    seen, cancelled_at = [], []

    def progress(stage, fraction):
        seen.append((stage, fraction))
        if stage == "convert" and fraction > 0 and not cancel.is_set():
            cancelled_at.append((stage, fraction))
            cancel.set()

    config = RunConfig(model="resnet8", quantizer="xnnpack", calib_batches=2)
    with pytest.raises(Cancelled):
        session.inspect(config, view=None, progress=progress, cancel=cancel)
    # stopped at the next check: nothing ran far enough to report again after the cancel
    # (how long that takes is a `bench` figure, cancel_latency_s, not a test)
    assert cancelled_at and seen[-1] == cancelled_at[0]
    convert = [f for s, f in seen if s == "convert"]
    assert 0.0 < max(convert) < 1.0 and len(set(convert)) >= 2      # per observer, stopped half way
    calibrate = [f for s, f in seen if s == "calibrate"]
    assert calibrate[:3] == [0.0, 0.0, 0.5]                          # per batch
    assert session.memory.get("quantized", session.keys(config).quantized) is None
    assert session.inspect(config, view=None).analysis.tensors      # the session still works


def test_call_cancellable_passes_results_and_errors_through_and_drops_a_cancelled_result():
    cancel = threading.Event()
    assert call_cancellable(lambda a, b: a + b, 2, 3, cancel=cancel) == 5
    with pytest.raises(ZeroDivisionError):
        call_cancellable(lambda: 1 / 0, cancel=cancel)
    assert call_cancellable(lambda: "inline") == "inline"
    with pytest.raises(Cancelled):           # cancelled while it ran: its result is not used
        call_cancellable(lambda: cancel.set() or "late", cancel=cancel)
    ran = []
    with pytest.raises(Cancelled):           # cancelled before: it never starts
        call_cancellable(ran.append, 1, cancel=cancel)
    assert ran == []


def test_eta_extrapolates_the_stage_rate():
    now = [0.0]
    eta = Eta(clock=lambda: now[0])
    assert eta.update("calibrate", 0.0) is None
    now[0] = 10.0
    assert eta.update("calibrate", 0.25) == pytest.approx(30.0)
    now[0] = 11.0
    assert eta.update("convert", 0.5) is None          # a new stage starts its own clock


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_terminal_progress_only_on_a_terminal():
    quiet = io.StringIO()
    TerminalProgress(STAGE_TITLES, stream=quiet)("calibrate", 0.5)
    assert quiet.getvalue() == ""
    tty = _Terminal()
    line = TerminalProgress(STAGE_TITLES, stream=tty, min_interval_s=0.0)
    line("calibrate", 0.0)
    line("convert", 1.0)
    line.close()
    text = tty.getvalue()
    assert "Calibrating   0 %" in text and "Converting to Q/DQ 100 %" in text and text.endswith("\r")


def test_run_context_reports_cancels_and_scales_progress_in_one_place():
    from vpu_core.progress import RunContext
    from vpu_core.session import STAGE_SPANS, overall_fraction

    seen, cancel = [], threading.Event()
    ctx = RunContext(lambda stage, f: seen.append((stage, round(f, 6))), cancel)
    ctx("load", 0.5)                                              # a progress callback too
    whole = ctx.scaled(STAGE_SPANS)                               # one bar for the inspection
    whole.report("calibrate", 0.5)
    second_half = ctx.scaled(STAGE_SPANS, 0.5, 1.0)               # compare: side B
    second_half.report("layout", 1.0)
    ablate = ctx.scaled({"convert": (0.6, 0.75)}, 0.0, 0.5, stage="ablate")
    ablate.report("convert", 1.0)
    assert seen == [("load", 0.5), ("calibrate", round(overall_fraction("calibrate", 0.5), 6)),
                    ("layout", 1.0), ("ablate", 0.375)]
    assert RunContext().scaled(STAGE_SPANS).progress is None       # nobody listening: nothing wrapped
    cancel.set()
    for report in (ctx.report, whole.report, ablate.report):
        with pytest.raises(Cancelled):
            report("convert", 0.1)
    with pytest.raises(Cancelled):
        ctx.call(lambda: "never")
    assert len(seen) == 4
