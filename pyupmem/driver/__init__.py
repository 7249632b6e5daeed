"""The driver layer: UPMEM's host library ``libdpu`` as Python sees it, and where it is found.

:mod:`~pyupmem.driver.libdpu` declares libdpu's C interface through ctypes, exactly and
nothing more; :mod:`~pyupmem.driver.backend` finds a libdpu (the SDK's, for hardware or its
simulator, or the bundled emulator's, :mod:`pyupmem.emu`) and loads it;
:mod:`~pyupmem.driver.cache_folder` is the per-user folder where the emulator and compiled
programs are kept.

May use: :mod:`pyupmem.errors` (whose codes are libdpu's) and :mod:`pyupmem.emu`; nothing
above. Its public names are re-exported by :mod:`pyupmem`.
"""
