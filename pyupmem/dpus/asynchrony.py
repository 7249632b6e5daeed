"""Work queued by asynchronous operations: ``asynchronous=True`` transfers and launches,
and completion callbacks, run in order by one worker thread per rank of a
:class:`~pyupmem.DpuSet` (:class:`RankQueues`), as the SDK runs one queue per rank.

What it gives is the SDK's asynchronous model (``DPU_XFER_ASYNC``, ``dpu_launch`` with
``DPU_ASYNCHRONOUS``, ``dpu_callback`` with ``DPU_CALLBACK_ASYNC``):

- the call returns at once; the work is queued behind everything queued before it on the
  ranks it touches, and each piece of work starts when the DPUs it touches are no longer
  running (a transfer queued after an asynchronous launch moves the data the kernel left);
- work on different ranks goes on independently: a transfer queued on rank 0 does not wait
  for a long launch queued on rank 1. Work on several ranks (a whole set, a sub-set across
  ranks) waits until each of its ranks has reached it, runs once, and holds those ranks'
  later work until it is done;
- a callback queued after the work runs Python code once it is done (on the worker
  thread, as the SDK runs its callbacks on its rank threads);
- an operation called without ``asynchronous=True`` waits until the work queued on its
  ranks is done, then runs (the SDK orders synchronous calls after the rank's queued
  jobs); called from a job or callback it does not wait;
- :meth:`~pyupmem.DpuSet.sync` waits for the queued work of its ranks and for the DPUs,
  and raises the first error that work met (later work queued on that rank is then not
  done): ``rank.sync()`` reports that rank's errors only, a set-wide ``sync()`` every
  rank's. An error of work on several ranks belongs to each of them.

Errors are never lost, and each is raised once:

- **A fault stops the queue.** Work queued behind an asynchronous launch runs once the
  DPUs it touches have stopped; if they stopped on a fault that nobody has been told of,
  that :class:`~pyupmem.errors.DpuFaultError` is the work's error and the work does not
  run: a gather never hands out a faulted DPU's memory. Every later piece of work queued on
  those ranks is dropped, and its result raises: a
  :class:`~pyupmem.dpus.queued_data.PendingArray` raises
  :class:`~pyupmem.errors.PendingResultError` chained (``__cause__``) to the error that
  stopped the queue. That error itself is raised by the next :meth:`~pyupmem.DpuSet.sync`
  (with a note of how many operations were dropped); after it, the queue takes work again.
  A synchronous read (``gather``, ``read``, ``gather_blocks``) of DPUs whose asynchronous
  launch faulted, unreported, raises that fault the same way instead of reading.
- **Freeing reports what was left.** Leaving a set's ``with`` block, or
  :meth:`~pyupmem.DpuSet.free`, does not wait: it drops the work not yet run and stops
  running DPUs, frees them, then raises the error nobody was told of: the first error of
  the queued work that no ``sync()`` raised, else the fault of an asynchronous launch that
  no ``sync()`` (nor queued work) reported. When an exception is already leaving the
  block, that exception goes on and gets a note (``add_note``) naming the unreported error:
  the first cause stays the one raised, and neither is lost.
- **Told once, per DPU.** A fault is reported when it is raised: by ``sync()``, by a
  synchronous ``launch()`` or read, or through the queue as above; each reports the DPUs
  it covers (``dpus[1].read(...)`` reports DPU 1's fault, not DPU 0's). It is then not
  raised again on leaving the block, and work queued after it runs (reading the faulted
  DPUs' memory is then the caller's choice). :meth:`~pyupmem.DpuSet.status` tells of a
  fault without reporting it (``status().fault``; freeing still raises it), and
  ``load()`` clears it. DPUs the user stopped (:meth:`~pyupmem.DpuSet.stop`, or Ctrl-C in
  ``sync()`` or a synchronous ``launch()``, which stops them on the emulator) are not
  reported: their queued work is dropped, their pending results raise
  ``PendingResultError``, and nothing is raised on leaving the block for them. A
  ``sync()`` or ``launch()`` on DPUs still in fault raises it again, as libdpu does: that
  is the DPUs' state (until a ``load()``), not a second report of the same launch.
- A pending result's ``PendingResultError`` tells that this result is missing and why; it
  does not take the queue's error, which ``sync()`` (or freeing) raises once.

The queue is kept by pyupmem rather than handed to libdpu's ``DPU_XFER_ASYNC`` queue: the
emulator's libdpu moves data at call time (and refuses MRAM access while DPUs run,
``DPU_ERR_MRAM_BUSY``), and a Python callback needs the GIL and a place to report its
exception. So the behaviour, and the ordering guarantees, are the same on every backend.

Every queued job holds references to the host buffers it reads or fills (numpy arrays,
the shares of a scatter, the result of a gather) until it has run or been dropped, so no
buffer is freed while libdpu may still use it.
"""

from __future__ import annotations

import atexit
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["JobQueue", "QueuedWorkCancelled", "RankQueues"]


class QueuedWorkCancelled(Exception):
    """Raised inside the worker thread when the queue is closed while a job waits for
    running DPUs (the set is being freed or stopped); never reaches the user."""


Finish = Callable[[BaseException | None], None]
"""Told how a job ended: None when it ran, its error, or a :class:`QueuedWorkCancelled`
when it was dropped without running."""


@dataclass
class _Job:
    wait: Callable[[Callable[[], bool]], None]  # waits until its DPUs are idle
    action: Callable[[], Any]  # the libdpu call(s); holds the buffers it uses
    what: str  # for messages: "gather of 'C' on 4 DPUs" ...
    finish: Finish | None = None

    def end(self, error: BaseException | None) -> None:
        if self.finish is not None:
            self.finish(error)


def _dropped(job: _Job, cause: BaseException | None = None) -> QueuedWorkCancelled:
    """The outcome of a job that did not run; ``cause``: the earlier error that stopped the
    queue (its ``__cause__``, so that a pending result's error chains to it)."""
    if cause is None:
        return QueuedWorkCancelled(f"{job.what} was dropped before it ran")
    dropped = QueuedWorkCancelled(
        f"{job.what} was not done: work queued before it failed ({type(cause).__name__})"
    )
    dropped.__cause__ = cause
    return dropped


_LIVE: weakref.WeakSet[JobQueue] = weakref.WeakSet()
_EXIT_HOOKED = False


def _close_all_at_exit() -> None:
    # Runs before weakref.finalize frees the sets (atexit is last in, first out): no worker
    # may call libdpu on a set that is being freed.
    for queue in list(_LIVE):
        queue.close()


class JobQueue:
    """The work queued on one DPU set, run in order by a worker thread that exists while
    there is work.

    Args:
        name: names the worker thread (``pyupmem-queue <name>``).
    """

    def __init__(self, name: str = ""):
        global _EXIT_HOOKED
        self.name = name
        self._cond = threading.Condition()
        self._jobs: deque[_Job] = deque()
        self._active = False  # a job is being run
        self._thread: threading.Thread | None = None
        self._worker: int | None = None  # the worker thread's ident
        self._closing = False
        self._error: BaseException | None = None
        self._dropped = 0
        _LIVE.add(self)
        if not _EXIT_HOOKED:
            atexit.register(_close_all_at_exit)
            _EXIT_HOOKED = True

    # ----------------------------------------------------------------- state

    @property
    def busy(self) -> bool:
        """True while work is queued or being run."""
        return self._active or bool(self._jobs)

    def in_worker(self) -> bool:
        """True when called from the worker thread (from a job or a callback)."""
        return threading.get_ident() == self._worker

    def cancelled(self) -> bool:
        """True once :meth:`close` or :meth:`cancel` asked the running job to give up."""
        return self._closing

    # ----------------------------------------------------------------- queueing

    def put(
        self,
        wait: Callable[[Callable[[], bool]], None],
        action: Callable[[], Any],
        what: str,
        finish: Finish | None = None,
    ) -> None:
        """Queue ``action``, to run after the jobs already queued and once ``wait``
        (called with :meth:`cancelled`) returns; ``finish`` is told how it ended (run,
        failed or dropped), always once."""
        with self._cond:
            self._jobs.append(_Job(wait, action, what, finish))
            if self._thread is None:
                self._closing = False
                self._thread = threading.Thread(
                    target=self._run, name=f"pyupmem-queue {self.name}".strip(), daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        self._worker = threading.get_ident()
        while True:
            with self._cond:
                if not self._jobs or self._closing:
                    left = list(self._jobs)
                    self._dropped += len(left)
                    self._jobs.clear()
                    self._active = False
                    self._thread = None
                    self._worker = None
                    self._cond.notify_all()
                    break
                job: _Job | None = self._jobs.popleft()
                self._active = True
            outcome: BaseException | None = None
            try:
                assert job is not None
                if self._error is None:
                    job.wait(self.cancelled)
                    job.action()
                else:
                    outcome = _dropped(job, self._error)
                    with self._cond:
                        self._dropped += 1
            except QueuedWorkCancelled as cancelled:
                # Cancelled while it waited for its DPUs: say which job, as a drop does.
                outcome = cancelled if str(cancelled) else _dropped(job)  # type: ignore[arg-type]
                with self._cond:
                    self._dropped += 1
            except BaseException as error:  # noqa: BLE001 - reported by sync()
                outcome = error
                note = f"(raised by work queued with asynchronous=True: {job.what})"  # type: ignore[union-attr]
                if note not in getattr(error, "__notes__", ()):
                    error.add_note(note)
                with self._cond:
                    if self._error is None:
                        self._error = error
                    else:
                        self._dropped += 1
            finally:
                if job is not None:
                    try:
                        job.end(outcome)
                    except BaseException as error:  # noqa: BLE001 - the worker must go on
                        with self._cond:
                            self._error = self._error or error
                job = None  # release the buffers now
                with self._cond:
                    self._active = False
                    self._cond.notify_all()
        for dropped in left:
            dropped.end(_dropped(dropped))

    # ----------------------------------------------------------------- waiting

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until no work is queued or running; False if ``timeout`` seconds passed
        first. Waits in short slices, so Ctrl-C interrupts it."""
        if self.in_worker():
            return True
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self.busy:
                left = 0.2 if deadline is None else min(0.2, deadline - time.monotonic())
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def take_error(self) -> BaseException | None:
        """The first error of the queued work since the last call (and forget it), with a
        note of how much later work was dropped."""
        with self._cond:
            error, self._error = self._error, None
            dropped, self._dropped = self._dropped, 0
        if error is not None and dropped:
            error.add_note(f"({dropped} operations queued after it were not done)")
        return error

    def cancel(self, timeout: float | None = 5.0) -> int:
        """Drop the queued work that has not started, ask a job that waits for running
        DPUs to give up, and wait (up to ``timeout`` seconds) for the running job to end.

        Returns:
            How many queued operations were dropped.
        """
        with self._cond:
            left = list(self._jobs)
            dropped = len(left)
            self._jobs.clear()
            self._closing = self._thread is not None
            thread = self._thread
        for job in left:
            job.end(_dropped(job))
        if thread is not None and thread.ident != threading.get_ident():
            thread.join(timeout)
        with self._cond:
            self._closing = False
        return dropped

    def close(self) -> None:
        """Cancel everything (the set is being freed)."""
        self.cancel()
        with self._cond:
            self._error = None
            self._dropped = 0


class _Gate:
    """One piece of work on several ranks: each rank's queue holds a part of it; the part
    that arrives last runs the work, the others wait for it (so each rank's later work
    waits too). A part dropped before it arrives drops the whole piece."""

    def __init__(
        self,
        parts: int,
        wait: Callable[[Callable[[], bool]], None],
        action: Callable[[], Any],
        finish: Finish | None,
    ):
        self._cond = threading.Condition()
        self._left = parts
        self._wait = wait
        self._action = action
        self._finish = finish
        self._over = False
        self._running = False
        self._error: BaseException | None = None

    def _end(self, error: BaseException | None) -> None:
        with self._cond:
            if self._over:
                return
            self._over = True
            self._error = error
            self._action = self._wait = None  # type: ignore[assignment]  # release buffers
            self._cond.notify_all()
        if self._finish is not None:
            self._finish(error)

    def arrive(self, cancelled: Callable[[], bool]) -> None:
        """A rank's part is at the head of its queue: run the work if it is the last."""
        with self._cond:
            self._left -= 1
            last = self._left == 0 and not self._over
            wait, action = self._wait, self._action
            self._running = last
        if last:
            try:
                wait(cancelled)
                action()
            except BaseException as error:  # noqa: BLE001 - re-raised by every part
                self._end(error)
                raise
            self._end(None)
            return
        with self._cond:
            while not self._over:
                if cancelled():
                    raise QueuedWorkCancelled
                self._cond.wait(0.2)
            error = self._error
        if error is not None:
            raise error  # every rank of the work reports it

    def part_ended(self, error: BaseException | None) -> None:
        """A part was dropped before it ran (or it ran): a dropped part drops the work."""
        if isinstance(error, QueuedWorkCancelled) and not self._running:
            self._end(error)


class _QueueView:
    """The queues of some ranks of a set, seen as one: what a :class:`~pyupmem.DpuGroup`
    waits for, reports the errors of and cancels."""

    def __init__(self, owner: RankQueues, ranks: Sequence[int]):
        self._owner = owner
        self._ranks = ranks

    def _queues(self) -> list[JobQueue]:
        queues = self._owner._queues
        return [queues[r] for r in self._ranks if r in queues]

    @property
    def busy(self) -> bool:
        """True while work is queued or running on any of these ranks."""
        return any(queue.busy for queue in self._queues())

    def in_worker(self) -> bool:
        """True when called from a job or callback of any rank of the set."""
        return self._owner.in_worker()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until no work is queued or running on these ranks; False on timeout."""
        if self.in_worker():
            return True
        deadline = None if timeout is None else time.monotonic() + timeout
        for queue in self._queues():
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not queue.wait(left):
                return False
        return True

    def take_error(self) -> BaseException | None:
        """The first error of these ranks' queued work (each error once), and forget them."""
        errors: list[BaseException] = []
        for queue in self._queues():
            error = queue.take_error()
            if error is not None and all(error is not seen for seen in errors):
                errors.append(error)
        if len(errors) > 1:
            errors[0].add_note(f"({len(errors) - 1} more errors on other ranks)")
        return errors[0] if errors else None

    def cancel(self, timeout: float | None = 5.0) -> int:
        """Drop these ranks' queued work (see :meth:`JobQueue.cancel`)."""
        return sum(queue.cancel(timeout) for queue in self._queues())


class RankQueues:
    """The queued work of one DPU set: a :class:`JobQueue` per rank, made on first use.

    Args:
        name: names the worker threads (``pyupmem-queue <name> rank <i>``).
    """

    def __init__(self, name: str = ""):
        self.name = name
        self._queues: dict[int, JobQueue] = {}
        self._lock = threading.Lock()  # parts of multi-rank work go in the same order

    def _queue(self, rank: int) -> JobQueue:
        queue = self._queues.get(rank)
        if queue is None:
            queue = self._queues[rank] = JobQueue(f"{self.name} rank {rank}".strip())
        return queue

    @property
    def busy(self) -> bool:
        """True while work is queued or running on any rank."""
        return any(queue.busy for queue in list(self._queues.values()))

    def view(self, ranks: Sequence[int]) -> _QueueView:
        """The queues of ``ranks`` seen as one."""
        return _QueueView(self, ranks)

    def in_worker(self) -> bool:
        """True when called from the worker thread of any rank."""
        return any(queue.in_worker() for queue in list(self._queues.values()))

    def put(
        self,
        ranks: Sequence[int],
        wait: Callable[[Callable[[], bool]], None],
        action: Callable[[], Any],
        what: str,
        finish: Finish | None = None,
    ) -> None:
        """Queue ``action`` on ``ranks``: behind the work queued on each of them, once
        ``wait`` returns; on several ranks it runs once, when each has reached it."""
        with self._lock:
            if len(ranks) == 1:
                self._queue(ranks[0]).put(wait, action, what, finish)
                return
            gate = _Gate(len(ranks), wait, action, finish)
            for rank in ranks:
                self._queue(rank).put(gate.arrive, lambda: None, what, gate.part_ended)

    def close(self) -> BaseException | None:
        """Cancel everything on every rank (the set is being freed), and return the first
        error of the work that no :meth:`~pyupmem.DpuSet.sync` took (each error once), for
        :meth:`~pyupmem.DpuSet.free` to raise."""
        queues = list(self._queues.values())
        for queue in queues:
            queue.cancel()
        error = self.view(list(self._queues)).take_error()
        for queue in queues:
            queue.close()
        return error
