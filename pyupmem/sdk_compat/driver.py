"""The SDK's ``dpu.driver``: :class:`DpuSet` and the classes around it, on
:class:`pyupmem.DpuSet`.

Every failure of a DPU operation raises :class:`DpuError` (pyupmem's own exception is its
``__cause__``); a failed compilation of ``c_source`` raises
:class:`subprocess.CalledProcessError`, as the SDK's :mod:`dpu.compiler` does.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from pyupmem.build.builder import build_program, is_source_text
from pyupmem.build.program import Program, Symbol
from pyupmem.dpus.dpuset import DpuSet as _PimSet
from pyupmem.dpus.transfer_rules import check_access
from pyupmem.dpus.views import Dpu, Rank
from pyupmem.driver import libdpu as C
from pyupmem.errors import CompileError, DpuProgramError, DpuSymbolError, PyUpmemError

from . import compiler, ffi

__all__ = [
    "ALLOCATE_ALL",
    "DpuContext",
    "DpuError",
    "DpuProgram",
    "DpuSet",
    "DpuSymbol",
    "DpuVariable",
]

ALLOCATE_ALL = C.DPU_ALLOCATE_ALL
"""``nr_dpus`` or ``nr_ranks`` that allocates every available DPU or rank."""

_NR_TASKLETS = 1  # the SDK compiles c_source without NR_TASKLETS: its default, one tasklet

ONCE_FOR_THE_SET = 0xFFFFFFFF
"""The index :meth:`DpuSet.call` gives a callback run once for the whole set, as the SDK's
``dpu_callback`` does (``(uint32_t)-1``)."""


def _buffer_address(array: np.ndarray) -> int:
    return int(array.ctypes.data)


class DpuError(Exception):
    """Raised by every operation of this API that fails.

    Attributes:
        code: the libdpu status (``dpu_error_t``) behind the error, when there is one.
    """

    def __init__(self, message: str, *, code: int | None = None):
        super().__init__(message)
        self.code = code


@contextlib.contextmanager
def _translated() -> Iterator[None]:
    """Turn pyupmem's exceptions into :class:`DpuError`, keeping the original as the cause."""
    try:
        yield
    except PyUpmemError as error:
        raise DpuError(str(error), code=getattr(error, "code", None)) from error


class _ContextInfo(ctypes.Structure):
    _fields_ = [
        ("nr_threads", ctypes.c_uint32),
        ("nr_registers", ctypes.c_uint32),
        ("nr_atomic_bits", ctypes.c_uint32),
        ("iram_size", ctypes.c_uint16),
        ("mram_size", ctypes.c_uint32),
        ("wram_size", ctypes.c_uint32),
    ]


class _Context(ctypes.Structure):
    """``struct dpu_context_t`` (dpu_types.h): what ``dpu_checkpoint_save`` fills."""

    _fields_ = [
        ("info", _ContextInfo),
        ("iram", ctypes.c_void_p),
        ("mram", ctypes.POINTER(ctypes.c_uint8)),
        ("wram", ctypes.POINTER(ctypes.c_uint32)),
        ("registers", ctypes.c_void_p),
        ("pcs", ctypes.c_void_p),
        ("atomic_register", ctypes.c_void_p),
        ("zero_flags", ctypes.c_void_p),
        ("carry_flags", ctypes.c_void_p),
        ("nr_of_running_threads", ctypes.c_uint8),
        ("scheduling", ctypes.c_void_p),
        ("bkp_fault", ctypes.c_bool),
        ("dma_fault", ctypes.c_bool),
        ("mem_fault", ctypes.c_bool),
        ("bkp_fault_thread_index", ctypes.c_uint8),
        ("dma_fault_thread_index", ctypes.c_uint8),
        ("mem_fault_thread_index", ctypes.c_uint8),
        ("bkp_fault_id", ctypes.c_uint32),
    ]


# DPU_CHECKPOINT_* (dpu_checkpoint.h)
_CHECKPOINT_INTERNAL, _CHECKPOINT_IRAM, _CHECKPOINT_MRAM, _CHECKPOINT_WRAM = 0x1, 0x2, 0x8, 0x10


def _checkpoint_flags(iram: bool, mram: bool, wram: bool) -> int:
    """The SDK's flags for ``checkpoint(iram, mram, wram)``: IRAM goes with the DPU's
    internal state (registers, PCs), which the emulator does not have."""
    return (
        (_CHECKPOINT_INTERNAL | _CHECKPOINT_IRAM if iram else 0)
        | (_CHECKPOINT_MRAM if mram else 0)
        | (_CHECKPOINT_WRAM if wram else 0)
    )


def _checkpoint_call(name: str) -> Any:
    """``dpu_checkpoint_save``/``_restore``/``_free`` of the active libdpu, typed."""
    from pyupmem.driver.backend import find_backend

    function = getattr(find_backend().lib.cdll, name)
    if name == "dpu_checkpoint_free":
        function.argtypes = [ctypes.POINTER(_Context)]
    else:
        function.argtypes = [C.dpu_set_t, ctypes.c_uint32, ctypes.POINTER(_Context)]
    function.restype = ctypes.c_int
    return function


class DpuContext:
    """A DPU's saved state, which :meth:`DpuSet.checkpoint` returns: on the emulator its
    whole MRAM (64 MiB) and whole WRAM (16,384 words on a v1A chip), as the SDK's
    ``dpu_checkpoint_save`` saves them; the DPU's registers and IRAM cannot be saved
    (``iram=True`` raises :class:`DpuError` with ``DPU_ERR_INTERNAL``).

    Attributes:
        wram_words: the saved WRAM's size in 32-bit words (0 when not saved).
        mram_bytes: the saved MRAM's size in bytes (0 when not saved).
    """

    def __init__(self, *args: Any, **kwargs: Any):
        raise DpuError("a DpuContext comes from DpuSet.checkpoint()")

    @classmethod
    def _saved(cls, context: _Context) -> DpuContext:
        self = object.__new__(cls)
        self._context = context
        self._free = _checkpoint_call("dpu_checkpoint_free")
        return self

    @property
    def wram_words(self) -> int:
        return self._context.info.wram_size if self._context.wram else 0

    @property
    def mram_bytes(self) -> int:
        return self._context.info.mram_size if self._context.mram else 0

    def wram(self) -> bytes:
        """The saved WRAM's bytes, from address 0."""
        if not self._context.wram:
            return b""
        return ctypes.string_at(self._context.wram, 4 * self._context.info.wram_size)

    def __del__(self) -> None:
        context = getattr(self, "_context", None)
        if context is not None:
            self._free(ctypes.byref(context))

    @staticmethod
    def from_buffer(buf: Any) -> DpuContext:
        """Deserialize a context (raises :class:`DpuError`: the emulator does not serialize)."""
        raise DpuError(
            "serialized DPU contexts are not available on pyupmem's emulator: keep the "
            "DpuContext that checkpoint() returned"
        )


class DpuSymbol:
    """A symbol of a DPU program: its name, address and size.

    Args:
        name: the symbol's name.
        c_symbol: its address and size, as a ``(address, size)`` tuple, a
            ``struct dpu_symbol_t`` (:class:`pyupmem.driver.libdpu.dpu_symbol_t`) or a
            :class:`pyupmem.Symbol`.

    Attributes:
        name: the symbol's name.
        c_symbol: the ``struct dpu_symbol_t``.
    """

    def __init__(self, name: str, c_symbol: Any):
        if isinstance(c_symbol, Symbol | C.dpu_symbol_t):
            address, size = c_symbol.address, c_symbol.size
        else:
            address, size = c_symbol
        self.name = name
        self.c_symbol = C.dpu_symbol_t(address, size)
        self._symbol = Symbol(name, address, size)

    def value(self) -> int:
        """The symbol's value: a variable's address (MRAM addresses have bit 0x08000000)."""
        return int(self.c_symbol.address)

    def size(self) -> int:
        """The symbol's size in bytes."""
        return int(self.c_symbol.size)

    def __repr__(self) -> str:
        return f"DpuSymbol({self.name!r}, (0x{self.value():08x}, {self.size()}))"


class DpuProgram:
    """A program loaded into a :class:`DpuSet` (what :meth:`DpuSet.load` returns).

    Attributes:
        symbols: the symbols looked up so far, by name.
    """

    def __init__(self, loaded: Any):
        self._loaded = loaded
        self.symbols: dict[str, DpuSymbol] = {}

    def get_symbol(self, symbol: str) -> DpuSymbol | None:
        """The symbol named ``symbol``, or None when the program has none of that name."""
        found = self.symbols.get(symbol)
        if found is None:
            try:
                found = DpuSymbol(symbol, self._loaded.symbol(symbol))
            except (DpuSymbolError, DpuProgramError):
                return None
            self.symbols[symbol] = found
        return found

    def fetch_all_symbols(self) -> dict[str, DpuSymbol]:
        """Every symbol of the program, by name (libdpu's ``Py_dpu_get_symbol_names``)."""
        for name in ffi.Py_dpu_get_symbol_names(self._loaded._handle):
            self.get_symbol(name)
        return self.symbols


class DpuVariable:
    """The value of a symbol read from every DPU of a set (``dpus.name``).

    Each method reads the bytes as an array of one C type. The result holds one item per
    DPU, or is that item alone for a one-DPU set; an item is a number when the symbol holds
    one value of that type, else a ``memoryview`` of the values.

    Attributes:
        contents: one ``memoryview`` of the symbol's bytes per DPU.
    """

    def __init__(self, contents: list[memoryview]):
        self.contents = contents

    def _cast(self, code: str) -> Any:
        items = [_single(view.cast(code)) for view in self.contents]
        return _single(items)

    def data(self) -> Any:
        """The raw bytes: one ``memoryview`` per DPU (one alone for a one-DPU set)."""
        return _single(self.contents)

    def int8(self) -> Any:
        """The bytes as ``int8_t`` values."""
        return self._cast("b")

    def uint8(self) -> Any:
        """The bytes as ``uint8_t`` values."""
        return self._cast("B")

    def int16(self) -> Any:
        """The bytes as ``int16_t`` values."""
        return self._cast("h")

    def uint16(self) -> Any:
        """The bytes as ``uint16_t`` values."""
        return self._cast("H")

    def int32(self) -> Any:
        """The bytes as ``int32_t`` values."""
        return self._cast("i")

    def uint32(self) -> Any:
        """The bytes as ``uint32_t`` values."""
        return self._cast("I")

    def int64(self) -> Any:
        """The bytes as ``int64_t`` values."""
        return self._cast("q")

    def uint64(self) -> Any:
        """The bytes as ``uint64_t`` values."""
        return self._cast("Q")

    def float(self) -> Any:
        """The bytes as ``float`` values."""
        return self._cast("f")

    def double(self) -> Any:
        """The bytes as ``double`` values."""
        return self._cast("d")


def _single(items: Any) -> Any:
    return items[0] if len(items) == 1 else items


def _host_view(buffer: Any, writable: bool) -> memoryview:
    """The bytes of a host buffer, checked for what a transfer needs."""
    try:
        view = memoryview(buffer).cast("B")
    except TypeError as error:
        raise DpuError(
            f"cannot transfer a {type(buffer).__name__}: the host side of a copy is a "
            "bytearray (or another contiguous buffer), or a list of them, one per DPU"
        ) from error
    if writable and view.readonly:
        raise DpuError(
            f"cannot copy from the DPUs into a read-only {type(buffer).__name__}: pass a bytearray"
        )
    return view


class DpuSet:
    """A set of DPUs, its ranks or one DPU, as the SDK's Python module has it.

    Allocates DPUs (every DPU when neither ``nr_dpus`` nor ``nr_ranks`` is given), then
    loads ``binary`` or compiles and loads ``c_source``. Use it as a context manager, or
    call :meth:`free`. ``len()`` is the number of DPUs; iterating gives one ``DpuSet`` per
    DPU; :meth:`dpus` and :meth:`ranks` list them. Symbols of the loaded program are
    attributes (see :class:`DpuVariable`).

    Args:
        nr_dpus: how many DPUs (:data:`ALLOCATE_ALL`: every available one).
        nr_ranks: how many whole ranks instead.
        profile: the libdpu profile, ``"key=value,..."``.
        binary: a DPU program to load: a path, or the binary's bytes.
        c_source: C sources to compile (with ``-O2``) and load: a path, the source text,
            a file object, or a list of them.
        asm_source: DPU assembly sources (not available on the emulator).
        log: where :meth:`exec` writes the DPUs' logs by default: a stream for every DPU,
            or a list of streams, one per DPU.
        async_mode: launch asynchronously by default (wait with :meth:`sync`).

    Raises:
        DpuError: the allocation failed, both ``nr_dpus`` and ``nr_ranks`` were given, or
            the program could not be loaded.
        subprocess.CalledProcessError: ``c_source`` does not compile.
    """

    def __init__(
        self,
        nr_dpus: int | None = None,
        nr_ranks: int | None = None,
        profile: str = "",
        binary: str | os.PathLike | bytes | bytearray | None = None,
        c_source: Any = None,
        asm_source: Any = None,
        log: Any = None,
        async_mode: bool | None = False,
    ):
        if nr_dpus is not None and nr_ranks is not None:
            raise DpuError("cannot specify nr_dpus and nr_ranks: give one of them")
        with _translated():
            if nr_ranks is not None:
                pim = _PimSet(nr_ranks=nr_ranks, profile=profile)
            else:
                pim = _PimSet(nr_dpus, profile=profile)
        shared_log = None if isinstance(log, list) else log
        self._setup(pim, None, None, shared_log, async_mode)
        try:
            ranks: list[DpuSet] = []
            dpus: list[DpuSet] = []
            with _translated():
                for rank in pim.ranks:
                    rank_set = DpuSet._view(rank, self, None, shared_log, async_mode)
                    rank_set._ranks.append(rank_set)
                    ranks.append(rank_set)
                    for dpu in rank:
                        dpu_set = DpuSet._view(dpu, self, rank_set, shared_log, async_mode)
                        dpu_set._dpus.append(dpu_set)
                        dpu_set._ranks.append(rank_set)
                        rank_set._dpus.append(dpu_set)
                        dpus.append(dpu_set)
            self._ranks.extend(ranks)
            self._dpus.extend(dpus)
            if isinstance(log, list):
                if len(log) != len(dpus):
                    raise DpuError(
                        f"log list length does not match the number of DPUs in the DpuSet "
                        f"({len(log)} streams for {len(dpus)} DPUs): give one stream per DPU"
                    )
                for dpu_set, stream in zip(dpus, log, strict=True):
                    object.__setattr__(dpu_set, "_log", stream)
            if binary is not None or c_source is not None or asm_source is not None:
                self.load(binary, c_source, asm_source)
        except BaseException:
            pim.free()
            raise

    def _setup(
        self,
        node: _PimSet | Rank | Dpu,
        top: DpuSet | None,
        rank: DpuSet | None,
        log: Any,
        async_mode: bool | None,
    ) -> None:
        values = {
            "_node": node,
            "_top": top,
            "_rank": rank,
            "_dpus": [],
            "_ranks": [],
            "_log": log,
            "_async_mode": bool(async_mode),
            "_pending": False,
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @classmethod
    def _view(
        cls,
        node: Rank | Dpu,
        top: DpuSet,
        rank: DpuSet | None,
        log: Any,
        async_mode: bool | None,
    ) -> DpuSet:
        view = cls.__new__(cls)
        view._setup(node, top, rank, log, async_mode)
        return view

    @property
    def _root(self) -> DpuSet:
        return self._top if self._top is not None else self

    # ------------------------------------------------------------------ structure

    def __enter__(self) -> DpuSet:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.free()

    def __iter__(self) -> Iterator[DpuSet]:
        return iter(self.dpus())

    def __len__(self) -> int:
        return len(self._dpus)

    def __repr__(self) -> str:
        kind = "DPU" if isinstance(self._node, Dpu) else "rank" if self._top else "set"
        return f"<dpu.DpuSet ({kind}) of {len(self)} DPUs, on pyupmem's {self._node.backend.kind}>"

    def dpus(self) -> list[DpuSet]:
        """The DPUs of the set, each a one-DPU ``DpuSet``."""
        return self._dpus

    def ranks(self) -> list[DpuSet]:
        """The ranks of the set, each a ``DpuSet`` (a DPU's list holds its own rank)."""
        return self._ranks

    def free(self) -> None:
        """Free the DPUs (the set that allocated them; ranks and DPUs are parts of it).

        Raises:
            DpuError: called on a rank or a DPU of a set.
        """
        if self._top is not None:
            raise DpuError(
                "free() frees the DPUs of a whole allocation: call it on the DpuSet that "
                "allocated them, not on one of its ranks or DPUs"
            )
        with _translated():
            self._node.free()

    # ------------------------------------------------------------------ programs

    def load(
        self,
        binary: str | os.PathLike | bytes | bytearray | None = None,
        c_source: Any = None,
        asm_source: Any = None,
    ) -> DpuProgram:
        """Load a program into every DPU of the set.

        Args:
            binary: the DPU program: a path, or the binary's bytes.
            c_source: C sources to compile (``-O2``, one tasklet unless they say otherwise)
                and load: a path, the source text, a file object, or a list of them.
            asm_source: DPU assembly (not available on the emulator).

        Returns:
            The loaded program.

        Raises:
            DpuError: not exactly one of binary and sources was given, or the program cannot
                be loaded.
            subprocess.CalledProcessError: the sources do not compile (the compiler's
                messages are in its ``stderr``), as with the SDK.
        """
        if (binary is None) == (c_source is None and asm_source is None):
            raise DpuError(
                "one and only one source or binary program must be defined: pass binary=, "
                "c_source= or asm_source="
            )
        if asm_source is not None:
            raise DpuError(
                "DPU assembly (asm_source) cannot run on pyupmem's emulator, which runs DPU "
                "programs compiled from C: pass c_source=, or binary= built with "
                "dpu-upmem-dpurte-clang"
            )
        self._settle()
        program: Program | str | os.PathLike | bytes | bytearray
        if c_source is not None:
            program = self._compile(c_source)
        elif isinstance(binary, str | os.PathLike | bytes | bytearray | memoryview):
            program = binary
        else:
            raise DpuError(
                f"binary must be a path or the program's bytes, not a {type(binary).__name__}"
            )
        with _translated():
            loaded = self._node.load(program)
        return DpuProgram(loaded)

    def _compile(self, c_source: Any) -> Program:
        items = c_source if isinstance(c_source, list) else [c_source]
        sources: list[str] = []
        missing: list[str] = []
        for item in items:
            if hasattr(item, "read"):
                sources.append(_as_text(item.read()))
            elif isinstance(item, str) and is_source_text(item):
                sources.append(_as_text(item))
            elif isinstance(item, str | os.PathLike):
                path = os.fspath(item)
                (sources if os.path.isfile(path) else missing).append(path)
            else:
                raise DpuError(
                    f"c_source cannot be a {type(item).__name__}: give a path to a C file, "
                    "C source text, a file object, or a list of them"
                )
        if missing:
            with _translated():
                _compile_missing(missing)
        try:
            with _translated():
                return build_program(
                    sources, nr_tasklets=_NR_TASKLETS, opt_level=2, backend=self._node.backend
                )
        except DpuError as error:
            cause = error.__cause__
            if not isinstance(cause, CompileError):
                raise
            # The SDK's compiler runs with check=True: its failure is a CalledProcessError.
            raise subprocess.CalledProcessError(
                cause.returncode, cause.command, output="", stderr=cause.output
            ) from cause

    # ------------------------------------------------------------------ symbols

    def _lookup(self, name: str) -> Symbol | None:
        node = self.__dict__.get("_node")
        if node is None:
            return None
        try:
            return node.symbol(name)
        except (DpuSymbolError, DpuProgramError):
            return None
        except PyUpmemError as error:
            raise DpuError(str(error), code=getattr(error, "code", None)) from error

    def __getattr__(self, name: str) -> DpuVariable:
        # Called only for names that are not attributes: the loaded program's symbols.
        if not (name.startswith("__") and name.endswith("__")):
            symbol = self._lookup(name)
            if symbol is not None:
                return self._read_variable(symbol)
        raise AttributeError(
            f"'DpuSet' object has no attribute {name!r} (and the loaded program, if any, has "
            "no symbol of that name)"
        )

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self.__dict__ and not hasattr(type(self), name):
            symbol = self._lookup(name)
            if symbol is not None:
                self.copy(DpuSymbol(name, symbol), value)
                return
        object.__setattr__(self, name, value)

    def _read_variable(self, symbol: Symbol) -> DpuVariable:
        self._settle()
        count, size = len(self), symbol.size
        storage = bytearray(count * size)
        if size:
            out = np.frombuffer(storage, dtype=np.uint8).reshape(count, size)
            with _translated():
                self._node.gather(symbol, out=out)
        view = memoryview(storage)
        return DpuVariable([view[i * size : (i + 1) * size] for i in range(count)])

    # ------------------------------------------------------------------ transfers

    def copy(
        self,
        dst: Any,
        src: Any,
        size: int | None = None,
        offset: int = 0,
        async_mode: bool | None = None,
    ) -> None:
        """Copy bytes between the host and a symbol of the DPUs.

        One of ``dst`` and ``src`` is the DPU symbol (its name or a :class:`DpuSymbol`),
        the other the host side: a ``bytearray`` (to the DPUs: the same bytes to each; from
        the DPUs: one DPU's bytes) or a list of them, one per DPU, ``None`` skipping a DPU.

        Args:
            dst: where the bytes go.
            src: where they come from.
            size: bytes to move; default: the host buffer's length (a list's buffers must
                then have one length).
            offset: byte offset in the symbol.
            async_mode: accepted for the SDK's signature; transfers are synchronous (after
                any asynchronous launch has finished).

        Raises:
            DpuError: no DPU side or two, a wrong number of host buffers, a buffer too
                small, an unknown symbol, or a transfer that breaks the memory rules.
        """
        to_dpu = isinstance(dst, str | DpuSymbol)
        from_dpu = isinstance(src, str | DpuSymbol)
        if to_dpu == from_dpu:
            raise DpuError(
                "can only execute Host <-> DPU transfers: one of dst and src must be a DPU "
                "symbol (its name or a DpuSymbol), the other a bytearray or a list of them"
            )
        host, device = (src, dst) if to_dpu else (dst, src)
        symbol: str | Symbol = device._symbol if isinstance(device, DpuSymbol) else device
        self._settle()
        if isinstance(host, list) and len(host) == 1 and len(self) == 1:
            host = host[0]
        if isinstance(host, list):
            self._copy_each(host, symbol, to_dpu, size, offset)
            return
        view = _host_view(host, writable=not to_dpu)
        size = _checked_size(size, len(view))
        with _translated():
            if to_dpu:
                self._node.broadcast(symbol, view[:size], offset, raw=True)
            else:
                # libdpu copies every DPU's bytes into the one buffer: the last DPU's stay.
                self._dpus[-1]._node.read(symbol, offset=offset, out=view[:size])

    def _copy_each(
        self, host: list[Any], symbol: str | Symbol, to_dpu: bool, size: int | None, offset: int
    ) -> None:
        if len(host) != len(self._dpus):
            raise DpuError(
                f"invalid number of host buffers for this DPU set: {len(host)} buffers for "
                f"{len(self._dpus)} DPUs (give one per DPU, None to skip one)"
            )
        views = [None if item is None else _host_view(item, not to_dpu) for item in host]
        lengths = {len(view) for view in views if view is not None}
        if size is None and len(lengths) > 1:
            raise DpuError(
                f"host buffers of different sizes ({min(lengths)} to {max(lengths)} bytes): "
                "pass size= to move that many bytes of each"
            )
        if size is None:
            size = lengths.pop() if lengths else 0
        for view in views:
            if view is not None:
                _checked_size(size, len(view))
        shares = [None if view is None else view[:size] for view in views]
        with _translated():
            if to_dpu and all(share is not None for share in shares):
                self._node.scatter(symbol, shares, offset, raw=True)
                return
            # As the SDK's module: each DPU's buffer prepared (None: none, so that DPU is
            # skipped), then one transfer for the whole set.
            node = self._node
            call = "dpu_push_xfer"
            resolved = node._resolve(symbol, call)
            check_access(resolved, offset, size, call)
            if size == 0:
                return
            arrays = [None if share is None else np.frombuffer(share, np.uint8) for share in shares]
            addresses = [0 if array is None else _buffer_address(array) for array in arrays]
            direction = C.DPU_XFER_TO_DPU if to_dpu else C.DPU_XFER_FROM_DPU
            node._push(node._lib(True), direction, symbol, resolved, offset, size, addresses)

    # ------------------------------------------------------------------ execution

    def exec(self, log: Any = None, async_mode: bool | None = None) -> None:
        """Run the loaded program on every DPU of the set, then write their logs.

        Args:
            log: where to write the logs (as :meth:`log` does, after the streams given at
                allocation): a stream for every DPU, a list of streams (one per DPU,
                ``None`` for none) or a dict from DPU (``DpuSet``) to stream.
            async_mode: launch and return at once (the default is the set's
                ``async_mode``); the logs are then not written: wait with :meth:`sync` and
                call :meth:`log`.

        Raises:
            DpuError: no program is loaded, or a DPU faulted (the message says where).
        """
        asynchronous = self._async_mode if async_mode is None else bool(async_mode)
        self._settle()
        with _translated():
            self._node.launch(asynchronous=asynchronous)
        if asynchronous:
            object.__setattr__(self._root, "_pending", True)
            return
        self._write_logs(log, None)

    def sync(self) -> None:
        """Wait until an asynchronous launch has finished.

        Raises:
            DpuError: a DPU faulted.
        """
        root = self._root
        object.__setattr__(root, "_pending", False)
        with _translated():
            root._node.sync()

    def _settle(self) -> None:
        if self._root._pending:
            self.sync()

    def log(self, stream: Any = None) -> None:
        """Write each DPU's log (``=== DPU#0x... ===`` and what it printed) to ``stream``.

        Args:
            stream: an object with a ``write`` method, a list of them (one per DPU) or a
                dict from DPU to stream; default: the streams given at allocation, else
                ``sys.stdout``.

        Raises:
            DpuError: a stream without ``write``, or a list of the wrong length.
        """
        self._settle()
        self._write_logs(stream, sys.stdout)

    def _write_logs(self, log: Any, default: Any) -> None:
        streams = {
            id(dpu): (dpu, dpu._log if dpu._log is not None else default) for dpu in self._dpus
        }
        if isinstance(log, list):
            if len(log) != len(self._dpus):
                raise DpuError(
                    f"cannot log: the list has {len(log)} streams for {len(self._dpus)} DPUs "
                    "(give one per DPU, None for none)"
                )
            for dpu, stream in zip(self._dpus, log, strict=True):
                if stream is not None:
                    streams[id(dpu)] = (dpu, stream)
        elif isinstance(log, dict):
            for dpu, stream in log.items():
                if id(dpu) not in streams:
                    raise DpuError(
                        "cannot log: the dict's keys must be DPUs of this set (from dpus())"
                    )
                streams[id(dpu)] = (dpu, stream)
        elif log is not None:
            streams = {key: (dpu, log) for key, (dpu, _) in streams.items()}
        for dpu, stream in streams.values():
            if stream is None:
                continue
            if not callable(getattr(stream, "write", None)):
                raise DpuError(
                    f"stream argument is not an object with a 'write' method "
                    f"({type(stream).__name__}): pass a file or sys.stdout"
                )
            with _translated():
                text = dpu._node.logs(header=True)[0]
            stream.write(text)

    def call(
        self,
        fn: Callable[[DpuSet, int, Any], Any],
        arg: Any,
        async_mode: bool | None = None,
        is_blocking: bool = True,
        single_call: bool = False,
    ) -> None:
        """Call ``fn(rank, rank_index, arg)`` for each rank of the set, or once with the
        whole set (``single_call``, or a one-DPU set) as ``fn(set, 0xFFFFFFFF, arg)``, the
        index the SDK's ``dpu_callback`` gives a call made once for the set.

        The calls run at once, in order, after any asynchronous launch has finished;
        ``async_mode`` and ``is_blocking`` are accepted for the SDK's signature.
        """
        self._settle()
        if single_call or isinstance(self._node, Dpu):
            fn(self, ONCE_FOR_THE_SET, arg)
            return
        for index, rank in enumerate(self._ranks):
            fn(rank, index, arg)

    def checkpoint(self, iram: bool = True, mram: bool = True, wram: bool = True) -> DpuContext:
        """Save a single DPU's state with the SDK's ``dpu_checkpoint_save``: its whole MRAM
        and WRAM. ``iram`` asks for the IRAM and the registers too, which the emulator
        cannot save: pass ``iram=False``.

        Raises:
            DpuError: not a single DPU, a DPU that runs, or ``iram`` on the emulator
                (``code`` is the libdpu status, ``DPU_ERR_INTERNAL`` there).
        """
        self._settle()
        context = _Context()
        status = _checkpoint_call("dpu_checkpoint_save")(
            self._node._c, _checkpoint_flags(iram, mram, wram), ctypes.byref(context)
        )
        _check_checkpoint(status, "dpu_checkpoint_save", iram)
        return DpuContext._saved(context)

    def restore(
        self, context: DpuContext, iram: bool = True, mram: bool = True, wram: bool = True
    ) -> None:
        """Write back a single DPU's state saved by :meth:`checkpoint`
        (``dpu_checkpoint_restore``); ``iram`` as there.

        Raises:
            DpuError: as :meth:`checkpoint`.
        """
        self._settle()
        status = _checkpoint_call("dpu_checkpoint_restore")(
            self._node._c, _checkpoint_flags(iram, mram, wram), ctypes.byref(context._context)
        )
        _check_checkpoint(status, "dpu_checkpoint_restore", iram)


def _check_checkpoint(status: int, call: str, iram: bool) -> None:
    if status == C.DPU_OK:
        return
    hint = (
        ": the emulator has no DPU registers or IRAM to save; pass iram=False to checkpoint "
        "the whole MRAM and WRAM"
        if iram and status == C.DPU_ERR_INTERNAL
        else ""
    )
    name, message = C.ERROR_NAMES.get(status, str(status)), C.ERROR_MESSAGES.get(status, "")
    raise DpuError(f"{call} failed ({name}: {message}){hint}", code=status)


def _compile_missing(paths: list[str]) -> None:
    """Hand paths that name no file to the compiler, as the SDK does, which fails on them
    with a :class:`subprocess.CalledProcessError` naming the file."""
    with tempfile.TemporaryDirectory() as folder:
        compiler.default_compiler().compile(
            paths, output=os.path.join(folder, "main.dpu"), opt_lvl=compiler.O2
        )
    raise DpuError(f"no C source file {paths[0]!r}")  # the compiler accepted it after all


def _as_text(source: str | bytes) -> str:
    text = source.decode() if isinstance(source, bytes) else source
    return text if text.endswith("\n") else text + "\n"


def _checked_size(size: int | None, available: int) -> int:
    if size is None:
        return available
    if size < 0:
        raise DpuError(f"size must not be negative, got {size}")
    if size > available:
        raise DpuError(
            f"host buffer is too small: {available} bytes for a copy of {size}; pass a "
            "larger buffer or a smaller size"
        )
    return size
