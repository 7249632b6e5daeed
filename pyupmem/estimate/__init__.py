"""The estimate layer: how long work would take on UPMEM hardware, and where time goes.

:mod:`~pyupmem.estimate.model` reads the emulator's time model for a launch
(:class:`~pyupmem.KernelEstimate`); :mod:`~pyupmem.estimate.timeline` is what each tasklet
did, in modelled time; :mod:`~pyupmem.estimate.phases` is the four-phase timer PIM papers
report (:class:`~pyupmem.PhaseTimer`), measured and modelled.

May use: :mod:`pyupmem.errors`, :mod:`pyupmem.driver`, :mod:`pyupmem.emu` and
:mod:`pyupmem.build`. Its public names are re-exported by :mod:`pyupmem`.
"""
