"""Operations whose elements depend on others: the scan, selection, histogram, and the
matrix-vector product, each a generated kernel in PrIM's manner.

- :func:`cumsum`: two launches, as PrIM's SCAN-SSA: each tasklet sums its contiguous
  chunk of its DPU's share; the host turns those totals, in order, into each tasklet's
  starting value (``Inter-DPU``); each tasklet then scans its chunk from there.
- :func:`select` (``a[mask]``): each tasklet counts the selected elements of its chunk,
  learns after a barrier where its first one goes (the counts of the tasklets before it)
  and copies them there, in order; the partial 8-byte words it shares with its
  neighbours are merged by tasklet 0. The result stays on the DPUs, each DPU holding what
  its share kept.
- :func:`histogram`: NumPy's algorithm for equal bins (the bin from the scaled value, then
  NumPy's corrections within an ulp of an edge; where the scaling is exact, a range from 0
  over a power of two per bin, one multiplication), per tasklet in WRAM, summed per DPU
  by tasklet 0 and over the DPUs by the host.
- :func:`matvec` (``W @ x``): every DPU holds rows of ``W`` and a copy of ``x``; each
  tasklet takes a contiguous range of rows, accumulates their dot products in blocks and
  writes its results 64 at a time.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyupmem.array.allocator import allocator_for
from pyupmem.array.codegen import PRELUDE, ArgBlock, block_elements, c_type
from pyupmem.array.launching import heap_address, launch, nr_tasklets, phase, program
from pyupmem.array.pimarray import PimArray, empty
from pyupmem.driver.libdpu import DPU_MRAM_HEAP_POINTER_NAME
from pyupmem.errors import ArgumentTypeError, ArgumentValueError, UnsupportedError

__all__ = ["cumsum", "select", "histogram", "matvec"]


def _chunking(elements: int) -> list[str]:
    """C lines giving this tasklet's contiguous chunk [begin, end) of ``count`` elements,
    in whole blocks of ``elements`` (so chunks start 8-byte aligned)."""
    return [
        "    const uint32_t count = __pim_args.count;",
        f"    const uint32_t blocks = (count + {elements}u - 1) / {elements}u;",
        "    const uint32_t per = (blocks + NR_TASKLETS - 1) / NR_TASKLETS;",
        f"    uint32_t begin = me() * per * {elements}u;",
        f"    uint32_t end = begin + per * {elements}u;",
        "    if (begin > count) begin = count;",
        "    if (end > count) end = count;",
    ]


def _wrap_add(dtype: np.dtype, a: str, b: str) -> str:
    if dtype.kind in "iu":
        w = "uint64_t" if dtype.itemsize == 8 else "uint32_t"
        return f"({c_type(dtype)})(({w}){a} + ({w}){b})"
    return f"({a} + {b})"


# ------------------------------------------------------------------ cumsum


def cumsum(array: PimArray) -> PimArray:
    """``numpy.cumsum(array)``: the inclusive running sum over the whole (flattened)
    array, across all DPUs, as a new 1-D array with the same shares; NumPy's dtype
    (int64 for small signed integers ...). Integer results are exact (wrapping as
    NumPy's); float results add in another order than NumPy's, so the last bits differ."""
    if not isinstance(array, PimArray):
        raise ArgumentTypeError(f"cumsum() takes a PimArray, not {type(array).__name__}")
    array._check_alive()
    out_dtype = np.cumsum(np.ones(1, array.dtype)).dtype
    dpus = array.dpus
    result = empty((array.size,), out_dtype, dpus, counts=array.element_counts())
    if array.size == 0:
        return result
    tasklets = nr_tasklets()
    it, ot = c_type(array.dtype), c_type(out_dtype)
    isz, osz = array.itemsize, out_dtype.itemsize
    elements = block_elements([isz, osz], tasklets)
    block = ArgBlock()
    for name, dtype in (("count", np.uint32), ("mode", np.uint32), ("a_in", np.uint32),
                        ("a_out", np.uint32)):
        block.add(name, dtype)
    step = _wrap_add(out_dtype, "acc", f"({ot})bin[k]")
    source = "\n".join([
        PRELUDE, block.c_declaration(),
        f"__host {ot} __pim_totals[NR_TASKLETS]; /* pass 0: each tasklet's chunk total */",
        f"__host {ot} __pim_bases[NR_TASKLETS];  /* pass 1: the sum before its chunk */",
        "int main(void)", "{",
        "    if (me() == 0)", "        mem_reset();", "    barrier_wait(&__pim_barrier);",
        *_chunking(elements),
        f"    {it} *bin = mem_alloc({elements * isz});",
        f"    {ot} *bout = mem_alloc({elements * osz});",
        "    const int scan = __pim_args.mode == 1;",
        f"    {ot} acc = scan ? __pim_bases[me()] : 0;",
        f"    for (uint32_t start = begin; start < end; start += {elements}u) {{",
        f"        const uint32_t n = end - start < {elements}u ? end - start : {elements}u;",
        f"        mram_read(__PIM_MRAM(__pim_args.a_in + start * {isz}u), bin, __PIM_ROUND8(n *"
        f" {isz}u));",
        "        if (!scan) {",
        "            for (uint32_t k = 0; k < n; k++)",
        f"                acc = {step};",
        "            continue;",
        "        }",
        "        for (uint32_t k = 0; k < n; k++) {",
        f"            acc = {step};",
        "            bout[k] = acc;",
        "        }",
        f"        mram_write(bout, __PIM_MRAM(__pim_args.a_out + start * {osz}u),"
        f" __PIM_ROUND8(n * {osz}u));",
        "    }",
        "    if (!scan)", "        __pim_totals[me()] = acc;",
        "    return 0;", "}", "",
    ])
    built = program(source, tasklets, "pim_cumsum")
    values = {"count": array.element_counts(), "mode": 0, "a_in": array.offset,
              "a_out": result.offset}
    launch(dpus, built, block.pack(len(dpus), values))
    with phase("DPU-CPU"):
        totals = dpus.gather("__pim_totals", out_dtype, tasklets, raw=True)
    with phase("Inter-DPU"):
        flat = totals.reshape(-1)
        bases = np.zeros_like(flat)
        bases[1:] = np.cumsum(flat[:-1], dtype=out_dtype)
        bases = bases.reshape(totals.shape)
    with phase("CPU-DPU"):
        dpus.scatter("__pim_bases", bases, raw=True)
    values["mode"] = 1
    launch(dpus, built, block.pack(len(dpus), values))
    return result


# ------------------------------------------------------------------ select


def select(array: PimArray, mask: PimArray) -> PimArray:
    """``array[mask]`` for a bool ``mask`` of the same shape and shares: the elements where
    ``mask`` is true, in order, as a new 1-D array that stays on the DPUs, each DPU holding
    the selected elements of its own share (so its shares are uneven)."""
    if not isinstance(mask, PimArray) or mask.dtype != np.bool_:
        raise ArgumentTypeError("a[mask] needs mask as a bool PimArray (e.g. a > 0)")
    if mask.shape != array.shape or not mask.same_layout(array):
        raise ArgumentValueError(
            f"a[mask] needs a mask of the same shape and shares as the array, got "
            f"{mask!r} for {array!r}"
        )
    array._check_alive()
    mask._check_alive()
    dpus = array.dpus
    result = empty((array.size,), array.dtype, dpus, counts=array.element_counts())
    if array.size == 0:
        return result
    tasklets = nr_tasklets()
    t, isz = c_type(array.dtype), array.itemsize
    held = 512  # bytes of selected elements a tasklet gathers before writing them
    # buffers: the input, the mask and the output (one block beyond HELD, 8 bytes spare)
    elements = block_elements([isz, 1, isz], tasklets, extra=held + 8)
    scan_step = elements * isz  # pass 1 reads the mask into the input's buffer
    block = ArgBlock()
    for name in ("count", "a_in", "a_mask", "a_out"):
        block.add(name, np.uint32)
    source = "\n".join([
        PRELUDE, block.c_declaration(),
        f"#define HELD {held}u",
        "__host uint32_t __pim_total; /* elements this DPU kept */",
        "static uint32_t kept[NR_TASKLETS];",
        "/* each tasklet's partial first and last 8-byte words of output: written by tasklet 0,",
        " * as neighbouring tasklets share them */",
        "static uint64_t edge_data[NR_TASKLETS][2];",
        "static uint32_t edge_addr[NR_TASKLETS][2], edge_from[NR_TASKLETS][2],"
        " edge_len[NR_TASKLETS][2];",
        "static uint64_t word;",
        "static void keep_edge(unsigned which, uint32_t address, const uint8_t *bytes,"
        " uint32_t from, uint32_t len)",
        "{",
        "    edge_addr[me()][which] = address;",
        "    edge_from[me()][which] = from;",
        "    edge_len[me()][which] = len;",
        "    uint8_t *to = (uint8_t *)&edge_data[me()][which];",
        "    for (uint32_t b = 0; b < 8; b++)",
        "        to[b] = bytes[b];",
        "}",
        "int main(void)", "{",
        "    if (me() == 0)", "        mem_reset();", "    barrier_wait(&__pim_barrier);",
        *_chunking(elements),
        f"    {t} *bin = mem_alloc({elements * isz});",
        f"    uint8_t *bmask = mem_alloc({elements});",
        f"    uint8_t *out = mem_alloc(HELD + {elements * isz}u + 8);",
        "    edge_len[me()][0] = edge_len[me()][1] = 0;",
        "    /* pass 1: count the selected elements of this tasklet's chunk, reading the mask",
        "     * into the larger input buffer (fewer DMAs) */",
        "    uint32_t mine = 0;",
        "    const uint8_t *scan = (const uint8_t *)bin;",
        f"    for (uint32_t start = begin; start < end; start += {scan_step}u) {{",
        f"        const uint32_t n = end - start < {scan_step}u ? end - start : {scan_step}u;",
        "        mram_read(__PIM_MRAM(__pim_args.a_mask + start), bin, __PIM_ROUND8(n));",
        "        /* eight mask bytes (0 or 1) per 64-bit add, eight words a round, folded",
        "         * before a byte lane overflows (31 rounds: 248) */",
        "        const uint64_t *words = (const uint64_t *)scan;",
        "        uint32_t k = 0;",
        "        while (k + 64 <= n) {",
        "            uint64_t lanes = 0;",
        "            const uint32_t rounds = (n - k) / 64 < 31 ? (n - k) / 64 : 31;",
        "            const uint64_t *w = words + k / 8, *stop = w + 8 * rounds;",
        "            for (; w < stop; w += 8)",
        "                lanes += w[0] + w[1] + w[2] + w[3] + w[4] + w[5] + w[6] + w[7];",
        "            k += 64 * rounds;",
        "            const uint64_t bytes = 0x00ff00ff00ff00ffull, halves = 0x0000ffff0000ffffull;",
        "            lanes = (lanes & bytes) + ((lanes >> 8) & bytes);",
        "            lanes = (lanes & halves) + ((lanes >> 16) & halves);",
        "            mine += (uint32_t)lanes + (uint32_t)(lanes >> 32);",
        "        }",
        "        for (; k < n; k++)",
        "            mine += scan[k];",
        "    }",
        "    kept[me()] = mine;",
        "    barrier_wait(&__pim_barrier);",
        "    uint32_t position = 0;",
        "    for (unsigned u = 0; u < me(); u++)",
        "        position += kept[u];",
        "    /* pass 2: copy them to their place; out[] mirrors MRAM from an 8-byte boundary */",
        f"    const uint32_t at = __pim_args.a_out + position * {isz}u;",
        "    const uint32_t skew = at & 7u;",
        "    /* skip: the first word's bytes that belong to the previous tasklet, until the",
        "     * first flush (a variable of its own, so the loop below stays as short as the",
        "     * hand-written one's) */",
        "    uint32_t base = at - skew, fill = skew, skip = skew ? 8u : 0u;",
        f"    for (uint32_t start = begin; start < end && mine; start += {elements}u) {{",
        f"        const uint32_t n = end - start < {elements}u ? end - start : {elements}u;",
        "        mram_read(__PIM_MRAM(__pim_args.a_mask + start), bmask, __PIM_ROUND8(n));",
        f"        mram_read(__PIM_MRAM(__pim_args.a_in + start * {isz}u), bin,"
        f" __PIM_ROUND8(n * {isz}u));",
        "        /* four elements a round, no check for a full buffer within a block */",
        "        uint32_t k = 0;",
        "        for (; k + 4 <= n; k += 4) {",
        *[line for j in range(4) for line in (
            f"            if (bmask[k + {j}]) {{",
            f"                *({t} *)(out + fill) = bin[k + {j}];",
            f"                fill += {isz}u;",
            "            }")],
        "        }",
        "        for (; k < n; k++) {",
        "            if (bmask[k]) {",
        f"                *({t} *)(out + fill) = bin[k];",
        f"                fill += {isz}u;",
        "            }",
        "        }",
        "        if (fill >= HELD) { /* write whole words; the partial one moves to the front */",
        "            const uint32_t whole = fill & ~7u;",
        "            if (skip)",
        "                keep_edge(0, base, out, skew, 8 - skew);",
        "            mram_write(out + skip, __PIM_MRAM(base + skip), whole - skip);",
        "            base += whole;",
        "            *(uint64_t *)out = *(uint64_t *)(out + whole);",
        "            fill -= whole;",
        "            skip = 0;",
        "        }",
        "    }",
        "    const uint32_t whole = fill & ~7u;",
        "    /* the first word, while unwritten, holds the previous tasklets' bytes first */",
        "    const uint32_t from = skip;",
        "    if (from && fill > skew)",
        "        keep_edge(0, base, out, skew, (fill < 8 ? fill : 8) - skew);",
        "    if (whole > from)",
        "        mram_write(out + from, __PIM_MRAM(base + from), whole - from);",
        "    if ((fill & 7u) && whole >= from)",
        "        keep_edge(1, base + whole, out + whole, 0, fill & 7u);",
        "    barrier_wait(&__pim_barrier);",
        "    if (me() == 0) {",
        "        uint32_t total = 0, current = 0;",
        "        uint8_t *bytes = (uint8_t *)&word;",
        "        for (unsigned u = 0; u < NR_TASKLETS; u++) {",
        "            total += kept[u];",
        "            for (unsigned which = 0; which < 2; which++) {",
        "                if (!edge_len[u][which])",
        "                    continue;",
        "                if (edge_addr[u][which] != current) {",
        "                    if (current)",
        "                        mram_write(&word, __PIM_MRAM(current), 8);",
        "                    current = edge_addr[u][which];",
        "                    word = 0;",
        "                }",
        "                const uint8_t *src = (const uint8_t *)&edge_data[u][which];",
        "                for (uint32_t b = edge_from[u][which];"
        " b < edge_from[u][which] + edge_len[u][which]; b++)",
        "                    bytes[b] = src[b];",
        "            }",
        "        }",
        "        if (current)",
        "            mram_write(&word, __PIM_MRAM(current), 8);",
        "        __pim_total = total;",
        "    }",
        "    return 0;", "}", "",
    ])
    built = program(source, tasklets, "pim_select")
    values = {"count": array.element_counts(), "a_in": array.offset,
              "a_mask": mask.offset, "a_out": result.offset}
    launch(dpus, built, block.pack(len(dpus), values))
    with phase("DPU-CPU"):
        totals = dpus.gather("__pim_total", np.uint32, (), raw=True).reshape(-1)
    result._keep_only(totals.astype(np.int64))
    return result


# ------------------------------------------------------------------ histogram


def _numpy_histograms() -> Any:
    """NumPy's histogram module, whose helpers give the edges exactly as NumPy's."""
    module = getattr(np.lib, "_histograms_impl", None)  # NumPy 2
    if module is None:  # pragma: no cover - NumPy 1.26
        import numpy.lib.histograms as module
    return module


def histogram(array: PimArray, bins: int = 10, range: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.histogram(array, bins, range=range)`` for ``bins`` equal bins: the counts
    (int64) and the edges, as NumPy gives them. Elements outside the range (and NaN) are
    not counted; the last bin includes its right edge.

    Raises:
        UnsupportedError: ``bins`` given as edges (only a number of bins is generated).
        ArgumentValueError: too many bins for the tasklets' WRAM (fewer tasklets help).
    """
    if not isinstance(array, PimArray):
        raise ArgumentTypeError(f"histogram() takes a PimArray, not {type(array).__name__}")
    if isinstance(bins, bool) or not isinstance(bins, int | np.integer):
        raise UnsupportedError(
            "histogram() on the DPUs takes bins as a number of equal bins; for explicit "
            "edges use numpy.histogram(a.get(), bins)"
        )
    bins = int(bins)
    if bins < 1:
        raise ValueError("`bins` must be positive, when an integer")
    array._check_alive()
    numpy_histograms = _numpy_histograms()
    data_type = np.dtype(np.uint8) if array.dtype == np.bool_ else array.dtype
    if range is None and array.size:
        # NumPy's edges from the data's min and max (found on the DPUs): a stand-in of two
        stand_in = np.array([array.min(), array.max()]).astype(data_type)
    else:
        stand_in = np.zeros(0, data_type)
    edges, uniform = numpy_histograms._get_bin_edges(stand_in, bins, range, None)
    first, last, _ = uniform
    bin_type = edges.dtype
    counts = np.zeros(bins, np.int64)
    if array.size == 0:
        return counts, edges
    tasklets = nr_tasklets()
    hist_bytes = bins * 4 * (tasklets + 1) + (bins + 1) * 8
    if hist_bytes > 40 * 1024:
        raise ArgumentValueError(
            f"{bins} bins take {hist_bytes} bytes of WRAM with {tasklets} tasklets (one "
            "histogram each); use fewer bins or fewer tasklets "
            "(pyupmem.array.settings(nr_tasklets=...))"
        )
    # NumPy's comparison of the data with the range's ends, in NumPy's loop type; a Python
    # int beyond an integer type's range compares the same way with every element
    low, high = first, last
    if data_type.kind in "iu":
        info = np.iinfo(data_type)
        if (isinstance(low, int) and low > info.max) or (isinstance(high, int) and high < info.min):
            return counts, edges  # nothing is in the range
        if isinstance(low, int) and low < info.min:
            low = data_type.type(info.min)
        if isinstance(high, int) and high > info.max:
            high = data_type.type(info.max)
    compare = np.greater_equal.resolve_dtypes(
        (data_type, type(low) if type(low) in (int, float) else np.asarray(low).dtype, None)
    )[0]
    with np.errstate(all="ignore"):
        denom = np.asarray(numpy_histograms._unsigned_subtract(last, first))
    bt, ct, t = c_type(bin_type), c_type(compare), c_type(array.dtype)
    # Exact binning: from 0, with bins / (last - first) a power of two and every edge
    # k * (last - first) / bins exactly, the scaled value is exact, so its floor is the bin
    # and NumPy's corrections never change it: one multiplication per element.
    scale = np.float64(bins) / np.float64(denom)
    exact = (
        float(first) == 0.0
        and np.isfinite(scale) and scale > 0 and np.log2(scale) == np.round(np.log2(scale))
        and np.array_equal(edges.astype(np.float64),
                           np.arange(bins + 1, dtype=np.float64) * (np.float64(denom) / bins))
    )
    if exact:
        binning = [
            f"            int32_t index = (int32_t)(v * ({bt}){float(scale)!r});",
            "            if (index == (int32_t)BINS)",
            "                index--; /* the last bin includes its right edge */",
        ]
    else:
        binning = [
            f"            int64_t index = (int64_t)((({bt})(v - first) / denom) * nbins);",
            "            if (index == (int64_t)BINS)",
            "                index--;",
            "            if (v < __pim_edges[index])",
            "                index--; /* NumPy's corrections within an ulp of an edge */",
            "            else if (v >= __pim_edges[index + 1] && index != (int64_t)BINS - 1)",
            "                index++;",
        ]
    isz = array.itemsize
    elements = block_elements([isz], tasklets, extra=hist_bytes // tasklets)
    block = ArgBlock()
    block.add("count", np.uint32)
    block.add("a_in", np.uint32)
    for name, value in (("low", compare), ("high", compare), ("first", bin_type),
                        ("denom", bin_type), ("bins", bin_type)):
        block.add(name, value)
    source = "\n".join([
        PRELUDE, block.c_declaration(),
        f"#define BINS {bins}u",
        f"__host {bt} __pim_edges[BINS + 1];",
        "__host uint32_t __pim_counts[BINS];",
        "static uint32_t __pim_hist[NR_TASKLETS][BINS];",
        "int main(void)", "{",
        "    if (me() == 0)", "        mem_reset();",
        "    for (uint32_t b = 0; b < BINS; b++)", "        __pim_hist[me()][b] = 0;",
        "    barrier_wait(&__pim_barrier);",
        "    const uint32_t count = __pim_args.count;",
        f"    const {ct} low = __pim_args.low, high = __pim_args.high;",
        f"    const {bt} first = __pim_args.first, denom = __pim_args.denom, nbins ="
        f" __pim_args.bins;",
        "    (void)first, (void)denom, (void)nbins;",
        "    uint32_t *hist = __pim_hist[me()];",
        f"    {t} *buf = mem_alloc({elements * isz});",
        f"    for (uint32_t start = me() * {elements}u; start < count; start += NR_TASKLETS *"
        f" {elements}u) {{",
        f"        const uint32_t n = count - start < {elements}u ? count - start : {elements}u;",
        f"        mram_read(__PIM_MRAM(__pim_args.a_in + start * {isz}u), buf, __PIM_ROUND8(n *"
        f" {isz}u));",
        "        for (uint32_t k = 0; k < n; k++) {",
        f"            const {ct} c = ({ct})buf[k];",
        "            if (!(c >= low && c <= high))",
        "                continue; /* outside the range, or NaN */",
        f"            const {bt} v = ({bt})buf[k];",
        *binning,
        "            hist[index]++;",
        "        }",
        "    }",
        "    barrier_wait(&__pim_barrier);",
        "    if (me() == 0) {",
        "        for (uint32_t b = 0; b < BINS; b++) {",
        "            uint32_t sum = 0;",
        "            for (unsigned u = 0; u < NR_TASKLETS; u++)",
        "                sum += __pim_hist[u][b];",
        "            __pim_counts[b] = sum;",
        "        }",
        "    }",
        "    return 0;", "}", "",
    ])
    dpus = array.dpus
    built = program(source, tasklets, "pim_histogram")
    values = {"count": array.element_counts(), "a_in": array.offset,
              "low": np.asarray(low).astype(compare), "high": np.asarray(high).astype(compare),
              "first": np.asarray(first).astype(bin_type), "denom": denom.astype(bin_type),
              "bins": bin_type.type(bins)}
    from pyupmem.array.launching import ensure_loaded

    ensure_loaded(dpus, built)
    with phase("CPU-DPU"):
        dpus.broadcast("__pim_edges", edges, raw=True)
    launch(dpus, built, block.pack(len(dpus), values))
    with phase("DPU-CPU"):
        per_dpu = dpus.gather("__pim_counts", np.uint32, bins, raw=True)
    with phase("Inter-DPU"):
        counts = per_dpu.sum(axis=0, dtype=np.int64)
    return counts, edges


# ------------------------------------------------------------------ matvec

_MATVEC = {  # W's dtype: (the sum's dtype, C's multiply-accumulate)
    np.dtype(np.int8): np.dtype(np.int32),
    np.dtype(np.int32): np.dtype(np.int32),
    np.dtype(np.float32): np.dtype(np.float32),
}


def matvec(matrix: PimArray, vector: Any) -> PimArray:
    """``W @ x`` for a 2-D PimArray ``W`` and a vector ``x`` (a NumPy array or PimArray of
    ``W``'s dtype and ``W.shape[1]`` elements): a new 1-D array with ``W``'s rows' shares.
    int8 sums in int32 (the result is int32, as ``W.astype(int32) @ x.astype(int32)``);
    int32 wraps as NumPy's; float32 sums in another order than NumPy's.

    Raises:
        UnsupportedError: another dtype pair.
        ArgumentValueError: shapes that do not fit.
    """
    if not isinstance(matrix, PimArray) or matrix.ndim != 2:
        raise ArgumentValueError("W @ x needs W as a 2-D PimArray")
    matrix._check_alive()
    x = vector.get() if isinstance(vector, PimArray) else np.asarray(vector)
    if x.ndim != 1 or x.shape[0] != matrix.shape[1]:
        raise ArgumentValueError(
            f"W @ x needs x of shape ({matrix.shape[1]},) for W of shape {matrix.shape}, got "
            f"{x.shape}"
        )
    if matrix.dtype not in _MATVEC or x.dtype != matrix.dtype:
        raise UnsupportedError(
            f"W @ x is generated for int8, int32 and float32 (W and x alike), not "
            f"{matrix.dtype} @ {x.dtype}; convert with astype first"
        )
    out_dtype = _MATVEC[matrix.dtype]
    dpus = matrix.dpus
    rows, cols = matrix.shape
    result = empty((rows,), out_dtype, dpus, counts=matrix.counts)
    if rows == 0:
        return result
    if cols == 0:
        from pyupmem.array.elementwise import run

        return run([], [("out", out_dtype)], "out = 0;", out=[result])[0]
    tasklets = nr_tasklets()
    t, st = c_type(matrix.dtype), c_type(out_dtype)
    isz = matrix.itemsize
    elements = min(block_elements([isz, isz], tasklets, extra=16 + 64 * 4), 1024 // isz)
    group = 8 // out_dtype.itemsize  # a tasklet's rows start 8-byte aligned in y
    if out_dtype.kind == "f":
        mac = "acc += (float)w[k] * (float)v[k];"
    else:
        mac = "acc = (int32_t)((uint32_t)acc + (uint32_t)((int32_t)w[k] * (int32_t)v[k]));"
    block = ArgBlock()
    for name in ("rows", "cols", "a_w", "a_x", "a_out"):
        block.add(name, np.uint32)
    results = 64  # results held in WRAM per write
    source = "\n".join([
        PRELUDE, block.c_declaration(),
        "int main(void)", "{",
        "    if (me() == 0)", "        mem_reset();", "    barrier_wait(&__pim_barrier);",
        "    const uint32_t rows = __pim_args.rows, cols = __pim_args.cols;",
        f"    uint8_t *wraw = mem_alloc({elements * isz + 8});",
        f"    {t} *v = mem_alloc({elements * isz});",
        f"    {st} *held = mem_alloc({results * out_dtype.itemsize});",
        "    /* a contiguous range of rows per tasklet, starting 8-byte aligned in y */",
        f"    const uint32_t per = ((rows + NR_TASKLETS - 1) / NR_TASKLETS + {group - 1}u)"
        f" / {group}u * {group}u;",
        "    uint32_t begin = me() * per, end = begin + per;",
        "    if (begin > rows) begin = rows;",
        "    if (end > rows) end = rows;",
        "    uint32_t count = 0, first = begin;",
        "    for (uint32_t row = begin; row < end; row++) {",
        f"        {st} acc = 0;",
        f"        const uint32_t at = __pim_args.a_w + row * cols * {isz}u;",
        f"        for (uint32_t col = 0; col < cols; col += {elements}u) {{",
        f"            const uint32_t n = cols - col < {elements}u ? cols - col : {elements}u;",
        f"            const uint32_t from = at + col * {isz}u, skew = from & 7u;",
        f"            mram_read(__PIM_MRAM(from - skew), wraw, __PIM_ROUND8(skew + n * {isz}u));",
        f"            mram_read(__PIM_MRAM(__pim_args.a_x + col * {isz}u), v, __PIM_ROUND8(n *"
        f" {isz}u));",
        f"            const {t} *w = (const {t} *)(wraw + skew);",
        "            for (uint32_t k = 0; k < n; k++)",
        f"                {mac}",
        "        }",
        "        held[count++] = acc;",
        f"        if (count == {results}u) {{",
        f"            mram_write(held, __PIM_MRAM(__pim_args.a_out + first *"
        f" {out_dtype.itemsize}u),"
        f" {results * out_dtype.itemsize}u);",
        "            first += count;",
        "            count = 0;",
        "        }",
        "    }",
        "    if (count)",
        f"        mram_write(held, __PIM_MRAM(__pim_args.a_out + first * {out_dtype.itemsize}u),"
        f" __PIM_ROUND8(count * {out_dtype.itemsize}u));",
        "    return 0;", "}", "",
    ])
    allocator = allocator_for(dpus)
    x_bytes = -(-x.nbytes // 8) * 8
    x_at = allocator.allocate(x_bytes, f"the vector of W @ x ({cols} {x.dtype})")
    try:
        built = program(source, tasklets, "pim_matvec")
        ensure = np.zeros(x_bytes, np.uint8)
        ensure[: x.nbytes] = np.ascontiguousarray(x).view(np.uint8)
        from pyupmem.array.launching import ensure_loaded

        ensure_loaded(dpus, built)
        with phase("CPU-DPU"):
            dpus.broadcast(DPU_MRAM_HEAP_POINTER_NAME, ensure, x_at - heap_address(dpus))
        values = {"rows": matrix.counts, "cols": cols, "a_w": matrix.offset, "a_x": x_at,
                  "a_out": result.offset}
        launch(dpus, built, block.pack(len(dpus), values))
    finally:
        allocator.free(x_at)
    return result
