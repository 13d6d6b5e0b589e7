"""Jobs of the window take turns: two jobs' torch work never overlaps, nor does a stage that a
cancelled job abandoned (torch.export / ExecuTorch lowering change process-wide state)."""
import threading

from app.jobs.worker import Job
from vpu_core.config import RunConfig, ViewOptions
from vpu_core.progress import abandoned_work, call_cancellable


class Probe(Job):
    """A job whose work is `body(cancel)`; records when it ran."""

    def __init__(self, body, log: list, name: str) -> None:
        super().__init__(RunConfig(), ViewOptions())
        self.body, self.log, self.name = body, log, name

    def work(self, cancel):
        self.log.append(f"{self.name} start")
        out = self.body(cancel)
        self.log.append(f"{self.name} end")
        return out


def test_a_second_job_waits_for_the_first(qtbot):
    log, release = [], threading.Event()
    first = Probe(lambda cancel: release.wait(10), log, "a")
    second = Probe(lambda cancel: None, log, "b")
    with qtbot.waitSignal(second.finished, timeout=10_000):
        first.start()
        qtbot.waitUntil(lambda: log == ["a start"])
        second.start()
        qtbot.wait(200)                       # b has had every chance to start: it waits its turn
        assert log == ["a start"]
        release.set()
    assert log == ["a start", "a end", "b start", "b end"]


def test_a_stage_abandoned_on_cancel_still_holds_off_the_next_job(qtbot):
    log, release, entered = [], threading.Event(), threading.Event()

    def long_stage():
        entered.set()
        release.wait(10)
        log.append("abandoned stage end")

    first = Probe(lambda cancel: call_cancellable(long_stage, cancel=cancel), log, "a")
    second = Probe(lambda cancel: None, log, "b")
    with qtbot.waitSignal(first.cancelled, timeout=10_000):
        first.start()
        qtbot.waitUntil(entered.is_set)
        first.cancel()                        # the job returns at once, its stage runs on
    assert abandoned_work() and log == ["a start"]
    with qtbot.waitSignal(second.finished, timeout=10_000):
        second.start()
        qtbot.wait(200)
        assert log == ["a start"]             # b waits for the abandoned stage
        release.set()
    assert log == ["a start", "abandoned stage end", "b start", "b end"]
    assert not abandoned_work()


def test_a_job_cancelled_while_waiting_its_turn_ends_at_once_and_never_runs(qtbot):
    log, release = [], threading.Event()
    first = Probe(lambda cancel: release.wait(30), log, "a")
    second = Probe(lambda cancel: None, log, "b")
    first.start()
    qtbot.waitUntil(lambda: log == ["a start"])
    second.start()
    assert second.is_running() and not second.wait(0.2)       # queued behind a
    with qtbot.waitSignal(second.cancelled, timeout=10_000):  # not when a ends (a waits for release): now
        second.cancel()
    assert not second.is_running() and second.wait(0) and first.is_running()
    release.set()
    assert first.wait(10) and log == ["a start", "a end"]     # b never started
    third = Probe(lambda cancel: None, log, "c")              # and the queue goes on
    with qtbot.waitSignal(third.finished, timeout=10_000):
        third.start()
    assert log == ["a start", "a end", "c start", "c end"]


def test_jobs_and_their_stages_run_on_two_long_lived_threads(qtbot):
    """Not a thread per job or per stage: torch's native per-thread state is built once."""
    seen = []

    def body(cancel):
        seen.append(("job", threading.current_thread()))
        call_cancellable(lambda: seen.append(("stage", threading.current_thread())), cancel=cancel)

    jobs = [Probe(body, [], name) for name in "abc"]
    with qtbot.waitSignal(jobs[-1].finished, timeout=10_000):
        for job in jobs:
            job.start()
    job_threads = {t for kind, t in seen if kind == "job"}
    stage_threads = {t for kind, t in seen if kind == "stage"}
    assert len(seen) == 6 and len(job_threads) == 1 and len(stage_threads) == 1
    assert job_threads != stage_threads and threading.main_thread() not in job_threads | stage_threads
    assert all(t.is_alive() and t.daemon for t in job_threads | stage_threads)
