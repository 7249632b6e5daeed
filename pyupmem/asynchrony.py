"""Work queued by asynchronous operations: ``asynchronous=True`` transfers and launches,
and completion callbacks, run in order by one worker thread per :class:`~pyupmem.DpuSet`.

What it gives is the SDK's asynchronous model (``DPU_XFER_ASYNC``, ``dpu_launch`` with
``DPU_ASYNCHRONOUS``, ``dpu_callback`` with ``DPU_CALLBACK_ASYNC``):

- the call returns at once; the work is queued behind everything queued before it on the
  set, and each piece of work starts when the DPUs it touches are no longer running (a
  transfer queued after an asynchronous launch moves the data the kernel left);
- a callback queued after the work runs Python code once it is done (on the worker
  thread, as the SDK runs its callbacks on its rank threads);
- an operation called without ``asynchronous=True`` waits until the queued work is done,
  then runs (the SDK orders synchronous calls after the rank's queued jobs);
- :meth:`~pyupmem.DpuSet.sync` waits for the queued work and the DPUs, and raises the
  first error the queued work met (later queued work is then not done).

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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["JobQueue", "QueuedWorkCancelled"]


class QueuedWorkCancelled(Exception):
    """Raised inside the worker thread when the queue is closed while a job waits for
    running DPUs (the set is being freed or stopped); never reaches the user."""


@dataclass
class _Job:
    wait: Callable[[Callable[[], bool]], None]  # waits until its DPUs are idle
    action: Callable[[], Any]  # the libdpu call(s); holds the buffers it uses
    what: str  # for messages: "gather of 'C' on 4 DPUs" ...


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
    ) -> None:
        """Queue ``action``, to run after the jobs already queued and once ``wait``
        (called with :meth:`cancelled`) returns."""
        with self._cond:
            self._jobs.append(_Job(wait, action, what))
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
                    self._dropped += len(self._jobs)
                    self._jobs.clear()
                    self._active = False
                    self._thread = None
                    self._worker = None
                    self._cond.notify_all()
                    return
                job: _Job | None = self._jobs.popleft()
                self._active = True
            try:
                assert job is not None
                if self._error is None:
                    job.wait(self.cancelled)
                    job.action()
                else:
                    with self._cond:
                        self._dropped += 1
            except QueuedWorkCancelled:
                with self._cond:
                    self._dropped += 1
            except BaseException as error:  # noqa: BLE001 - reported by sync()
                error.add_note(f"(raised by work queued with asynchronous=True: {job.what})")
                with self._cond:
                    if self._error is None:
                        self._error = error
                    else:
                        self._dropped += 1
            finally:
                job = None  # release the buffers now
                with self._cond:
                    self._active = False
                    self._cond.notify_all()

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
            dropped = len(self._jobs)
            self._jobs.clear()
            self._closing = self._thread is not None
            thread = self._thread
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
