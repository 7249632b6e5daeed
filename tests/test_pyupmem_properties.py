"""Property-based tests of transfers: random valid transfers round-trip exactly and touch
nothing else; random invalid ones raise before any call and leave the set as it was."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pyupmem as pim

KERNEL = r"""
#include <defs.h>
#include <stdint.h>
__host uint8_t wram_buf[1024];
__mram_noinit uint8_t mram_buf[1 << 15];
int main(void) { return 0; }
"""
SIZES = {"wram_buf": 1024, "mram_buf": 1 << 15}
GRANULE = {"wram_buf": 4, "mram_buf": 8}
DTYPES = [np.uint8, np.int16, np.uint32, np.int64, np.float32, np.float64, np.complex64]
COUNTS = [1, 3, 64, 67]

SETTINGS = settings(
    max_examples=int(os.environ.get("PYUPMEM_HYPOTHESIS_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def sets():
    program = pim.build_program(KERNEL, nr_tasklets=1, name="properties_kernel")
    opened: dict[int, pim.DpuSet] = {}
    for count in COUNTS:
        opened[count] = pim.DpuSet(count)
        opened[count].load(program)
    yield opened
    for dpus in opened.values():
        dpus.free()


def snapshot(dpus: pim.DpuSet, symbol: str) -> np.ndarray:
    return dpus.gather(symbol, np.uint8, SIZES[symbol])


@st.composite
def valid_transfer(draw):
    symbol = draw(st.sampled_from(sorted(SIZES)))
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    granule = GRANULE[symbol]
    size = SIZES[symbol]
    # A size in bytes that is a multiple of both the granule and the item size.
    unit = int(np.lcm(granule, dtype.itemsize))
    nbytes = unit * draw(st.integers(1, min(size // unit, 48)))
    offset = granule * draw(st.integers(0, (size - nbytes) // granule))
    count = draw(st.sampled_from(COUNTS))
    kind = draw(st.sampled_from(["broadcast", "scatter_array", "scatter_list", "single"]))
    seed = draw(st.integers(0, 2**32 - 1))
    # The shape of each DPU's part: flat, or 2-D when it splits evenly.
    items = nbytes // dtype.itemsize
    shape = (items,) if items % 2 else draw(st.sampled_from([(items,), (2, items // 2)]))
    return symbol, dtype, shape, offset, count, kind, seed


def random_array(rng: np.random.Generator, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    raw = rng.integers(0, 256, int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


@SETTINGS
@given(valid_transfer())
def test_valid_transfers_round_trip(sets, transfer) -> None:
    symbol, dtype, shape, offset, count, kind, seed = transfer
    dpus = sets[count]
    rng = np.random.default_rng(seed)
    before = snapshot(dpus, symbol)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    expected = before.copy()
    if kind == "broadcast":
        data = random_array(rng, dtype, shape)
        dpus.broadcast(symbol, data, offset)
        expected[:, offset : offset + nbytes] = data.view(np.uint8).reshape(-1)
        got = dpus.gather(symbol, dtype, shape, offset)
        assert np.array_equal(got.view(np.uint8), np.broadcast_to(data, got.shape).view(np.uint8))
    elif kind in ("scatter_array", "scatter_list"):
        data = random_array(rng, dtype, (count, *shape))
        dpus.scatter(symbol, data if kind == "scatter_array" else list(data), offset)
        expected[:, offset : offset + nbytes] = data.view(np.uint8).reshape(count, -1)
        got = dpus.gather(symbol, dtype, shape, offset)
        assert got.shape == (count, *shape) and got.dtype == dtype
        assert np.array_equal(got.view(np.uint8), data.view(np.uint8))
    else:
        index = int(rng.integers(0, count))
        data = random_array(rng, dtype, shape)
        dpus[index].write(symbol, data, offset)
        expected[index, offset : offset + nbytes] = data.view(np.uint8).reshape(-1)
        got = dpus[index].read(symbol, dtype, shape, offset)
        assert np.array_equal(got.view(np.uint8), data.view(np.uint8))
    assert np.array_equal(snapshot(dpus, symbol), expected)


@st.composite
def invalid_transfer(draw):
    symbol = draw(st.sampled_from(sorted(SIZES)))
    granule = GRANULE[symbol]
    size = SIZES[symbol]
    rule = draw(st.sampled_from(["offset", "length", "bounds", "shares"]))
    offset = granule * draw(st.integers(0, 8))
    nbytes = granule * draw(st.integers(1, 8))
    if rule == "offset":
        offset += draw(st.integers(1, granule - 1))
        code = 10 if symbol == "mram_buf" else 8
    elif rule == "length":
        nbytes += draw(st.integers(1, granule - 1))
        code = 10 if symbol == "mram_buf" else 8
    elif rule == "bounds":
        offset = granule * draw(st.integers(0, size // granule))
        nbytes = size - offset + granule * draw(st.integers(1, 4))
        code = 11
    else:
        code = 36
    count = draw(st.sampled_from(COUNTS))
    kind = draw(st.sampled_from(["broadcast", "scatter", "gather", "write", "read"]))
    if rule == "shares":
        kind = draw(st.sampled_from(["scatter_count", "scatter_uneven", "gather_out"]))
        if kind == "scatter_uneven":
            count = draw(st.sampled_from([c for c in COUNTS if c > 1]))
    return symbol, offset, nbytes, count, kind, code


@SETTINGS
@given(invalid_transfer())
def test_invalid_transfers_raise_and_leave_the_set_usable(sets, transfer) -> None:
    symbol, offset, nbytes, count, kind, code = transfer
    dpus = sets[count]
    before = snapshot(dpus, symbol)
    data = np.ones(nbytes, np.uint8)
    actions = {
        "broadcast": lambda: dpus.broadcast(symbol, data, offset),
        "scatter": lambda: dpus.scatter(symbol, np.ones((count, nbytes), np.uint8), offset),
        "gather": lambda: dpus.gather(symbol, np.uint8, nbytes, offset),
        "write": lambda: dpus[count - 1].write(symbol, data, offset),
        "read": lambda: dpus[0].read(symbol, np.uint8, nbytes, offset),
        "scatter_count": lambda: dpus.scatter(symbol, [data] * (count + 1), offset),
        "scatter_uneven": lambda: dpus.scatter(
            symbol, [data] * (count - 1) + [np.ones(nbytes + 8, np.uint8)], offset
        ),
        "gather_out": lambda: dpus.gather(
            symbol, offset=offset, out=np.zeros((count + 2, 8), np.uint8)
        ),
    }
    with pytest.raises(pim.DpuAccessError) as info:
        actions[kind]()
    assert info.value.code == code and info.value.before_call
    assert np.array_equal(snapshot(dpus, symbol), before)
    # Still usable: a valid transfer works.
    marker = np.full(8, 0xAB, np.uint8)
    dpus.broadcast(symbol, marker)
    assert (dpus.gather(symbol, np.uint8, 8) == 0xAB).all()
