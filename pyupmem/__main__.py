"""Command line: ``python -m pyupmem info``, ``env``, ``inspect`` and ``cache info|verify|clear``.

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

``inspect BINARY`` prints what a built DPU program uses of a DPU (WRAM by section, the
stacks, the heap left, MRAM, IRAM) against a chip's limits (:mod:`pyupmem.build.resources`);
exit status 1 when it does not fit.

``cache info`` lists the build cache's folder, its builds and their sizes; ``cache verify``
checks every build's recorded hashes and removes the damaged ones (exit status 1 when it
found any); ``cache clear`` removes every build (:mod:`pyupmem.build.cache`).
"""

from __future__ import annotations

import argparse
import json
import sys

from pyupmem.driver.backend import find_backend
from pyupmem.errors import PyUpmemError

# The help is plain text: the module docstring above is reST for the documentation.
DESCRIPTION = """\
pyupmem's command line: which backend pyupmem finds (info), the shell lines
that put the emulator's toolchain on PATH (env), a DPU program's resource use
(inspect), and the build cache (cache)."""
EPILOG = """\
examples:
  python -m pyupmem info                 backend, library, compiler, DPUs and ranks
  python -m pyupmem info --json          the same as JSON
  eval "$(python -m pyupmem env)"        dpu-upmem-dpurte-clang and dpu-pkg-config on PATH
  python -m pyupmem inspect BINARY       a DPU program's WRAM, stacks, MRAM, IRAM use
  python -m pyupmem cache info           the build cache's folder, builds and sizes
  python -m pyupmem cache verify         check every cached build, remove damaged ones
  python -m pyupmem cache clear          remove every cached build

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
    from pyupmem.driver.backend import sdk_bin_dir, selected_kind

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


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    if size < 1024**2:
        return f"{size / 1024:.1f} KiB"
    return f"{size / 1024**2:.1f} MiB"


def _cache_info(args: argparse.Namespace) -> int:
    from pyupmem.build.cache import cache_entries, cache_size
    from pyupmem.driver.cache_folder import cache_dir

    entries = cache_entries()
    if args.json:
        print(json.dumps({
            "folder": str(cache_dir()),
            "size": cache_size(),
            "entries": [
                {"kind": e.kind, "name": e.name, "size": e.size, "path": str(e.path)}
                for e in entries
            ],
        }, indent=2))
        return 0
    print(f"folder:   {cache_dir()}")
    for kind, title in (("emulator", "emulator builds"), ("program", "DPU programs")):
        some = [e for e in entries if e.kind == kind]
        print(f"{title}: {len(some)} ({_size(sum(e.size for e in some))})")
        for entry in some:
            print(f"  {entry.name:<24} {_size(entry.size):>12}  {entry.path}")
    print(f"total:    {_size(cache_size())}")
    return 0


def _cache_verify(args: argparse.Namespace) -> int:
    from pyupmem.build.cache import cache_entries, verify_cache

    checked = len(cache_entries())
    damaged = verify_cache(remove=True)
    for entry, problem in damaged:
        print(f"damaged {entry.kind} build {entry.path}: {problem} (removed; the next use "
              "rebuilds it)")
    print(f"checked {checked} builds: {len(damaged)} damaged")
    return 1 if damaged else 0


def _cache_clear(args: argparse.Namespace) -> int:
    from pyupmem.build.cache import clear_cache
    from pyupmem.driver.cache_folder import cache_dir

    freed = clear_cache()
    print(f"removed every build from {cache_dir()} ({_size(freed)} freed)")
    return 0


def _inspect(args: argparse.Namespace) -> int:
    from pyupmem.build.resources import read_resources

    try:
        found = read_resources(args.binary, chip=args.chip)
    except (OSError, ValueError) as error:
        print(f"python -m pyupmem inspect: error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(found.as_dict(), indent=2) if args.json else found.table())
    return 0 if found.fits else 1


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
    cache = commands.add_parser("cache", help="the build cache: info, verify, clear")
    actions = cache.add_subparsers(dest="action", required=True)
    cache_info = actions.add_parser("info", help="the cache's folder, builds and sizes")
    cache_info.add_argument("--json", action="store_true", help="print JSON")
    cache_info.set_defaults(run=_cache_info)
    actions.add_parser(
        "verify", help="check every build's hashes; remove damaged builds (exit 1 if any)"
    ).set_defaults(run=_cache_verify)
    actions.add_parser(
        "clear", help="remove every build (run it while no pyupmem program runs)"
    ).set_defaults(run=_cache_clear)
    inspect = commands.add_parser(
        "inspect", help="a DPU program's WRAM, stacks, heap left, MRAM and IRAM use"
    )
    inspect.add_argument("binary", help="a DPU program (build_program's, or the SDK's)")
    inspect.add_argument("--chip", choices=("v1A", "v1B"), default="v1A",
                         help="the chip whose limits to measure against (default: v1A)")
    inspect.add_argument("--json", action="store_true", help="print JSON")
    inspect.set_defaults(run=_inspect)
    args = parser.parse_args(argv)
    try:
        status = args.run(args)
        sys.stdout.flush()
        return status
    except PyUpmemError as error:
        print(f"pyupmem: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (`... | head`): the rest of the output is dropped quietly,
        # and the interpreter's last flush at exit must not fail again.
        from pyupmem.apps.distributed import silence_stdout

        silence_stdout()
        return 0


if __name__ == "__main__":
    sys.exit(main())
