"""Every modelled cycle of a set of synchronisation-heavy kernels, for diffing the
emulator's scheduler before and after a change meant to leave its model alone (a speed
change): prints, per kernel, the launch's modelled cycles, each tasklet's cycles by
activity and instructions, the whole timeline (``launch(trace=True)``) and the order in
which the tasklets passed their switch points (each tasklet's perfcounter_get() there, and
a shared ticket it took).

    .venv/bin/python benchmarks/emulator/schedule_digest.py > after.txt
    diff before.txt after.txt   # empty: the same model

The kernels mix uneven compute, DMAs of several sizes, barriers, a mutex held across a
DMA, semaphores and handshakes, at 1, 8, 11, 12, 16 and 24 tasklets (the pace model's
cases: at most 11 tasklets never share the pipeline), with and without cost counting, and
one under the seeded shuffle schedule.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

import pyupmem as pim  # noqa: E402

HERE = Path(__file__).resolve().parent
EVENTS = 48  # switch points each tasklet logs

KERNEL = r"""
#include <barrier.h>
#include <defs.h>
#include <handshake.h>
#include <mram.h>
#include <mutex.h>
#include <perfcounter.h>
#include <sem.h>
#include <stdint.h>
#include "work.h"

#define EVENTS 48
__host uint32_t rounds;
__host uint32_t log_at[NR_TASKLETS][EVENTS];
__host uint32_t log_ticket[NR_TASKLETS][EVENTS];
__host uint32_t results[NR_TASKLETS];
__mram_noinit uint64_t blocks[NR_TASKLETS][128];
__dma_aligned uint64_t buffers[NR_TASKLETS][128];
__mram_noinit uint64_t shared_block[64];
BARRIER_INIT(round_end, NR_TASKLETS);
MUTEX_INIT(lock);
SEMAPHORE_INIT(items, 0);
static uint32_t ticket;
static uint32_t logged[NR_TASKLETS];

static void note(void)
{
    uint32_t id = me(), n = logged[id];
    if (n < EVENTS) {
        log_at[id][n] = (uint32_t)perfcounter_get();
        log_ticket[id][n] = ticket++;
        logged[id] = n + 1;
    }
}

int main(void)
{
    uint32_t id = me(), acc = 0;
    uint64_t *buffer = buffers[id];
    if (id == 0)
        ticket = 0;
    logged[id] = 0;
    barrier_wait(&round_end);
    for (uint32_t r = 0; r < rounds; r++) {
        acc += work(seed_of(r * 31 + id), 8 + (id * 7 + r * 3) % 29);
        uint32_t bytes = 8u << ((id + r) % 8); /* 8 to 1024 bytes */
        mram_read(blocks[id], buffer, bytes);
        note();
        if ((r + id) % 3 == 0) { /* a mutex held across a DMA */
            mutex_lock(lock);
            mram_read(shared_block, buffer, 256);
            buffer[0] += acc;
            mram_write(buffer, shared_block, 256);
            mutex_unlock(lock);
            note();
        }
        if (NR_TASKLETS > 1 && r % 4 == 1) { /* producers and consumers */
            if (id % 2 == 0) {
                sem_give(&items);
            } else if (id + 1 < NR_TASKLETS || NR_TASKLETS % 2 == 0) {
                sem_take(&items);
            }
            note();
        }
        if (NR_TASKLETS > 1 && r % 5 == 2) { /* pairs: an odd tasklet waits for its even one */
            if (id % 2 == 1)
                handshake_wait_for(id - 1);
            else if (id + 1 < NR_TASKLETS)
                handshake_notify();
            note();
        }
        acc += work(acc, 4 + id % 5);
        mram_write(buffer, blocks[id], 64);
        barrier_wait(&round_end);
        note();
    }
    results[id] = acc;
    return 0;
}
"""


def run_kernel(tasklets: int, rounds: int, counted: bool, schedule: str | None) -> list[str]:
    """The modelled figures of one launch of KERNEL, as lines of text."""
    extra = [] if counted else ["-fpyupmem-no-cost"]
    program = pim.build_program(KERNEL, nr_tasklets=tasklets, include_dirs=[HERE],
                                backend="emulator", extra_args=extra)
    lines = [f"== {tasklets} tasklets, {rounds} rounds, counted {counted}, schedule {schedule}"]
    with pim.DpuSet(1, backend="emulator", schedule=schedule) as dpus:
        dpus.load(program)
        dpus.broadcast("rounds", np.uint32(rounds))
        dpus.launch(trace=True)
        estimate = dpus.estimate()
        lines.append(f"cycles {[int(c) for c in estimate.cycles]}")
        assert estimate.tasklet_cycles is not None and estimate.instructions is not None
        for t, row in enumerate(estimate.tasklet_cycles[0]):
            lines.append(f"tasklet {t} cycles by activity {[int(v) for v in row]}, "
                         f"instructions {int(estimate.instructions[0][t])}")
        # (without counting perfcounter_get() reads the host's clock: not a model figure)
        for name in ("log_at", "log_ticket", "results")[0 if counted else 1:]:
            values = dpus.gather(name, np.uint32, tasklets * (EVENTS if name != "results" else 1))
            lines.append(f"{name} {values[0].tolist()}")
        timeline = dpus.timeline()
        lines.append(f"timeline: {len(timeline.events)} events, {timeline.dropped} dropped")
        lines += [f"  {e.tasklet} {e.activity} {e.start} {e.end}" for e in timeline.events]
    return lines


def pimopt_kernel(fmt: str) -> list[str]:
    """pimopt's SGD kernel (one DPU x 16 tasklets, two epochs): its modelled kernel time."""
    from pimopt import data
    from pimopt.trainer import Trainer

    ds = data.dense(512, 32, seed=0)
    result = Trainer(fmt=fmt, nr_dpus=1, nr_tasklets=16, model="lr", algorithm="ma-sgd",
                     epochs=2, batch=16, lr=0.1, lam=1e-3, local_steps=0).train(ds)
    kernel = result.breakdown()[pim.DPU_KERNEL]
    return [f"== pimopt {fmt}, 16 tasklets: modelled kernel seconds "
            f"{kernel['estimated_seconds']!r}, model {result.raw.view(np.uint32).tolist()}"]


def main() -> int:
    cases = [(1, 6, True, None), (8, 6, True, None), (11, 6, True, None),
             (12, 6, True, None), (16, 8, True, None), (24, 8, True, None),
             (16, 8, False, None), (16, 6, True, "shuffle:7")]
    for case in cases:
        print("\n".join(run_kernel(*case)))
    for fmt in ("fp32", "int32"):
        print("\n".join(pimopt_kernel(fmt)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
