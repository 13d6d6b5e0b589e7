"""Jobs of the window (app.jobs.worker): they take turns on one long-lived thread; each step is
answered by what came back before, by the window's lookup-only session (the disk cache), or else
by the worker process — never by model code in this process."""
import dataclasses
import threading

from app.jobs.worker import InspectJob, Job
from vpu_core.config import RunConfig, ViewOptions
from vpu_core.worker import jobs


class Log(list):
    """What the probes did; hashable by identity, as a job's parameters must be."""

    __hash__ = object.__hash__


def _probe(session, out, *, name, log, hold=None):
    """A job kind that needs no session: answered in the window, on the job thread."""
    log.append(f"{name} start {threading.current_thread().name}")
    if hold is not None:
        hold.wait(30)
    log.append(f"{name} end")
    return name


def _job(name, log, hold=None) -> Job:
    return Job(RunConfig(), jobs.call(_probe, name=name, log=log, hold=hold))


def test_jobs_take_turns_on_one_long_lived_thread(qtbot):
    log, release = Log(), threading.Event()
    first, second = _job("a", log, release), _job("b", log)
    with qtbot.waitSignal(second.finished, timeout=10_000):
        first.start()
        qtbot.waitUntil(lambda: len(log) == 1)
        second.start()
        qtbot.wait(200)                       # b has had every chance to start: it waits its turn
        assert len(log) == 1
        release.set()
    thread = log[0].split(" ", 2)[2]
    assert log == [f"a start {thread}", "a end", f"b start {thread}", "b end"]
    assert thread == "vpu-inspector-run" and first.answered_by == ["window"]


def test_a_job_cancelled_while_waiting_its_turn_ends_at_once_and_never_runs(qtbot):
    log, release = Log(), threading.Event()
    first, second = _job("a", log, release), _job("b", log)
    first.start()
    qtbot.waitUntil(lambda: len(log) == 1)
    second.start()
    assert second.is_running() and not second.wait(0.2)       # queued behind a
    with qtbot.waitSignal(second.cancelled, timeout=10_000):  # not when a ends (a waits for release): now
        second.cancel()
    assert not second.is_running() and second.wait(0) and first.is_running()
    release.set()
    assert first.wait(10) and [e.split()[:2] for e in log] == [["a", "start"], ["a", "end"]]   # b never ran
    third = _job("c", log)                                    # and the queue goes on
    with qtbot.waitSignal(third.finished, timeout=10_000):
        third.start()
    assert log[-1] == "c end"


def test_a_step_is_answered_by_the_worker_once_then_by_what_came_back_or_the_cache(qtbot):
    """The quantized result is announced first (`shown`), then the same with its follow-ups; the
    worker computes them once; asking again is answered here, from what came back or from the
    disk cache the worker wrote (another view: drawn here)."""
    config = RunConfig(model="conv_relu", calib_batches=1, seed=3131)       # a seed no other test uses

    def run(view):
        job, shown = InspectJob(config, view), []
        job.shown.connect(shown.append)
        with qtbot.waitSignal(job.finished, timeout=180_000) as done:
            job.start()
        return job, shown, done.args[0]

    job, shown, final = run(ViewOptions())
    assert job.answered_by == ["worker", "worker"]
    (quantized,) = shown
    assert quantized.attached.int_sim is None and not quantized.analysis.predicted
    assert final.attached.int_sim is not None and final.attached.economics
    before = quantized.analysis
    assert dataclasses.replace(final.analysis, timings_s={}) == dataclasses.replace(before, timings_s={})
    again, _, same = run(ViewOptions())
    assert again.answered_by == ["remembered", "remembered"]
    assert same.analysis is final.analysis and same.graph is final.graph and same.stages_run == final.stages_run
    other, _, folded = run(ViewOptions(hide_qdq=True))
    assert other.answered_by == ["window", "window"] and folded.view.hide_qdq
    assert dataclasses.replace(folded.analysis, timings_s={}) == dataclasses.replace(final.analysis, timings_s={})
