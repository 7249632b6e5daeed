"""dpu_load writes only the program's own segments: data the host put in the MRAM heap
before a load is still there after it, while the new program's WRAM and __mram variables
are initialised (UPMEM_ABI.md sections 1 and 4)."""

import numpy as np
from emu_support import build_dpu

import pyupmem as pim


def test_heap_data_survives_loading_another_program():
    first = build_dpu("dma_rules.c", "-DNR_TASKLETS=2")
    second = build_dpu("heap_reader.c", "-DNR_TASKLETS=2")
    data = np.arange(4096, dtype=np.uint32).reshape(1, -1) * np.array([[1], [3]], dtype=np.uint32)
    with pim.DpuSet(2, backend="emulator") as dpus:
        dpus.load(first)
        dpus.scatter("__sys_used_mram_end", data)
        dpus.load(second)
        assert dpus.gather("wram_initialised", np.uint32, 1)[:, 0].tolist() == [0x1234] * 2
        assert dpus.gather("mram_initialised", np.uint64, 2).tolist() == [[0x5678, 0x9ABC]] * 2
        dpus.broadcast("count", np.array([4096], dtype=np.uint32))
        dpus.launch()
        # heap_reader's 16 bytes of __mram variables took MRAM offsets 0..15 (the host's
        # words 0..3); its heap starts after them, so it sums the host's words 4..4095
        # and 4 words never written (zero).
        expected = [int(row[4:].sum()) for row in data.astype(np.uint64)]
        assert dpus.gather("sum", np.uint64, 1)[:, 0].tolist() == expected
