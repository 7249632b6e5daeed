"""What applications on DPUs share: the training skeleton and several servers.

:mod:`~pyupmem.apps.training` is the skeleton that :mod:`rl` and :mod:`pimopt` train with
(partition the data, plan the memory, schedule launches, combine, time the phases);
:mod:`~pyupmem.apps.distributed` runs one MPI process per PIM server with sums in a fixed
order (:class:`~pyupmem.Cluster`).

May use every layer below: :mod:`pyupmem.errors`, :mod:`pyupmem.driver`,
:mod:`pyupmem.build`, :mod:`pyupmem.estimate`, :mod:`pyupmem.dpus`.
"""
