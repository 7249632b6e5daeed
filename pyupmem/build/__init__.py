"""The build layer: DPU programs compiled, cached and read.

:mod:`~pyupmem.build.builder` compiles C sources for the active backend and caches the result
by content; :mod:`~pyupmem.build.cache` is the build cache as a whole (info, verify, clear);
:mod:`~pyupmem.build.program` describes a built program and its symbols, whose C types
:mod:`~pyupmem.build.debuginfo` reads from DWARF and whose target machine
:mod:`~pyupmem.build.elf_target` reads from the ELF header; :mod:`~pyupmem.build.magic` is the
notebook cell magic ``%%dpu`` that builds a cell; :mod:`~pyupmem.build.resources` is a built
program's use of WRAM, MRAM and IRAM against a chip's limits; :mod:`~pyupmem.build.elf_symbols`
lists its variables (for "did you mean").

May use: :mod:`pyupmem.errors`, :mod:`pyupmem.driver` and :mod:`pyupmem.emu`. Its public
names are re-exported by :mod:`pyupmem`.
"""
