"""Sets of DPUs and what they do: allocation, views, programs, transfers, launches, queues.

The Pythonic layer over the driver. A :class:`~pyupmem.DpuSet`
(:mod:`~pyupmem.dpus.dpuset`) owns DPUs allocated from libdpu; its views
(:mod:`~pyupmem.dpus.views`: one DPU, one rank, a sub-set) share the operations of
:class:`~pyupmem.dpus.group.DpuGroup` (:mod:`~pyupmem.dpus.group`), written by job:
transfers (:mod:`~pyupmem.dpus.transfers`, :mod:`~pyupmem.dpus.block_transfers`, with the
memory rules in :mod:`~pyupmem.dpus.transfer_rules` and the typed checks in
:mod:`~pyupmem.dpus.typecheck`), launches and waits (:mod:`~pyupmem.dpus.control`),
estimates and logs (:mod:`~pyupmem.dpus.reports`), the program loaded
(:mod:`~pyupmem.dpus.loaded_program`) and the queues of asynchronous work
(:mod:`~pyupmem.dpus.asynchrony`, :mod:`~pyupmem.dpus.queued_data`);
:mod:`~pyupmem.dpus.group_parts` declares what those mixins use of the group.

May use: :mod:`pyupmem.errors`, :mod:`pyupmem.driver`, :mod:`pyupmem.build`,
:mod:`pyupmem.estimate`. Its public names are re-exported by :mod:`pyupmem`.
"""
