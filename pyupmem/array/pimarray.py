"""PimArray: a 1-D or 2-D array held in the MRAM of a set's DPUs, one share per DPU.

An array of ``n`` elements (or rows) on ``D`` DPUs is split into contiguous shares of
``ceil(n / D)`` elements (rows), the last DPUs taking what is left (maybe nothing), as
PrIM's kernels split their inputs; an operation's result may also keep the shares its
input had (``a[mask]``, ``W @ x``). Each share sits at the same MRAM address on every
DPU (:attr:`PimArray.offset`), padded to 8 bytes, in the heap space of the set's
:mod:`~pyupmem.array.allocator`.

NumPy's operators on a PimArray run as generated DPU kernels (:mod:`pyupmem.array.elementwise`,
:mod:`pyupmem.array.reductions`); :func:`asarray` sends data, :meth:`PimArray.get` and
:func:`asnumpy` bring it back.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from pyupmem.array.allocator import MRAM_BASE, MRAM_SIZE, allocator_for, find_allocator
from pyupmem.array.codegen import c_type
from pyupmem.array.launching import heap_address, phase
from pyupmem.dpus.dpuset import DpuSet
from pyupmem.driver.libdpu import DPU_MRAM_HEAP_POINTER_NAME
from pyupmem.errors import ArgumentTypeError, ArgumentValueError

__all__ = ["PimArray", "asarray", "asnumpy", "empty", "even_counts"]

HEAP = DPU_MRAM_HEAP_POINTER_NAME


def even_counts(length: int, nr_dpus: int) -> np.ndarray:
    """Elements (or rows) per DPU of a fresh array: ``ceil(length / nr_dpus)`` each, the
    last DPUs taking what is left."""
    per = -(-length // nr_dpus) if length else 0
    firsts = np.arange(nr_dpus, dtype=np.int64) * per
    return np.clip(length - firsts, 0, per).astype(np.int64)


def _check_set(dpus: Any) -> DpuSet:
    if not isinstance(dpus, DpuSet):
        raise ArgumentTypeError(
            f"arrays live on a whole pyupmem.DpuSet, got {type(dpus).__name__}; "
            "allocate one with pyupmem.DpuSet(nr_dpus)"
        )
    return dpus


class PimArray:
    """A NumPy-typed 1-D or 2-D array held in the MRAM of a :class:`~pyupmem.DpuSet`.

    Make one with :func:`asarray` (``pyupmem.array.asarray(ndarray, dpus)``) or as the
    result of an operation; bring it back with :meth:`get`. NumPy's arithmetic, bitwise
    and comparison operators with scalars and other arrays of the same set and shares
    run on the DPUs, with NumPy's result types and results (:mod:`pyupmem.array.elementwise`),
    as do :meth:`astype`, :meth:`sum`, :meth:`min`, :meth:`max`, :meth:`mean`, ``a[mask]``
    and ``W @ x``.

    Its memory is freed by :meth:`free`, or when the array is garbage.

    Attributes:
        dpus: the set whose DPUs hold it.
        dtype: its element type.
        shape: ``(n,)`` or ``(rows, columns)``.
    """

    # NumPy defers to our operators (np.int32(3) + a runs on the DPUs) and refuses to mix
    # a host ndarray with a PimArray (a TypeError: send it with asarray first).
    __array_ufunc__ = None

    def __init__(self, dpus: DpuSet, shape: tuple[int, ...], dtype: Any, counts: np.ndarray):
        """Reserve MRAM for an array with ``counts[i]`` elements (rows) on DPU ``i``; its
        contents are undefined. Use :func:`asarray` or :func:`empty` rather than this."""
        self.dpus = _check_set(dpus)
        self.dtype = np.dtype(dtype)
        c_type(self.dtype)  # refuses dtypes a DPU cannot hold
        if len(shape) not in (1, 2) or any(int(s) < 0 for s in shape):
            raise ArgumentValueError(
                f"a PimArray is 1-D or 2-D, got shape {shape}; reshape the data first"
            )
        self.shape = tuple(int(s) for s in shape)
        counts = np.asarray(counts, dtype=np.int64)
        if counts.shape != (len(dpus),) or counts.sum() != self.shape[0] or (counts < 0).any():
            raise ArgumentValueError(
                f"counts must give the {self.shape[0]} rows over the {len(dpus)} DPUs, got "
                f"{counts.tolist()}"
            )
        self._counts = counts
        self._firsts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
        self.share_bytes = int(-(-int(counts.max(initial=0)) * self.row_bytes // 8) * 8)
        """Bytes of MRAM each DPU holds for its share (the largest share, padded to 8)."""
        allocator = find_allocator(dpus)
        if allocator is None:
            base = heap_address(dpus)  # loads the no-op program into an empty set
            allocator = allocator_for(dpus, base, MRAM_BASE + MRAM_SIZE - base)
        self.offset = allocator.allocate(self.share_bytes, self._describe())
        """The MRAM address of this array's share, the same on every DPU, as ``mram_read``
        takes it (a hand-written kernel reads its share from there)."""
        self._finalizer = weakref.finalize(self, allocator.free, self.offset)

    def _describe(self) -> str:
        return f"PimArray {self.dtype} {self.shape}"

    # ------------------------------------------------------------------ properties

    @property
    def counts(self) -> np.ndarray:
        """Elements (1-D) or rows (2-D) on each DPU, in the set's order (a copy)."""
        return self._counts.copy()

    @property
    def firsts(self) -> np.ndarray:
        """The index of each DPU's first element (row) in the whole array (a copy)."""
        return self._firsts.copy()

    @property
    def ndim(self) -> int:
        """1 or 2."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """The number of elements."""
        return int(np.prod(self.shape))

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of data (without the padding of shares)."""
        return self.size * self.itemsize

    @property
    def row_bytes(self) -> int:
        """Bytes per element (1-D) or per row (2-D)."""
        return self.itemsize * (self.shape[1] if self.ndim == 2 else 1)

    @property
    def freed(self) -> bool:
        """True once :meth:`free` gave its memory back."""
        return not self._finalizer.alive

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        state = ", freed" if self.freed else ""
        return (
            f"PimArray(shape={self.shape}, dtype={self.dtype}, {len(self.dpus)} DPUs, "
            f"offset=0x{self.offset:08x}{state})"
        )

    def same_layout(self, other: PimArray) -> bool:
        """Whether ``other`` is on the same set with the same elements on each DPU."""
        return other.dpus is self.dpus and np.array_equal(
            other.element_counts(), self.element_counts()
        )

    def _keep_only(self, counts: np.ndarray) -> None:
        """Become the first ``counts[i]`` elements of each share (1-D; the MRAM reserved
        stays as it is): what an operation that keeps part of each share, such as
        ``a[mask]``, leaves."""
        counts = np.asarray(counts, dtype=np.int64)
        self.shape = (int(counts.sum()),)
        self._counts = counts
        self._firsts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
        self.share_bytes = int(-(-int(counts.max(initial=0)) * self.row_bytes // 8) * 8)

    def element_counts(self) -> np.ndarray:
        """Elements (not rows) on each DPU."""
        return self._counts * (self.shape[1] if self.ndim == 2 else 1)

    def element_firsts(self) -> np.ndarray:
        """The index of each DPU's first element in the flattened array."""
        return self._firsts * (self.shape[1] if self.ndim == 2 else 1)

    def _check_alive(self) -> None:
        if self.freed:
            raise ArgumentValueError(f"{self!r} was freed; it holds no data any more")

    # ------------------------------------------------------------------ transfers

    def _relative(self) -> int:
        """This array's offset from the loaded program's heap symbol."""
        relative = self.offset - heap_address(self.dpus)
        if relative < 0:
            raise ArgumentValueError(
                f"the program loaded into the set keeps __mram variables over {self!r}: "
                "allocate MRAM for hand-written kernels as PimArrays instead"
            )
        return relative

    def set(self, data: Any) -> None:
        """Send ``data`` (of this array's shape; converted to its dtype) into this array."""
        self._check_alive()
        array = np.ascontiguousarray(np.asarray(data).astype(self.dtype, copy=False))
        if array.shape != self.shape:
            raise ArgumentValueError(f"set() needs shape {self.shape}, got {array.shape}")
        if self.share_bytes == 0:
            return
        rows = len(self.dpus)
        flat = array.view(np.uint8).reshape(-1)
        if self.share_bytes * rows == flat.size and np.all(self._counts == self._counts[0]):
            shares = flat.reshape(rows, self.share_bytes)  # no copy: the shares tile the data
        else:
            shares = np.zeros((rows, self.share_bytes), dtype=np.uint8)
            starts = self._firsts * self.row_bytes
            for index, (start, count) in enumerate(zip(starts, self._counts, strict=True)):
                length = int(count) * self.row_bytes
                shares[index, :length] = flat[start : start + length]
        relative = self._relative()
        with phase("CPU-DPU"):
            self.dpus.scatter(HEAP, shares, offset=relative)

    def get(self) -> np.ndarray:
        """The array's data, brought back as a NumPy array (``DPU-CPU``)."""
        self._check_alive()
        result = np.empty(self.shape, dtype=self.dtype)
        if self.share_bytes == 0 or self.size == 0:
            return result
        relative = self._relative()
        flat = result.view(np.uint8).reshape(-1)
        if self.share_bytes * len(self.dpus) == flat.size:
            # the shares tile the result: gather straight into it, no copy after
            with phase("DPU-CPU"):
                self.dpus.gather(HEAP, offset=relative, raw=True,
                                 out=flat.reshape(len(self.dpus), self.share_bytes))
        else:
            with phase("DPU-CPU"):
                shares = self.dpus.gather(HEAP, np.uint8, self.share_bytes, offset=relative)
            starts = self._firsts * self.row_bytes
            for index, (start, count) in enumerate(zip(starts, self._counts, strict=True)):
                length = int(count) * self.row_bytes
                flat[start : start + length] = shares[index, :length]
        return result

    def free(self) -> None:
        """Give this array's MRAM back now (it is also given back when the array is
        garbage); the array is then unusable. Safe to call twice."""
        self._finalizer()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        data = self.get()
        return data if dtype is None else data.astype(dtype)

    # ------------------------------------------------------------------ operations

    def astype(self, dtype: Any) -> PimArray:
        """A new array of ``dtype``, converted on the DPUs as NumPy's ``astype`` converts."""
        from pyupmem.array import elementwise

        return elementwise.astype(self, dtype)

    def sum(self) -> np.generic:
        """The sum of every element, NumPy's dtype (int64 for small signed ints, ...)."""
        from pyupmem.array import reductions

        return reductions.reduce(self, "sum")

    def min(self) -> np.generic:
        """The smallest element (NaN if any is NaN); an empty array raises ValueError."""
        from pyupmem.array import reductions

        return reductions.reduce(self, "min")

    def max(self) -> np.generic:
        """The largest element (NaN if any is NaN); an empty array raises ValueError."""
        from pyupmem.array import reductions

        return reductions.reduce(self, "max")

    def mean(self) -> np.generic:
        """The mean of the elements, with NumPy's result dtype (float64 for integers)."""
        from pyupmem.array import reductions

        return reductions.reduce(self, "mean")

    def __getitem__(self, key: Any) -> PimArray:
        from pyupmem.array import collective

        if isinstance(key, PimArray):
            return collective.select(self, key)
        raise ArgumentTypeError(
            "a PimArray is indexed by a boolean PimArray mask (a[mask]); for elements, "
            "bring it back with get() first"
        )

    def __matmul__(self, other: Any) -> PimArray:
        from pyupmem.array import collective

        return collective.matvec(self, other)


def _install_operators() -> None:
    """NumPy's operators on PimArray, each a generated kernel (pyupmem.array.elementwise)."""
    binary = {
        "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
        "floordiv": np.floor_divide, "mod": np.remainder, "and": np.bitwise_and,
        "or": np.bitwise_or, "xor": np.bitwise_xor, "lshift": np.left_shift,
        "rshift": np.right_shift, "pow": np.power,
    }
    compare = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
               "eq": np.equal, "ne": np.not_equal}
    unary = {"neg": np.negative, "pos": np.positive, "invert": np.invert, "abs": np.absolute}

    def make(ufunc: np.ufunc, reflected: bool) -> Any:
        def operator(self: PimArray, other: Any) -> Any:
            from pyupmem.array import elementwise

            if not elementwise.accepts(other):
                return NotImplemented
            left, right = (other, self) if reflected else (self, other)
            return elementwise.apply(ufunc, left, right)

        return operator

    def make_unary(ufunc: np.ufunc) -> Any:
        def operator(self: PimArray) -> PimArray:
            from pyupmem.array import elementwise

            return elementwise.apply(ufunc, self)

        return operator

    for name, ufunc in binary.items():
        setattr(PimArray, f"__{name}__", make(ufunc, False))
        setattr(PimArray, f"__r{name}__", make(ufunc, True))
    for name, ufunc in compare.items():
        setattr(PimArray, f"__{name}__", make(ufunc, False))
    for name, ufunc in unary.items():
        setattr(PimArray, f"__{name}__", make_unary(ufunc))
    PimArray.__hash__ = None  # type: ignore[assignment]  # == is elementwise


_install_operators()


def empty(shape: int | tuple[int, ...], dtype: Any, dpus: DpuSet, counts: Any = None) -> PimArray:
    """A new array whose contents are undefined: shares split as :func:`even_counts`
    gives, or ``counts`` elements (rows) per DPU."""
    shape = (shape,) if isinstance(shape, int | np.integer) else tuple(shape)
    if counts is None:
        counts = even_counts(int(shape[0]) if shape else 0, len(_check_set(dpus)))
    return PimArray(dpus, shape, dtype, counts)


def asarray(data: Any, dpus: DpuSet, dtype: Any = None) -> PimArray:
    """Send ``data`` (anything ``numpy.asarray`` takes; 1-D or 2-D) to the DPUs of ``dpus``
    as a new :class:`PimArray`; a PimArray of that set comes back as it is (converted
    with :meth:`PimArray.astype` if ``dtype`` differs).

    Raises:
        ArgumentValueError: not 1-D or 2-D.
        ArgumentTypeError: a dtype a DPU cannot hold, or ``dpus`` is not a DpuSet.
        MramAllocationError: the set's MRAM is full.
    """
    _check_set(dpus)
    if isinstance(data, PimArray):
        if data.dpus is dpus:
            return data if dtype is None or np.dtype(dtype) == data.dtype else data.astype(dtype)
        data = data.get()
    array = np.asarray(data, dtype=dtype)
    if array.ndim not in (1, 2):
        raise ArgumentValueError(
            f"a PimArray is 1-D or 2-D, got {array.ndim}-D data of shape {array.shape}; "
            "reshape it first (a scalar: np.atleast_1d)"
        )
    result = empty(array.shape, array.dtype, dpus)
    result.set(array)
    return result


def asnumpy(array: Any) -> np.ndarray:
    """``array`` as a NumPy array: a PimArray's data brought back, anything else through
    ``numpy.asarray`` (CuPy's ``asnumpy``)."""
    return array.get() if isinstance(array, PimArray) else np.asarray(array)
