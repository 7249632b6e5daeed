"""The tutorials' DPU programs are right for every setting their pages invite readers to
change: first_steps.c for any number of tasklets from 1 to 24."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pyupmem as pim

TUTORIALS = Path(__file__).resolve().parent.parent / "docs" / "tutorials"


@pytest.mark.parametrize("tasklets", range(1, 25))
def test_first_steps_scales_every_value_for_any_tasklet_count(tasklets: int) -> None:
    program = pim.build_program(TUTORIALS / "first_steps.c", nr_tasklets=tasklets)
    values = np.arange(2 * 1024, dtype=np.int32).reshape(2, 1024) - 1000
    with pim.DpuSet(2, strict=True) as dpus:  # strict: a broken DMA rule is a fault
        dpus.load(program)
        dpus.broadcast("factor", np.int32(3))
        dpus.scatter("values", values)
        dpus.launch()
        assert np.array_equal(dpus.gather("values", np.int32, 1024), values * 3)
        assert dpus.logs()[1] == f"tasklet 0 of {tasklets}: first value is now {3 * 24}\n"
