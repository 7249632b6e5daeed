"""Host data of transfers queued with ``asynchronous=True``, kept safe until they have run.

A queued transfer moves its data when its turn comes, not when it is called
(:mod:`pyupmem.dpus.asynchrony`). So that this never shows:

- **Inputs are read-only while queued.** The numpy arrays given to an asynchronous
  :meth:`~pyupmem.DpuSet.write`, :meth:`~pyupmem.DpuSet.broadcast` or
  :meth:`~pyupmem.DpuSet.scatter` (and the arrays they are views of) get
  ``flags.writeable = False`` until the transfer has run, was dropped or failed; then their
  flag is restored. Writing to one meanwhile raises numpy's
  ``ValueError: assignment destination is read-only``: call :meth:`~pyupmem.DpuSet.sync`
  (or write in a :meth:`~pyupmem.DpuSet.callback` queued after the transfer) first. Other
  buffers (``bytearray``, ``array.array``) cannot be locked: leave them unchanged until then.
  The ``out=`` array of an asynchronous gather is locked the same way until it is filled.
- **Outputs cannot be read early.** An asynchronous :meth:`~pyupmem.DpuSet.gather` returns a
  :class:`PendingArray`: every access to its data (``np.asarray(r)``, ``r[0]``, ``r + 1``,
  ``r.tolist()``, :meth:`PendingArray.result`) waits until the gather has run, and raises
  :class:`~pyupmem.errors.PendingResultError` if it never will: its DPUs faulted, it was
  dropped after an earlier error (the error chains, as ``__cause__``, to that one: the
  :class:`~pyupmem.errors.DpuFaultError` of the launch before it, say), or the set was
  stopped or freed: never a faulted DPU's memory (:mod:`pyupmem.dpus.asynchrony`). Inside
  a job or callback, where waiting could deadlock the queue, reading a gather that has not
  run yet raises at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from pyupmem.dpus.asynchrony import QueuedWorkCancelled
from pyupmem.errors import PendingResultError

__all__ = ["PendingArray", "lock_while_queued", "queued_for_transfer"]

_locks: dict[int, list[Any]] = {}  # id(array) -> [array, count]; arrays pyupmem made read-only
_guard = threading.Lock()


def _chain(array: np.ndarray) -> Iterable[np.ndarray]:
    """``array`` and the numpy arrays it is a view of: writing through any changes its data."""
    while isinstance(array, np.ndarray):
        yield array
        array = array.base  # type: ignore[assignment]


def queued_for_transfer(array: object) -> bool:
    """True when ``array`` is read-only because a queued transfer still uses it."""
    with _guard:
        return id(array) in _locks


def lock_while_queued(objects: Iterable[object]) -> Callable[[BaseException | None], None]:
    """Make the writable numpy arrays among ``objects`` (and their bases) read-only; returns
    the callback that restores them, for when the transfer has ended (however it ended)."""
    held: list[np.ndarray] = []
    with _guard:
        for item in objects:
            if not isinstance(item, np.ndarray):
                continue
            for array in _chain(item):
                entry = _locks.get(id(array))
                if entry is not None:
                    entry[1] += 1
                elif array.flags.writeable:
                    array.flags.writeable = False
                    _locks[id(array)] = [array, 1]
                else:
                    continue
                held.append(array)
    released = False

    def release(_error: BaseException | None = None) -> None:
        nonlocal released
        with _guard:
            if released:
                return
            released = True
            for array in reversed(held):  # bases first: a view is writable only if they are
                entry = _locks[id(array)]
                entry[1] -= 1
                if entry[1] == 0:
                    del _locks[id(array)]
                    array.flags.writeable = True
            held.clear()

    return release


def _unwrap(value: Any) -> Any:
    if isinstance(value, PendingArray):
        return value.result()
    if isinstance(value, tuple):
        return tuple(_unwrap(v) for v in value)
    return value


class PendingArray(NDArrayOperatorsMixin):
    """The result of ``gather(..., asynchronous=True)``: an array that the queued gather
    fills, readable once it has run (:mod:`pyupmem.dpus.queued_data`).

    Its ``shape``, ``dtype``, ``ndim``, ``size`` and ``len()`` are known at once. Anything
    that reads the data waits for the gather first: ``np.asarray(r)`` and every numpy
    function, indexing, arithmetic and comparisons, and the ndarray's own methods and
    attributes (``r.tolist()``, ``r.sum()``, ``r.T`` ...). :meth:`result` gives the filled
    ``numpy.ndarray`` itself.
    """

    __slots__ = ("_array", "_what", "_in_worker", "_over", "_error")

    def __init__(self, array: np.ndarray, what: str, in_worker: Callable[[], bool]):
        self._array = array
        self._what = what
        self._in_worker = in_worker
        self._over = threading.Event()
        self._error: BaseException | None = None

    def _finished(self, error: BaseException | None) -> None:
        """The queue's report of how the gather ended (None: it ran)."""
        self._error = error
        self._over.set()

    def done(self) -> bool:
        """True once the gather has run (or will never run: :meth:`result` then raises)."""
        return self._over.is_set()

    def result(self, timeout: float | None = None) -> np.ndarray:
        """The filled array, after waiting (up to ``timeout`` seconds) for the gather.

        Raises:
            PendingResultError: the gather was dropped or failed (:meth:`~pyupmem.DpuSet.sync`
                raises the error that stopped the queue), it has not run after ``timeout``
                seconds, or this is a job or callback queued before the gather ran.
        """
        if not self._over.is_set():
            if self._in_worker():
                raise PendingResultError(
                    f"the {self._what} queued with asynchronous=True has not run yet, and this "
                    "code runs inside the queue, where waiting for it could block the queue "
                    "for ever. Fix: read it in a callback queued after the gather"
                )
            deadline = None if timeout is None else time.monotonic() + timeout
            while not self._over.wait(0.2 if deadline is None else
                                      max(0.0, min(0.2, deadline - time.monotonic()))):
                if deadline is not None and time.monotonic() >= deadline:
                    raise PendingResultError(
                        f"the {self._what} queued with asynchronous=True has not run after "
                        f"{timeout} s. Fix: wait longer (result() or sync()), or stop() the DPUs"
                    )
        if self._error is not None:
            # Dropped behind an earlier error: chain to that error itself (a DpuFaultError
            # of the launch before it, say), not to the queue's note that it was dropped.
            cause = self._error
            if isinstance(cause, QueuedWorkCancelled) and cause.__cause__ is not None:
                cause = cause.__cause__
            why = str(self._error) if cause is self._error else (
                f"work queued before it failed: {type(cause).__name__}: {cause}"
            )
            raise PendingResultError(
                f"the {self._what} queued with asynchronous=True was not done: {why}. "
                "Fix: sync() raises the error that stopped the queue; gather again after it"
            ) from cause
        return self._array

    # ------------------------------------------------------------ known at once

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of the result, ``(len(set), *part)``."""
        return self._array.shape

    @property
    def dtype(self) -> np.dtype:
        """The dtype of the result."""
        return self._array.dtype

    @property
    def ndim(self) -> int:
        """The number of dimensions of the result."""
        return self._array.ndim

    @property
    def size(self) -> int:
        """The number of elements of the result."""
        return self._array.size

    def __len__(self) -> int:
        return len(self._array)

    def __repr__(self) -> str:
        if self._over.is_set() and self._error is None:
            return f"PendingArray(done, {self._array!r})"
        state = "not done" if not self._over.is_set() else "dropped"
        return f"<PendingArray of the {self._what}: {state}, {self.shape} {self.dtype}>"

    # ------------------------------------------------------------ waiting first

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = self.result()
        if dtype is not None and np.dtype(dtype) != array.dtype:
            return array.astype(dtype)
        return array.copy() if copy else array

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        inputs = tuple(_unwrap(value) for value in inputs)
        if "out" in kwargs:
            kwargs["out"] = _unwrap(kwargs["out"])
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        return func(*_unwrap(tuple(args)), **{k: _unwrap(v) for k, v in kwargs.items()})

    def __getitem__(self, index: Any) -> Any:
        return self.result()[index]

    def __setitem__(self, index: Any, value: Any) -> None:
        self.result()[index] = value

    def __iter__(self) -> Any:
        return iter(self.result())

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.result(), name)
