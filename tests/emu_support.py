"""Builds the C programs the emulator tests drive, with the emulator's own toolchain.

Binaries are cached per test process by source and flags, so each is compiled once.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import importlib.util
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from types import ModuleType

from pyupmem import emu

PROGRAMS = Path(__file__).resolve().parent / "emu_programs"
_WORKDIR = Path(tempfile.mkdtemp(prefix="pyupmem-emu-tests-"))
atexit.register(shutil.rmtree, _WORKDIR, True)


@functools.cache
def emulator() -> emu.Emulator:
    return emu.build()


def toolchain_module(name: str) -> ModuleType:
    """One of the emulator's toolchain scripts (``pyupmem/emu/toolchain/<name>.py``), which
    are not part of the package, loaded as a module."""
    spec = importlib.util.spec_from_file_location(name, emu.SOURCE_DIR / "toolchain" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def toolchain_env(**extra: str) -> dict[str, str]:
    """The environment after `eval "$(python -m pyupmem env)"`, plus `extra`."""
    env = dict(os.environ)
    env["PATH"] = f"{emulator().bin_dir}:{env['PATH']}"
    env.update(extra)
    return env


def _output(name: str, *flags: str) -> Path:
    digest = hashlib.sha1(" ".join(flags).encode()).hexdigest()[:10]
    return _WORKDIR / f"{name}-{digest}"


@functools.cache
def build_dpu(source: str, *flags: str) -> Path:
    """Compiles emu_programs/`source` with dpu-upmem-dpurte-clang and `flags`."""
    out = _output(Path(source).stem + "-dpu", source, *flags)
    subprocess.run(
        ["dpu-upmem-dpurte-clang", "-O2", *flags, "-o", str(out), str(PROGRAMS / source)],
        check=True,
        env=toolchain_env(),
        capture_output=True,
        text=True,
    )
    return out


@functools.cache
def host_flags() -> tuple[str, ...]:
    """The compiler and linker flags of a host program (``dpu-pkg-config --cflags --libs``)."""
    return tuple(subprocess.run(
        ["dpu-pkg-config", "--cflags", "--libs", "dpu"],
        check=True,
        env=toolchain_env(),
        capture_output=True,
        text=True,
    ).stdout.split())


@functools.cache
def build_host(source: str, *flags: str) -> Path:
    """Compiles emu_programs/`source` as a host program against the emulator's libdpu."""
    out = _output(Path(source).stem + "-host", source, *flags)
    pkg = host_flags()
    subprocess.run(
        [
            "cc",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            *flags,
            str(PROGRAMS / source),
            "-o",
            str(out),
            *pkg,
        ],
        check=True,
        env=toolchain_env(),
        capture_output=True,
        text=True,
    )
    return out


def cxx_compiler() -> str | None:
    """The C++ compiler for C++ host programs (g++, else c++), or None when there is none."""
    return shutil.which("g++") or shutil.which("c++")


def build_cxx_host(source: str, output: Path) -> subprocess.CompletedProcess:
    """Compiles emu_programs/`source` as a C++17 host program against the emulator's libdpu
    into `output`, with every warning an error; the compiler's result, to assert on."""
    return subprocess.run(
        [
            str(cxx_compiler()),
            "-std=c++17",
            "-O1",
            "-Wall",
            "-Wextra",
            "-Werror",
            str(PROGRAMS / source),
            "-o",
            str(output),
            *host_flags(),
        ],
        env=toolchain_env(),
        capture_output=True,
        text=True,
    )


def run(args: list[str | Path], timeout: float = 120, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(a) for a in args],
        env=toolchain_env(**{"PYUPMEM_EMU_QUIET": "1", **env}),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def parse_codes(stdout: str) -> dict[str, int]:
    """`name=code` lines into a dict."""
    return {
        k: int(v)
        for k, v in (line.split("=", 1) for line in stdout.splitlines() if "=" in line)
        if v.lstrip("-").isdigit()
    }


def descendants(pid: int) -> set[int]:
    """Live (non-zombie) processes below `pid`."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def emulator_memory(pid: int | str = "self") -> list[str]:
    """The emulator's shared-memory mappings and descriptors that process `pid` holds."""
    maps = [x for x in Path(f"/proc/{pid}/maps").read_text().splitlines() if "memfd:pyupmem" in x]
    fds = []
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if "memfd:pyupmem" in target:
            fds.append(target)
    return maps + fds


def pyupmem_processes() -> list[int]:
    """Every live emulator worker or zygote on the machine."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if b"--pyupmem-zygote" in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def pyupmem_memory_owners() -> list[int]:
    """Processes that still map or hold one of the emulator's shared-memory files."""
    owners = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if "memfd:pyupmem-" in (entry / "maps").read_text():
                owners.append(int(entry.name))
                continue
            for fd in (entry / "fd").iterdir():
                if "memfd:pyupmem-" in os.readlink(fd):
                    owners.append(int(entry.name))
                    break
        except OSError:
            continue
    return owners
