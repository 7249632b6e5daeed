"""The training skeleton rl and pimopt share (pyupmem.apps.training): shares, padding, the
fixed-order combine, settings sent only when they change, the phases of a real run."""

from __future__ import annotations

import numpy as np
import pytest

import pyupmem
from pyupmem.apps.distributed import sum_in_order
from pyupmem.apps.training import (
    RANK_DPUS,
    TrainingRun,
    block_sums,
    breakdown,
    combine,
    contiguous_shares,
    include_dir,
    per_dpu,
)

PROGRAM = r"""
#include <defs.h>
#include <stdint.h>
#include "fixed_point.h"
__host uint32_t scale;
__host uint32_t sent;
__host int32_t out;
int main(void)
{
    if (me() == 0) {
        sent++; /* counts launches, so the host sees the settings persist */
        out = sat_add(INT32_MAX, (int32_t)scale); /* the shared header is on the path */
    }
    return 0;
}
"""


def test_contiguous_shares() -> None:
    assert contiguous_shares(10, 4) == ((0, 3), (3, 3), (6, 2), (8, 2))
    assert contiguous_shares(2, 3) == ((0, 1), (1, 1), (2, 0))
    with pytest.raises(ValueError, match="DPUs >= 1"):
        contiguous_shares(5, 0)


def test_per_dpu_pads_each_share() -> None:
    rows = np.arange(10 * 3, dtype=np.int32).reshape(10, 3)
    out = per_dpu(rows, contiguous_shares(10, 4), 4)
    assert out.shape == (4, 4, 3) and out.dtype == np.int32
    assert np.array_equal(out[2, :2], rows[6:8]) and not out[2, 2:].any()
    with pytest.raises(ValueError, match="shorter"):
        per_dpu(rows, contiguous_shares(10, 4), 2)


def test_combine_is_blocks_then_blocks_in_order() -> None:
    rng = np.random.default_rng(1)
    p = rng.standard_normal((RANK_DPUS * 2 + 5, 7)).astype(np.float32)
    want = sum_in_order(np.stack([np.cumsum(p[i:i + RANK_DPUS], 0, dtype=np.float32)[-1]
                                  for i in range(0, len(p), RANK_DPUS)]))
    assert np.array_equal(combine(p), want)
    assert block_sums(p.astype(np.int32)).dtype == np.int64


def test_include_dir_holds_the_shared_header() -> None:
    assert (include_dir() / "fixed_point.h").is_file()


def test_a_run_sends_only_changes_and_times_its_phases() -> None:
    run = TrainingRun(PROGRAM, name="training_skeleton", nr_dpus=3, nr_tasklets=2,
                      mram_needed=1024, backend="emulator")
    assert (run.first, run.count, run.processes, run.is_root) == (0, 3, 1, True)
    with run:
        run.send({"scale": 1})
        run.launch()
        run.send({"scale": 1})  # unchanged: nothing sent, no phase
        with run.combining():
            outs = run.dpus.gather("out", np.int32, 1)
            total = run.sum_in_order(outs)
        run.launch()
        counts = run.dpus.gather("sent", np.uint32, 1)
    assert run.dpus.closed
    assert int(total[0]) == 3 * (2**31 - 1)  # saturated on every DPU, summed in int64
    assert counts.reshape(-1).tolist() == [2, 2, 2]  # the setting persisted across launches
    phases = breakdown(run.timer)
    assert list(phases) == [pyupmem.CPU_DPU, pyupmem.DPU_KERNEL, pyupmem.INTER_DPU]
    assert all(v["seconds"] > 0 for v in phases.values())
    assert phases[pyupmem.DPU_KERNEL]["estimated_seconds"] > 0
    assert run.network_bytes == 0 and run.setup_seconds > 0


def test_a_plan_too_big_for_mram_is_refused_and_frees_the_dpus() -> None:
    run = TrainingRun(PROGRAM, name="training_skeleton", nr_dpus=1, nr_tasklets=2,
                      mram_needed=128 * 2**20, needs="the tables", advice="use fewer",
                      backend="emulator")
    with pytest.raises(ValueError, match="the tables need 128.0 MiB of MRAM.*use fewer"):
        with run:
            pass
    assert run.dpus.closed


HOST_CHECK = r"""
#include <stdint.h>
#include <stdio.h>
#include "fixed_point.h"
int main(void)
{
    static const int32_t edges[] = {INT32_MIN, -65537, -65536, -65535, -32769, -32768, -1, 0,
                                    1, 32767, 32768, 65535, 65536, 65537, INT32_MAX};
    static const int32_t coefs[] = {-32767, -16384, -1, 0, 1, 12345, 32767};
    uint32_t v = 2463534242u, bad = 0, n = 0;
    for (unsigned i = 0; i < 2000000; i++) {
        v ^= v << 13; v ^= v >> 17; v ^= v << 5; /* xorshift32 */
        int32_t x = i < 15 * 7 ? edges[i % 15] : (int32_t)v;
        if (i % 3 == 1) x >>= 14; /* many values near +-1.0 */
        const int32_t c = i < 15 * 7 ? coefs[i / 15] : (int32_t)(v % 65535u) - 32767;
        bad += mul_q15_near_one(x, c) != mul_q15(x, c);
        n++;
    }
    printf("%u of %u differ\n", bad, n);
    return bad != 0;
}
"""


def test_the_one_multiply_product_equals_the_split_one(tmp_path) -> None:
    import shutil
    import subprocess

    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no host C compiler")
    (tmp_path / "check.c").write_text(HOST_CHECK)
    exe = tmp_path / "check"
    subprocess.run([cc, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{include_dir()}",
                    "-fsanitize=undefined", "-fno-sanitize-recover", "-o", str(exe),
                    str(tmp_path / "check.c")], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("0 of 2000000 differ")
