"""Controlling running DPUs: the launch, wait, stop and status methods every group of DPUs has.

:class:`~pyupmem.dpus.group.DpuGroup` (and so every :class:`~pyupmem.dpus.dpuset.DpuSet`,
:class:`~pyupmem.dpus.views.Rank`, :class:`~pyupmem.dpus.views.Dpu` and sub-set) gets its
:meth:`~pyupmem.dpus.group.DpuGroup.launch`, :meth:`~pyupmem.dpus.group.DpuGroup.sync`,
:meth:`~pyupmem.dpus.group.DpuGroup.stop` and :meth:`~pyupmem.dpus.group.DpuGroup.status` from
this module, which holds what happens while DPUs run: waiting in slices so that a
``timeout`` can end the wait (:class:`~pyupmem.errors.DpuTimeoutError`, the DPUs keep
running) and Ctrl-C can stop the DPUs of the set before ``KeyboardInterrupt`` goes on;
stopping (the emulator's ``dpu_emu_stop``, then a reload); waiting for the work queued
with ``asynchronous=True`` first; and the one :class:`~pyupmem.errors.DpuFaultError` that
names the faulty DPUs with their messages. Use them through a set; the reference
documents them on ``DpuGroup``.
"""

from __future__ import annotations

import ctypes
import time
from typing import NamedTuple

from pyupmem.dpus.group_parts import _GroupPart
from pyupmem.driver import libdpu as C
from pyupmem.errors import ArgumentValueError, DpuFaultError, UnsupportedError, make_error

FAULT_PREFIX = "DPU fault: "
"""The emulator starts the log line that explains a fault with this text."""


def check_launch_timeout(timeout: object, asynchronous: bool) -> None:
    """Refuse a ``launch(timeout=...)`` that cannot limit anything or is not a duration."""
    if asynchronous:
        raise ArgumentValueError(
            "launch(asynchronous=True) returns at once, so timeout= has nothing to "
            "limit: give it to sync(timeout=...) instead"
        )
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout < 0:
        raise ArgumentValueError(f"timeout must be a number of seconds >= 0, got {timeout!r}")


class DpuStatus(NamedTuple):
    """The result of :meth:`DpuSet.status`: whether the DPUs are done and whether any faulted."""

    done: bool
    fault: bool


class _Control(_GroupPart):
    """The running-DPU methods of :class:`~pyupmem.dpus.group.DpuGroup` (its base class only)."""

    def launch(
        self, asynchronous: bool = False, *, trace: bool = False, timeout: float | None = None
    ) -> None:
        """Run the loaded program on every DPU of this set (``dpu_launch``).

        Args:
            asynchronous: return at once (``DPU_ASYNCHRONOUS``); wait later with
                :meth:`sync` or poll :meth:`status`. Default: wait for every DPU. While
                work queued with ``asynchronous=True`` is pending, the launch is queued
                behind it (:mod:`pyupmem.dpus.asynchrony`). A fault is then raised once:
                by :meth:`sync`, by the work queued behind the launch (which does not
                run), or else when the set is freed.
            trace: record what each tasklet does in modelled time, for :meth:`timeline`
                (emulator only; a launch without it records nothing).
            timeout: for a synchronous launch, the most seconds to wait, as
                ``sync(timeout=...)``: when the DPUs still run after it,
                :class:`~pyupmem.errors.DpuTimeoutError` is raised and they keep running
                (wait again with :meth:`sync`, or :meth:`stop` them).

        Raises:
            DpuFaultError: a DPU faulted; ``faults`` maps each faulty DPU to its message.
            DpuProgramError: no program loaded.
            DpuBusyError: the DPUs are already running.
            DpuTimeoutError: still running after ``timeout`` seconds.
        """
        if timeout is not None:
            check_launch_timeout(timeout, asynchronous)
            self.launch(asynchronous=True, trace=trace)
            self.sync(timeout=timeout)
            return
        if asynchronous and self._queue_busy():
            self._lib(settle=False)
            for part in self._rank_parts():  # each rank's launch waits for that rank only
                part._enqueue(
                    lambda part=part: part.launch(asynchronous=True, trace=trace), "launch"
                )
            return
        lib = self._lib()
        if "dpu_emu_trace" in lib.extensions:
            self._check(lib.dpu_emu_trace(self._c, trace), "dpu_emu_trace")  # type: ignore[attr-defined]
        elif trace:
            raise UnsupportedError(
                "launch(trace=True) needs the emulator's time model; on hardware, time the "
                "launch instead (PhaseTimer)"
            )
        if not asynchronous and lib.extensions:
            # The emulator: launch, then wait in slices so that Ctrl-C can interrupt.
            status = lib.dpu_launch(self._c, C.DPU_ASYNCHRONOUS)  # type: ignore[attr-defined]
            if status:
                self._check(status, "dpu_launch")
            self._wait(lib, "dpu_launch")
            return
        policy = C.DPU_ASYNCHRONOUS if asynchronous else C.DPU_SYNCHRONOUS
        status = lib.dpu_launch(self._c, policy)  # type: ignore[attr-defined]
        if not asynchronous:
            self._launch_reported()  # the end is known: raised just below, or clean
        if status:
            self._check(status, "dpu_launch")
        if asynchronous:
            # Its end (a fault) is the user's to hear of: sync(), the next queued job or
            # free() reports it (pyupmem.dpus.asynchrony).
            self._owner._unreported.update(self._indices())

    def _launch_reported(self) -> None:
        """The end of these DPUs' last launch reached the user (raised, or it went well),
        or they were stopped or reloaded: nothing of it is left to report."""
        unreported = self._owner._unreported
        if unreported:
            unreported.difference_update(self._indices())

    def _unreported_fault(self, call: str) -> DpuFaultError | None:
        """The fault of these DPUs' last asynchronous launch, if nobody has reported it yet
        (then it counts as reported); None while they run, after a clean end, or for a
        fault already raised. Does not wait."""
        unreported = self._owner._unreported
        if not unreported or unreported.isdisjoint(self._indices()):
            return None
        state = self._dpu_status()
        if not state.done:
            return None
        self._launch_reported()
        return self._fault_error(C.DPU_ERR_DPU_FAULT, call) if state.fault else None

    def _refuse_unreported_fault(self, call: str) -> None:
        """Raise the fault of these DPUs' asynchronous launch that nobody reported, before
        their memory is read (by a queued job or a synchronous read): it is never handed
        out as a result."""
        if self._owner._unreported:
            fault = self._unreported_fault(call)
            if fault is not None:
                raise fault

    def _wait(self, lib: C.LibDpu, call: str, timeout: float | None = None) -> None:
        wait = lib.dpu_emu_sync_timeout  # type: ignore[attr-defined]
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            while True:
                slice_ms = 200
                if deadline is not None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        status = wait(self._c, 1)
                        if status == C.DPU_ERR_TIMEOUT:
                            raise make_error(
                                C.DPU_ERR_TIMEOUT,
                                call,
                                detail=(
                                    f"the DPUs still run after {timeout} s and keep running. "
                                    "Fix: sync() again to wait longer, or stop() them"
                                ),
                                before_call=True,
                            )
                        break
                    slice_ms = max(1, min(200, int(left * 1000)))
                status = wait(self._c, slice_ms)
                if status != C.DPU_ERR_TIMEOUT:
                    break
        except KeyboardInterrupt:
            # Ctrl-C: leave no DPU running behind the exception.
            if "dpu_emu_stop" in lib.extensions and not self._owner._closed:
                self.stop()
            raise
        self._launch_reported()  # the end is known: raised just below, or clean
        if status:
            self._check(status, call)

    def sync(self, timeout: float | None = None) -> None:
        """Wait until every DPU of this set has finished (``dpu_sync``).

        Args:
            timeout: the most seconds to wait (default: no limit). When the DPUs still run
                after it, :class:`~pyupmem.errors.DpuTimeoutError` (a ``TimeoutError``) is
                raised and they keep running: wait again, or :meth:`stop` them.

        On the emulator the wait can be interrupted: Ctrl-C stops the DPUs of this set
        (:meth:`stop`) and raises ``KeyboardInterrupt``; the set stays usable.

        Work queued with ``asynchronous=True`` (:mod:`pyupmem.dpus.asynchrony`) is waited for
        first, and the first error it met is raised here (the work queued after that error
        was not done).

        Raises:
            DpuFaultError: a DPU faulted; ``faults`` maps each faulty DPU to its message.
            DpuTimeoutError: still running after ``timeout`` seconds.
            UnsupportedError: a ``timeout`` on a backend that cannot wait with a limit.
        """
        self._lib(settle=False)
        if timeout is not None and (isinstance(timeout, bool) or timeout < 0):
            raise ArgumentValueError(f"timeout must be a number of seconds >= 0, got {timeout!r}")
        timeout = self._settle_queue(timeout)
        self._sync_dpus(timeout)

    def _settle_queue(self, timeout: float | None) -> float | None:
        """Wait for the set's queued work (Ctrl-C drops it and stops the DPUs) and raise
        its first error; returns what is left of ``timeout``."""
        owner_jobs = self._owner._jobs
        if owner_jobs is None or owner_jobs.in_worker():
            return timeout
        jobs = owner_jobs.view(self._rank_indices())
        start = time.monotonic()
        try:
            finished = jobs.wait(timeout)
        except KeyboardInterrupt:
            jobs.cancel()
            if "dpu_emu_stop" in self._owner._backend.lib.extensions and not self._owner._closed:
                self.stop()
            raise
        if not finished:
            raise make_error(
                C.DPU_ERR_TIMEOUT,
                "dpu_sync",
                detail=(
                    f"work queued with asynchronous=True is still pending after {timeout} s "
                    "and goes on. Fix: sync() again to wait longer, or stop() the DPUs"
                ),
                before_call=True,
            )
        error = jobs.take_error()
        if error is not None:
            raise error
        return None if timeout is None else max(0.0, timeout - (time.monotonic() - start))

    def _sync_dpus(self, timeout: float | None = None) -> None:
        """Wait for the DPUs themselves (not the queue)."""
        lib = self._lib(settle=False)
        if lib.extensions:
            self._wait(lib, "dpu_sync", timeout)
            return
        if timeout is not None:
            deadline = time.monotonic() + timeout
            while not self._dpu_status().done:
                if time.monotonic() >= deadline:
                    raise make_error(
                        C.DPU_ERR_TIMEOUT,
                        "dpu_sync",
                        detail=f"the DPUs still run after {timeout} s and keep running",
                        before_call=True,
                    )
                time.sleep(0.001)
        status = lib.dpu_sync(self._c)  # type: ignore[attr-defined]
        self._launch_reported()
        if status:
            self._check(status, "dpu_sync")

    def stop(self) -> None:
        """Stop the running DPUs of this set and leave it ready to launch again.

        On the emulator a stopped DPU loses its WRAM (its worker process is killed), so
        stop reloads the program into every DPU of this set: WRAM and the ``__mram``
        variables return to their initial values, the rest of MRAM keeps its contents.
        Stopping part of a set (a rank, a slice) reloads that part only, so the whole set
        then needs a :meth:`load` before whole-set transfers. Nothing runs: no effect.
        Work queued on the set with ``asynchronous=True`` that has not started is dropped.

        Raises:
            UnsupportedError: the backend cannot stop DPUs (the SDK's libdpu has no call
                for it): bound the kernel with ``sync(timeout=...)`` and free the set.
        """
        lib = self._lib(settle=False)
        if "dpu_emu_stop" not in lib.extensions:
            raise UnsupportedError(
                f"stop() cannot stop DPUs on the {self._owner._backend.kind} backend: its "
                f"libdpu ({lib.path}) has no call that halts running DPUs. Fix: bound the "
                "kernel with sync(timeout=...), then free() the set"
            )
        jobs = self._owner._jobs
        if jobs is not None:
            jobs.view(self._rank_indices()).cancel()
        self._launch_reported()  # stopped by the user: their launch is not reported
        if self._dpu_status().done:
            return
        status = lib.dpu_emu_stop(self._c)  # type: ignore[attr-defined]
        if status:
            self._check(status, "dpu_emu_stop")
        loaded = self._program_state()
        if loaded is not None:
            image = loaded._image
            self.load(image if image is not None else loaded.program)
        else:
            for dpu in self:
                state = dpu._program_state()
                if state is not None:
                    dpu.load(state._image if state._image is not None else state.program)

    def status(self) -> DpuStatus:
        """Whether every DPU of this set is done, and whether any faulted (``dpu_status``).

        Work queued on the set with ``asynchronous=True`` and not yet done counts as not
        done."""
        state = self._dpu_status()
        if state.done and self._queue_busy():
            return DpuStatus(False, state.fault)
        return state

    def _dpu_status(self) -> DpuStatus:
        lib = self._lib(settle=False)
        done = ctypes.c_bool()
        fault = ctypes.c_bool()
        status = lib.dpu_status(self._c, ctypes.byref(done), ctypes.byref(fault))  # type: ignore[attr-defined]
        if status and (status & 0xFFFF) != C.DPU_ERR_DPU_FAULT:
            self._check(status, "dpu_status")
        if status:
            return DpuStatus(True, True)
        return DpuStatus(bool(done.value), bool(fault.value))

    def _fault_error(self, status: int, call: str) -> DpuFaultError:
        faults: dict[int, str] = {}
        lib = self._owner._backend.lib
        done = ctypes.c_bool()
        fault = ctypes.c_bool()
        for index, dpu in zip(self._indices(), self._dpu_structs(), strict=True):
            dpu_status = lib.dpu_status(dpu, ctypes.byref(done), ctypes.byref(fault))  # type: ignore[attr-defined]
            if not dpu_status and not fault.value:
                continue
            log_status, data = C.read_log(lib, dpu)
            text = data.decode("utf-8", "replace") if not log_status else ""
            lines = [line for line in text.splitlines() if line.startswith(FAULT_PREFIX)]
            faults[index] = "\n".join(lines) if lines else "fault (no message in the log)"
        if faults:
            shown = list(faults.items())[:3]
            detail = "; ".join(f"DPU {i}: {message}" for i, message in shown)
            if len(faults) > len(shown):
                detail += f"; and {len(faults) - len(shown)} more faulty DPUs"
            detail += ". Reload the program to use these DPUs again"
        else:
            detail = "reload the program to use the DPUs again"
        message = self._owner._backend.lib.error_string(status)
        error = make_error(C.DPU_ERR_DPU_FAULT, call, message=message, detail=detail, faults=faults)
        assert isinstance(error, DpuFaultError)
        return error
