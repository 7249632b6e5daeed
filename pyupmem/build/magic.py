"""The ``%%dpu`` cell magic: a notebook cell of DPU C source, built into a Program.

In IPython or Jupyter::

    %load_ext pyupmem

    %%dpu vecadd --tasklets 16 -DBLOCK=256
    #include <defs.h>
    ...

builds the cell with :func:`pyupmem.build_program` (cached by content, as every build is:
running the cell again with nothing changed compiles nothing) and binds the
:class:`~pyupmem.Program` to ``vecadd`` in the notebook's namespace, ready for
``DpuSet.load``. The line takes the name, ``--tasklets N`` (default 16, as
:func:`~pyupmem.build_program`), ``-DNAME`` and ``-DNAME=VALUE``, ``-I DIR``, and any
other option for the compiler as it is (``-Wall``, ``-O3`` ...); the notebook's working
folder is on the include path, so ``#include "kernel.h"`` finds a header beside the
notebook.

When the compiler warns, the cell shows its output (the build log). When the build fails,
the cell fails with the compiler's messages and no Python traceback, and ``NAME`` keeps
what it held before.

IPython is not a dependency of pyupmem: this module never imports it, and
:func:`load_ipython_extension` uses only the shell object IPython passes in.
"""

from __future__ import annotations

import argparse
import keyword
import os
import re
import shlex
import sys
import warnings
from dataclasses import dataclass

from pyupmem.build.builder import build_program
from pyupmem.build.program import Program
from pyupmem.errors import CompileError, CompileWarning, PyUpmemError

USAGE = "%%dpu NAME [--tasklets N] [-DNAME[=VALUE] ...] [-I DIR ...] [compiler options]"
"""The ``%%dpu`` line's syntax, as error messages show it."""


# build_program stores a cell as <cache>/programs/<key>/source0.c; the compiler's messages
# read better as "cell:LINE:COLUMN", the cell's own lines.
_CELL_FILE = re.compile(r"(?<!\S)\S*/programs/[0-9a-f]+/source0\.c")


def _readable(log: str) -> str:
    return _CELL_FILE.sub("cell", log.rstrip())


class DpuCellError(PyUpmemError):
    """A ``%%dpu`` cell could not be built: a wrong magic line, an empty cell, or the
    compiler's errors. IPython shows its message alone, without a traceback (the
    ``_render_traceback_`` protocol): the message is the whole story."""

    def _render_traceback_(self) -> list[str]:
        return str(self).splitlines()


@dataclass(frozen=True)
class CellOptions:
    """What a ``%%dpu`` line asks for.

    Attributes:
        name: the variable that receives the Program (also the binary's name).
        nr_tasklets: ``--tasklets``.
        defines: the ``-D`` macros (``None`` for a bare ``-DNAME``).
        include_dirs: the ``-I`` folders.
        compiler_options: the other options, for the compiler.
    """

    name: str
    nr_tasklets: int
    defines: dict[str, str | None]
    include_dirs: tuple[str, ...]
    compiler_options: tuple[str, ...] = ()


class _LineParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise DpuCellError(f"%%dpu: {message}. Usage: {USAGE}")


def parse_line(line: str) -> CellOptions:
    """Read a ``%%dpu`` line (everything after ``%%dpu``).

    Raises:
        DpuCellError: the line does not follow :data:`USAGE`, or NAME is not a Python
            identifier.
    """
    parser = _LineParser(prog="%%dpu", add_help=False)
    parser.add_argument("name")
    parser.add_argument("--tasklets", type=int, default=16)
    parser.add_argument("-D", dest="defines", action="append", default=[])
    parser.add_argument("-I", dest="include_dirs", action="append", default=[])
    try:
        words = shlex.split(line)
    except ValueError as error:
        raise DpuCellError(f"%%dpu: cannot read the line ({error}). Usage: {USAGE}") from None
    args, others = parser.parse_known_args(words)
    stray = [word for word in others if not word.startswith("-")]
    if stray:
        parser.error(f"unexpected {' '.join(stray)} (one NAME only; the C source goes in the "
                     "cell, below the line)")
    if not args.name.isidentifier() or keyword.iskeyword(args.name):
        raise DpuCellError(
            f"%%dpu: {args.name!r} is not a Python variable name; the Program is bound to "
            f"NAME, so give one such as 'kernel'. Usage: {USAGE}"
        )
    defines: dict[str, str | None] = {}
    for item in args.defines:
        key, equals, value = item.partition("=")
        if not (key.isascii() and key.isidentifier()):
            raise DpuCellError(f"%%dpu: -D{item}: {key!r} is not a macro name; write -DNAME "
                               "or -DNAME=VALUE")
        defines[key] = value if equals else None
    return CellOptions(args.name, args.tasklets, defines, tuple(args.include_dirs),
                       tuple(others))


def build_cell(line: str, cell: str) -> tuple[CellOptions, Program]:
    """Build a ``%%dpu`` cell: the options its line gives and the Program.

    Warnings of the compiler are not issued as :class:`~pyupmem.errors.CompileWarning`
    here: the program's :attr:`~pyupmem.Program.build_log` holds them, and
    :func:`run_cell` shows it.

    Raises:
        DpuCellError: a wrong line, an empty cell, an invalid option or a failed build;
            the message says which, with the compiler's messages for a failed build.
    """
    options = parse_line(line)
    if not cell.strip():
        raise DpuCellError(f"%%dpu {options.name}: the cell is empty; write the DPU program's "
                           "C source below the %%dpu line")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CompileWarning)
            program = build_program(
                cell,
                nr_tasklets=options.nr_tasklets,
                defines=options.defines,
                include_dirs=(os.getcwd(), *options.include_dirs),
                extra_args=options.compiler_options,
                name=options.name,
            )
    except CompileError as error:
        raise DpuCellError(
            f"%%dpu {options.name}: the DPU compiler failed (exit {error.returncode}); "
            f"{options.name} is unchanged. Its messages:\n{_readable(error.output)}"
        ) from None
    except PyUpmemError as error:
        raise DpuCellError(f"%%dpu {options.name}: {error}") from None
    return options, program


def run_cell(line: str, cell: str, namespace: dict[str, object]) -> None:
    """What the cell magic does: build the cell, bind the Program to NAME in
    ``namespace``, and show the build log on standard error when the compiler warned."""
    options, program = build_cell(line, cell)
    if "warning" in program.build_log:
        print(f"%%dpu {options.name}: the DPU compiler warned (the build log):\n"
              f"{_readable(program.build_log)}", file=sys.stderr)
    namespace[options.name] = program


def load_ipython_extension(ipython: object) -> None:
    """Register the ``%%dpu`` cell magic with an IPython shell (``%load_ext pyupmem``)."""

    def dpu(line: str, cell: str) -> None:
        run_cell(line, cell, ipython.user_ns)  # type: ignore[attr-defined]

    dpu.__doc__ = f"Build the cell's DPU C source into a pyupmem Program.\n\nUsage: {USAGE}"
    ipython.register_magic_function(dpu, magic_kind="cell", magic_name="dpu")  # type: ignore[attr-defined]
