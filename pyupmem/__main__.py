"""Command line: ``python -m pyupmem info`` and ``python -m pyupmem env``.

``info`` prints the backend pyupmem picks, its library, the DPU compiler, and how many
DPUs and ranks can be allocated. ``env`` prints the shell lines that put the emulator's
toolchain (``dpu-upmem-dpurte-clang``, ``dpu-pkg-config``) on PATH::

    eval "$(python -m pyupmem env)"

When the emulator is the selected backend (no UPMEM SDK found, or
``PYUPMEM_BACKEND=emulator``), they also set ``UPMEM_HOME`` to a folder with the SDK's
layout (for CMake projects) and put the SDK-style Python module ``dpu``
(:mod:`pyupmem.sdk_compat`) on ``PYTHONPATH``. With the SDK selected, those stay the
SDK's, and so does PATH's order: the SDK's own ``bin`` (beside the ``lib`` of its libdpu)
comes first and the emulator's tools last, so ``dpu-upmem-dpurte-clang`` and
``dpu-pkg-config`` are the SDK's.
"""

from __future__ import annotations

import argparse
import json
import sys

from pyupmem.backend import find_backend
from pyupmem.errors import PyUpmemError

# The help is plain text: the module docstring above is reST for the documentation.
DESCRIPTION = """\
pyupmem's command line: which backend pyupmem finds (info), and the shell lines
that put the emulator's toolchain on PATH (env)."""
EPILOG = """\
examples:
  python -m pyupmem info                 backend, library, compiler, DPUs and ranks
  python -m pyupmem info --json          the same as JSON
  eval "$(python -m pyupmem env)"        dpu-upmem-dpurte-clang and dpu-pkg-config on PATH

With the emulator selected (no UPMEM SDK found, or PYUPMEM_BACKEND=emulator), env also
sets UPMEM_HOME to a folder with the SDK's layout and puts the SDK-style Python module
'dpu' on PYTHONPATH. With the SDK selected, those stay the SDK's, and the SDK's own
tools stay first on PATH (the emulator's go last).
"""


def _info(args: argparse.Namespace) -> int:
    backend = find_backend(args.backend, args.library)
    facts: dict[str, object] = {
        "backend": backend.kind,
        "library": backend.library,
        "compiler": str(backend.compiler) if backend.compiler else None,
        "profile": args.profile,
    }
    try:
        dpus, ranks = backend.capacity(args.profile)
        facts["dpus"] = dpus
        facts["ranks"] = ranks
    except PyUpmemError as error:
        facts["dpus"] = 0
        facts["ranks"] = 0
        facts["error"] = str(error)
    if args.json:
        print(json.dumps(facts, indent=2))
    else:
        print(f"backend:  {facts['backend']}")
        print(f"library:  {facts['library']}")
        print(f"compiler: {facts['compiler'] or '(none found)'}")
        if args.profile:
            print(f"profile:  {args.profile}")
        print(f"DPUs:     {facts['dpus']}")
        print(f"ranks:    {facts['ranks']}")
        if "error" in facts:
            print(f"error:    {facts['error']}")
    return 0 if "error" not in facts else 1


def _env(args: argparse.Namespace) -> int:
    from pyupmem import emu
    from pyupmem.backend import sdk_bin_dir, selected_kind

    emulator = emu.build()
    sdk_selected = selected_kind() == "sdk"
    sdk_tools = sdk_bin_dir() if sdk_selected else None
    sys.stdout.write(emulator.shell_lines(sdk=not sdk_selected, sdk_tools=sdk_tools))
    if sdk_selected:
        where = f" ({sdk_tools} first on PATH)" if sdk_tools else ""
        print(
            "pyupmem: UPMEM's SDK is the selected backend, so its own dpu-upmem-dpurte-clang "
            f"and dpu-pkg-config come first{where}, and UPMEM_HOME and the Python module "
            "'dpu' stay the SDK's; the emulator's tools go last on PATH (set "
            "PYUPMEM_BACKEND=emulator to use the emulator for everything)",
            file=sys.stderr,
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m pyupmem",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    info = commands.add_parser("info", help="backend, library, compiler, DPUs and ranks")
    info.add_argument("--backend", choices=("emulator", "sdk"), help="force a backend")
    info.add_argument("--library", help="path of a libdpu.so to use")
    info.add_argument("--profile", default="", help="libdpu profile, e.g. nrRanks=2")
    info.add_argument("--json", action="store_true", help="print JSON")
    info.set_defaults(run=_info)
    env = commands.add_parser(
        "env", help="shell lines putting the emulator's toolchain on PATH (and UPMEM_HOME)"
    )
    env.set_defaults(run=_env)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except PyUpmemError as error:
        print(f"pyupmem: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
