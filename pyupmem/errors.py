"""Exceptions of pyupmem.

Every libdpu status other than ``DPU_OK`` becomes a :class:`DpuError` (or one of its
subclasses) that carries the status code, its ``DPU_ERR_*`` name, its message and the
libdpu call that failed. Checks that pyupmem makes before calling libdpu (alignment,
bounds, buffer sizes, a freed set) raise the same classes with the code libdpu would have
returned, and :attr:`DpuError.before_call` set.

Every class also derives from the builtin exception a Python programmer would catch for
the same mistake (``TypeError``, ``ValueError``, ``IndexError``, ``FileNotFoundError``,
``PermissionError``, ``TimeoutError``), so ``except ValueError`` keeps working.

Warnings are :class:`PyUpmemWarning` (a ``UserWarning``); :class:`CompileWarning` carries
the compiler's warnings of a successful build, :class:`CacheWarning` says that a cached
build failed its content check and was rebuilt.

Hierarchy::

    PyUpmemError
    ├── ArgumentTypeError       an argument of the wrong type          (also a TypeError)
    ├── ArgumentValueError      an argument out of range               (also a ValueError)
    ├── DpuIndexError           a DPU index outside the set            (also an IndexError)
    ├── SourceNotFoundError     a DPU source path that does not exist  (also a FileNotFoundError)
    ├── CacheFolderError        an unsafe program cache folder         (also a PermissionError)
    ├── SymbolTypeError         data whose dtype does not fit a symbol (also a TypeError)
    ├── SymbolShapeError        data whose shape does not fit a symbol (also a ValueError)
    ├── PendingResultError      an asynchronous gather's result that will not be filled
    ├── BackendError            no usable libdpu, or an invalid backend choice
    │   └── UnsupportedError    the backend cannot do this (also a NotImplementedError)
    ├── CompileError            the DPU compiler failed (carries its messages)
    └── DpuError                a libdpu status (code, name, message, call)
        ├── DpuAllocationError  DPU_ERR_ALLOCATION
        ├── DpuProfileError     DPU_ERR_INVALID_PROFILE
        ├── DpuSetError         DPU_ERR_INVALID_DPU_SET (also: the set was freed),
        │                       DPU_ERR_SG_NOT_ACTIVATED
        ├── DpuProgramError     NO_PROGRAM_LOADED, DIFFERENT_DPU_PROGRAMS, ELF_*, TOO_MANY_TASKLETS
        ├── DpuSymbolError      DPU_ERR_UNKNOWN_SYMBOL            (also a LookupError)
        ├── DpuAccessError      INVALID_{WRAM,IRAM,MRAM,SYMBOL,MEMORY}_ACCESS, buffer sizes,
        │                       SG_{TOO_MANY_BLOCKS,LENGTH_MISMATCH,NOT_MRAM_SYMBOL}
        │                                                          (also a ValueError)
        ├── DpuBusyError        DPU_ERR_MRAM_BUSY, DPU_ERR_DPU_ALREADY_RUNNING
        ├── DpuTimeoutError     DPU_ERR_TIMEOUT: still running     (also a TimeoutError)
        └── DpuFaultError       DPU_ERR_DPU_FAULT (carries each faulty DPU's message)
"""

from __future__ import annotations

from pyupmem.driver import libdpu as C


class PyUpmemError(Exception):
    """Base class of every exception pyupmem raises on purpose."""


class PendingResultError(PyUpmemError):
    """The result of ``gather(..., asynchronous=True)`` (a :class:`~pyupmem.PendingArray`)
    was read, but the gather was dropped or failed, did not run within the time asked, or
    is read from inside the queue before it ran (:mod:`pyupmem.dpus.queued_data`)."""


class ArgumentTypeError(PyUpmemError, TypeError):
    """An argument has the wrong type (``DpuSet(4.5)``, ``DpuSet("4")``)."""


class ArgumentValueError(PyUpmemError, ValueError):
    """An argument has the right type but a value out of range (``nr_tasklets=0``)."""


class DpuIndexError(PyUpmemError, IndexError):
    """A DPU index or position outside the set."""


class SourceNotFoundError(PyUpmemError, FileNotFoundError):
    """A DPU source given as a path does not exist."""


class CacheFolderError(PyUpmemError, PermissionError):
    """The program cache folder is not safe: another user owns it or others can write it.

    A cached binary runs as native code on the emulator, so pyupmem refuses such a folder
    (as ssh and pip do) instead of running what someone else may have put there.
    """


class SymbolTypeError(PyUpmemError, TypeError):
    """Data whose dtype does not match the C type of the symbol it is written to."""


class SymbolShapeError(PyUpmemError, ValueError):
    """Data whose shape does not fit the symbol it is written to or read from."""


class BackendError(PyUpmemError):
    """No usable libdpu was found, or the backend choice is invalid."""


class UnsupportedError(BackendError, NotImplementedError):
    """The backend cannot do what was asked (for instance stop running DPUs)."""


class PyUpmemWarning(UserWarning):
    """Base class of the warnings pyupmem issues."""


class CompileWarning(PyUpmemWarning):
    """The DPU compiler printed warnings for a build that succeeded (once per build).

    The full output is in :attr:`pyupmem.Program.build_log`.
    """


class CacheWarning(PyUpmemWarning):
    """A cached build (a DPU program, or the emulator) no longer matches the content hash
    recorded when it was built (truncated, overwritten, or a file gone); pyupmem threw it
    away and built it again. ``python -m pyupmem cache verify`` checks the whole cache."""


class CompileError(PyUpmemError):
    """The DPU compiler failed.

    Attributes:
        command: the command line that was run.
        returncode: the compiler's exit status.
        output: what the compiler printed (its error messages).
    """

    def __init__(self, command: list[str], returncode: int, output: str):
        self.command = command
        self.returncode = returncode
        self.output = output
        super().__init__(
            f"DPU compilation failed (exit {returncode}): {' '.join(command)}\n{output.rstrip()}"
        )


class DpuError(PyUpmemError):
    """A libdpu call returned an error status (or pyupmem caught the error before the call).

    Attributes:
        code: the ``dpu_error_t`` status (2024+ numbering).
        name: its ``DPU_ERR_*`` name.
        message: the library's message for it (``dpu_error_to_string``).
        call: the libdpu function that failed (or would have failed).
        detail: what pyupmem adds: the rule broken and how to fix it, fault messages.
        before_call: True when pyupmem raised it before calling libdpu.
    """

    def __init__(
        self,
        code: int,
        call: str,
        message: str | None = None,
        detail: str = "",
        *,
        name: str | None = None,
        before_call: bool = False,
    ):
        self.code = code
        base = code & 0xFFFF if code & C.DPU_ERR_ASYNC_JOBS else code
        self.name = name or C.ERROR_NAMES.get(base, f"DPU_ERR_{code}")
        self.message = message if message is not None else C.ERROR_MESSAGES.get(base, "")
        self.call = call
        self.detail = detail
        self.before_call = before_call
        text = f"{call}: {self.name} ({self.message})"
        if detail:
            text += f": {detail}"
        super().__init__(text)


class DpuAllocationError(DpuError):
    """The DPUs or ranks asked for could not be allocated (``DPU_ERR_ALLOCATION``)."""


class DpuProfileError(DpuError):
    """The profile string is invalid (``DPU_ERR_INVALID_PROFILE``)."""


class DpuSetError(DpuError):
    """The operation is invalid for this set (``DPU_ERR_INVALID_DPU_SET``), or the set is freed."""


class DpuProgramError(DpuError):
    """No program, different programs, or a program file that cannot be loaded."""


class DpuSymbolError(DpuError, LookupError):
    """The program has no symbol of that name (``DPU_ERR_UNKNOWN_SYMBOL``)."""


class DpuAccessError(DpuError, ValueError):
    """A transfer breaks a memory rule: alignment, bounds, or buffer size."""


class DpuBusyError(DpuError):
    """The DPU runs: its MRAM is busy or it is already running."""


class DpuTimeoutError(DpuError, TimeoutError):
    """The DPUs were still running when the time limit ran out (``DPU_ERR_TIMEOUT``);
    they keep running: :meth:`~pyupmem.DpuSet.sync` again, or :meth:`~pyupmem.DpuSet.stop`."""


class DpuFaultError(DpuError):
    """One or more DPUs faulted (``DPU_ERR_DPU_FAULT``).

    Attributes:
        faults: DPU index in the set to the fault message its log holds
            (the line starting with ``"DPU fault: "``), for every faulty DPU.
    """

    def __init__(self, *args: object, faults: dict[int, str] | None = None, **kwargs: object):
        self.faults = dict(faults or {})
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]


_CLASS_BY_NAME: dict[str, type[DpuError]] = {
    "DPU_ERR_ALLOCATION": DpuAllocationError,
    "DPU_ERR_INVALID_PROFILE": DpuProfileError,
    "DPU_ERR_INVALID_DPU_SET": DpuSetError,
    "DPU_ERR_NO_PROGRAM_LOADED": DpuProgramError,
    "DPU_ERR_DIFFERENT_DPU_PROGRAMS": DpuProgramError,
    "DPU_ERR_ELF_INVALID_FILE": DpuProgramError,
    "DPU_ERR_ELF_NO_SUCH_FILE": DpuProgramError,
    "DPU_ERR_ELF_NO_SUCH_SECTION": DpuProgramError,
    "DPU_ERR_TOO_MANY_TASKLETS": DpuProgramError,
    "DPU_ERR_UNKNOWN_SYMBOL": DpuSymbolError,
    "DPU_ERR_INVALID_WRAM_ACCESS": DpuAccessError,
    "DPU_ERR_INVALID_IRAM_ACCESS": DpuAccessError,
    "DPU_ERR_INVALID_MRAM_ACCESS": DpuAccessError,
    "DPU_ERR_INVALID_SYMBOL_ACCESS": DpuAccessError,
    "DPU_ERR_INVALID_MEMORY_TRANSFER": DpuAccessError,
    "DPU_ERR_INVALID_PARALLEL_MEMORY_TRANSFER": DpuAccessError,
    "DPU_ERR_INVALID_BUFFER_SIZE": DpuAccessError,
    "DPU_ERR_MRAM_BUSY": DpuBusyError,
    "DPU_ERR_DPU_ALREADY_RUNNING": DpuBusyError,
    "DPU_ERR_DPU_FAULT": DpuFaultError,
    "DPU_ERR_TIMEOUT": DpuTimeoutError,
    "DPU_ERR_SG_NOT_ACTIVATED": DpuSetError,
    "DPU_ERR_SG_TOO_MANY_BLOCKS": DpuAccessError,
    "DPU_ERR_SG_LENGTH_MISMATCH": DpuAccessError,
    "DPU_ERR_SG_NOT_MRAM_SYMBOL": DpuAccessError,
}


def error_class(name: str) -> type[DpuError]:
    """The exception class for a ``DPU_ERR_*`` name (:class:`DpuError` for the others)."""
    return _CLASS_BY_NAME.get(name, DpuError)


def make_error(
    code: int,
    call: str,
    *,
    message: str | None = None,
    detail: str = "",
    before_call: bool = False,
    **extra: object,
) -> DpuError:
    """Build the exception for status ``code`` (2024+ numbering) returned by ``call``.

    Args:
        code: the status, in the 2024+ numbering.
        call: the libdpu function.
        message: the library's message; by default the 2024+ table's.
        detail: what pyupmem adds to the message.
        before_call: pyupmem detected the error before calling libdpu.
        extra: extra keyword arguments of the class (``faults`` for :class:`DpuFaultError`).
    """
    base = code & 0xFFFF if code & C.DPU_ERR_ASYNC_JOBS else code
    name = C.ERROR_NAMES.get(base, f"DPU_ERR_{code}")
    cls = error_class(name)
    return cls(code, call, message, detail, name=name, before_call=before_call, **extra)
