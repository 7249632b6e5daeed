"""The bundled emulator: a ``libdpu`` that runs DPU programs built with the host C compiler.

:func:`build` compiles the emulator once per user, source version, C compiler and Python
interpreter into the cache folder and returns an :class:`Emulator` with the paths a host
or DPU build needs. Nothing here needs more than the standard library and a C compiler.

**A build checked on use.** A finished build records the SHA-256 of every file it holds
and the target of every link (in its ``.complete`` file); :func:`build` checks them each
time (:func:`check_build`, about a millisecond) and rebuilds a build that fails, with a
:class:`~pyupmem.errors.CacheWarning`, instead of loading a damaged ``libdpu.so``.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import platform
import shutil
import stat
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

from pyupmem.driver.cache_folder import cache_dir, private_dir
from pyupmem.errors import CacheWarning

SOURCE_DIR = Path(__file__).resolve().parent
DEFAULT_NR_RANKS = 40
"""Ranks in the emulated system when neither the profile (``nrRanks``) nor
``PYUPMEM_EMU_NR_RANKS`` says otherwise: 40 ranks of 64 DPUs, a full UPMEM server."""


class EmulatorBuildError(RuntimeError):
    """The emulator's C sources failed to compile; the message holds the compiler output."""


@dataclass(frozen=True)
class Emulator:
    """Where a built emulator lives.

    Attributes:
        root: the build folder.
        libdpu: the host library, with libdpu's C interface.
        worker: the process that runs DPU programs: it loads one (a 32-bit image built by
            ``dpu-upmem-dpurte-clang``) with the DPU runtime, and forks one copy per DPU.
        libdpuc: the DPU's C library and the stubs that call the runtime, built as DPU
            code; every DPU program links with it.
        bin_dir: holds ``dpu-upmem-dpurte-clang`` and ``dpu-pkg-config``.
        host_include: the folder holding the host ``dpu.h``.
        dpu_include: the folder holding the DPU-side headers (``defs.h``, ``mram.h`` ...).
        upmem_home: a folder with the UPMEM SDK's layout, for ``UPMEM_HOME``.
        python_dir: the folder holding the SDK-style Python package ``dpu``.
    """

    root: Path

    @property
    def libdpu(self) -> Path:
        return self.root / "lib" / "libdpu.so"

    @property
    def worker(self) -> Path:
        return self.root / "lib" / "dpu-worker"

    @property
    def libdpuc(self) -> Path:
        return self.root / "lib" / "libdpuc.a"

    @property
    def bin_dir(self) -> Path:
        return self.root / "bin"

    @property
    def dpu_compiler(self) -> Path:
        return self.bin_dir / "dpu-upmem-dpurte-clang"

    @property
    def host_include(self) -> Path:
        return self.root / "include" / "host"

    @property
    def dpu_include(self) -> Path:
        return self.root / "include" / "dpu"

    @property
    def upmem_home(self) -> Path:
        """A folder with the SDK's layout, made of links into the build and small files:

        - ``bin/``: ``dpu-upmem-dpurte-clang``, ``dpu-pkg-config``, ``clang`` and ``clang++``
          (DPU compilers that accept ``--target=dpu-upmem-dpurte``), ``llvm-ar`` and
          ``llvm-ranlib`` (the host's ``ar`` and ``ranlib``);
        - ``include/dpu/``: the host headers (``dpu.h`` ...);
        - ``lib/libdpu.so``: the emulator's libdpu;
        - ``share/upmem/include/``: the DPU headers (the toolchain's sysroot);
        - ``share/upmem/cmake/dpu.cmake``: the CMake toolchain file for DPU programs;
        - ``share/upmem/cmake/include/host/DpuHost.cmake``: the host side's CMake variables.
        """
        return self.root / "upmem"

    @property
    def python_dir(self) -> Path:
        """The folder holding the package ``dpu`` (the SDK's Python module, from
        :mod:`pyupmem.sdk_compat`) that ``python -m pyupmem env`` puts on PYTHONPATH."""
        return self.root / "python"

    def shell_lines(self, sdk: bool = True, sdk_tools: Path | None = None) -> str:
        """Shell lines (for ``eval``) that put the emulator's toolchain on PATH and set
        ``UPMEM_EMU_HOME``.

        Args:
            sdk: the emulator is the selected backend: its toolchain goes first on PATH,
                ``UPMEM_HOME`` is set to :attr:`upmem_home` and :attr:`python_dir` (the
                SDK-style Python module ``dpu``) goes first on PYTHONPATH. When False (UPMEM's
                SDK is selected) the SDK keeps its compiler, ``dpu-pkg-config``,
                ``UPMEM_HOME`` and ``dpu`` module: the emulator's tools go last on PATH.
            sdk_tools: with ``sdk`` False, the SDK's own ``bin`` folder, put first on PATH.
        """
        if sdk:
            path = f'export PATH="{self.bin_dir}:$PATH"'
        elif sdk_tools is not None:
            path = f'export PATH="{sdk_tools}:$PATH:{self.bin_dir}"'
        else:
            path = f'export PATH="$PATH:{self.bin_dir}"'
        lines = [path, f'export UPMEM_EMU_HOME="{self.root}"']
        if sdk:
            lines.append(f'export UPMEM_HOME="{self.upmem_home}"')
            lines.append(f'export PYTHONPATH="{self.python_dir}${{PYTHONPATH:+:$PYTHONPATH}}"')
        return "\n".join(lines) + "\n"


def host_compiler() -> str:
    """The C compiler the emulator and DPU programs are built with: ``$CC``, else the first of
    ``cc``, ``gcc``, ``clang`` on PATH."""
    explicit = os.environ.get("CC")
    if explicit:
        return explicit
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return name
    raise EmulatorBuildError("no C compiler found: install gcc (or set CC)")


def python_executable() -> str:
    """The real path of the running interpreter (symbolic links resolved), which runs the
    counting assembler: ``.venv/bin/python`` and ``.venv/bin/python3`` are one interpreter,
    so they share one build."""
    return os.path.realpath(sys.executable)


def _source_digest(compiler: str) -> str:
    digest = hashlib.sha256()
    for path in sorted(SOURCE_DIR.rglob("*")):
        # (include/host/dpu: the C++ header <dpu>, with no suffix)
        if path.is_file() and (
            path.suffix in {".c", ".h", ".hpp", ".S", ".ld", ".in", ".py", ".def"}
            or path.name == "dpu"
        ):
            digest.update(str(path.relative_to(SOURCE_DIR)).encode())
            digest.update(path.read_bytes())
    digest.update(compiler.encode())
    digest.update(python_executable().encode())  # the counting assembler runs with it
    return digest.hexdigest()[:16]


def _run(command: list[str], output: Path) -> None:
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise EmulatorBuildError(
            f"building {output.name} failed:\n$ {' '.join(command)}\n{result.stdout}{result.stderr}"
        )


def _compile(
    compiler: str, output: Path, sources: list[Path], flags: list[str], shared: bool = True
) -> None:
    """Builds ``sources`` into the shared library ``output`` (or, not ``shared``, the
    executable ``output``)."""
    command = [
        compiler,
        "-O2",
        "-g",
        "-std=gnu11",
        "-Wall",
        "-Wextra",
        *(["-fPIC", "-shared"] if shared else []),
        f"-I{SOURCE_DIR / 'src'}",
        "-o",
        str(output),
        *map(str, sources),
        *flags,  # after the sources: the libraries they need (-lm) must follow them
    ]
    _run(command, output)


def _build_dpu_library(emulator: Emulator) -> None:
    """Build :attr:`Emulator.libdpuc` with the emulator's own DPU compiler (no cost
    counting: the emulator's code, as its runtime, is not the program's)."""
    objects = emulator.root / "obj" / "dpuc"
    objects.mkdir(parents=True)
    src = SOURCE_DIR / "src"
    patterns = (("dpulibc", "*.c"), ("dpulibc", "*.S"), ("dpulib", "*.c"))
    sources = sorted(path for folder, pattern in patterns for path in (src / folder).glob(pattern))
    built = []
    for source in sources:
        target = objects / f"{source.parent.name}_{source.stem}.o"
        # Not counted, but r15 left alone and the red zone unused, as in counted code: the
        # library calls the program back (wramfifo.h), whose count lives in r15.
        flags = ["-O2", "-g", "-std=gnu11", "-Wall", "-Wextra", "-fpyupmem-no-cost"]
        flags += ["-ffixed-r15", "-mno-red-zone"]
        _run([str(emulator.dpu_compiler), *flags, "-c", str(source), "-o", str(target)], target)
        built.append(str(target))
    _run(["ar", "rcs", str(emulator.libdpuc), *built], emulator.libdpuc)
    shutil.rmtree(emulator.root / "obj")


def compiler_include(compiler: str) -> str:
    """The C compiler's own header folder (stddef.h, stdarg.h ...), which DPU programs use
    with the DPU's C library headers."""
    result = subprocess.run(
        [*compiler.split(), "-print-file-name=include"], capture_output=True, text=True
    )
    folder = result.stdout.strip()
    if result.returncode != 0 or not os.path.isdir(folder):
        raise EmulatorBuildError(
            f"{compiler} -print-file-name=include gave no folder: {result.stderr}"
        )
    return folder


def _cxx_compiler(compiler: str) -> str:
    """The C++ compiler that goes with the C compiler ``compiler`` (gcc: g++, clang: clang++)."""
    head, slash, name = compiler.rpartition("/")
    for c_name, cxx_name in (("clang", "clang++"), ("gcc", "g++"), ("cc", "c++")):
        if c_name in name:
            return head + slash + name.replace(c_name, cxx_name, 1)
    return "c++"


def counts_costs() -> bool:
    """Whether this machine's DPU programs count their DPU instructions (x86-64 only: the
    counting rewrites x86-64 assembly; see ``toolchain/dpu_cost_as.py``)."""
    return platform.machine() in ("x86_64", "AMD64")


def _cost_flags(emulator: Emulator) -> str:
    """Compiler flags that turn cost counting on (``""`` where it is not available).

    -ffixed-r15 keeps r15 free to hold the count; -mno-red-zone leaves the red zone to the
    counting code's scratch (a multiply's cost is counted at run time); -B puts the
    counting assembler first on the compiler's tool path; no vectorisation, since a DPU
    has no vector unit and one host instruction must stand for one element's work."""
    if not counts_costs():
        return ""
    return (
        f"-ffixed-r15 -mno-red-zone -fno-tree-vectorize -fno-tree-slp-vectorize "
        f"-B{emulator.root / 'libexec' / 'cost'}/"
    )


def _dpu_source_flags(emulator: Emulator, compiler: str) -> str:
    """Compiler flags that give DPU programs the DPU's 64-bit ``long`` and clang's unroll
    pragmas (``""`` where the host compiler is not gcc).

    -no-integrated-cpp makes gcc hand the source, its directives handled
    (-fdirectives-only: macros are expanded later, so diagnostics keep their columns), to
    its compiler proper as a file, and -B puts the emulator's compiler proper first, which
    rewrites ``long`` before gcc's own compiles it (``toolchain/dpu_source.py``)."""
    result = subprocess.run(
        [*compiler.split(), "-print-prog-name=cc1"], capture_output=True, text=True
    )
    if result.returncode != 0 or not os.path.isabs(result.stdout.strip()):
        return ""
    return f"-no-integrated-cpp -fdirectives-only -B{emulator.root / 'libexec' / 'dpu_source'}/"


def _write_tool(
    template: Path,
    target: Path,
    emulator: Emulator,
    compiler: str,
    executable: bool = True,
    proper: str = "",
) -> None:
    text = (
        template.read_text()
        .replace("@PROPER@", proper)
        .replace("@ROOT@", str(emulator.root))
        .replace("@CXX@", _cxx_compiler(compiler))
        .replace("@CC@", compiler)
        .replace("@PYTHON@", python_executable())
        .replace("@COST_FLAGS@", _cost_flags(emulator))
        .replace("@DPU_SOURCE_FLAGS@", _dpu_source_flags(emulator, compiler))
        .replace("@COMPILER_INCLUDE@", compiler_include(compiler))
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    if executable:
        target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _link(target: Path, link: Path) -> None:
    """Make ``link`` a relative symbolic link to ``target`` (both inside the build)."""
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(os.path.relpath(target, link.parent))


def _make_sdk_layout(emulator: Emulator, compiler: str) -> None:
    """Fill :attr:`Emulator.upmem_home` and :attr:`Emulator.python_dir` (see there)."""
    home = emulator.upmem_home
    toolchain = SOURCE_DIR / "toolchain"
    for tool in ("dpu-upmem-dpurte-clang", "dpu-pkg-config"):
        _link(emulator.bin_dir / tool, home / "bin" / tool)
    # One script is every DPU compiler: it tells C from C++ by the name it is called by.
    for name in ("clang", "clang++", "dpu-upmem-dpurte-clang++"):
        _link(emulator.dpu_compiler, home / "bin" / name)
    _write_tool(toolchain / "llvm-ar.in", home / "bin" / "llvm-ar", emulator, compiler)
    _link(home / "bin" / "llvm-ar", home / "bin" / "llvm-ranlib")
    _link(emulator.host_include, home / "include" / "dpu")
    _link(emulator.libdpu, home / "lib" / "libdpu.so")
    share = home / "share" / "upmem"
    _link(emulator.dpu_include, share / "include")
    _write_tool(
        toolchain / "dpu.cmake.in",
        share / "cmake" / "dpu.cmake",
        emulator,
        compiler,
        executable=False,
    )
    _write_tool(
        toolchain / "DpuHost.cmake.in",
        share / "cmake" / "include" / "host" / "DpuHost.cmake",
        emulator,
        compiler,
        executable=False,
    )
    _write_tool(
        toolchain / "dpu_python_init.py.in",
        emulator.python_dir / "dpu" / "__init__.py",
        emulator,
        compiler,
        executable=False,
    )


RECORD_NAME = ".complete"
"""The file, written last, that marks a build finished and records its contents."""


def _contents(root: Path) -> dict[str, dict[str, str]]:
    """The SHA-256 of every file under ``root`` and the target of every link, by relative
    path (the record file itself and Python's byte-code caches left out)."""
    files: dict[str, str] = {}
    links: dict[str, str] = {}
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = [name for name in subfolders if name != "__pycache__"]
        for name in [*names, *(d for d in subfolders if os.path.islink(os.path.join(folder, d)))]:
            path = Path(folder) / name
            relative = str(path.relative_to(root))
            if relative == RECORD_NAME:
                continue
            if path.is_symlink():
                links[relative] = os.readlink(path)
            else:
                with open(path, "rb") as file:
                    files[relative] = hashlib.file_digest(file, "sha256").hexdigest()
    return {"files": files, "links": links}


def check_build(root: Path) -> str | None:
    """What is wrong with the emulator build in ``root``, or None when every file and link
    it recorded is there, unchanged (files it did not record, such as a ``__pycache__``
    that importing its Python module leaves, are allowed)."""
    try:
        recorded = json.loads((root / RECORD_NAME).read_text())
        files, links = recorded["files"], recorded["links"]
    except FileNotFoundError:
        return "unfinished: no record of its contents"
    except (OSError, ValueError, KeyError, TypeError):
        return "its record of its contents is unreadable"
    found = _contents(root)
    for relative, digest in files.items():
        if relative not in found["files"]:
            return f"{relative} is missing"
        if found["files"][relative] != digest:
            return f"{relative} differs from the file it built (SHA-256)"
    for relative, target in links.items():
        if found["links"].get(relative) != target:
            return f"the link {relative} no longer points to {target}"
    return None


def _notice(line: str) -> None:
    """One line on stderr, so that a first run that builds is not silent for seconds;
    PYUPMEM_EMU_QUIET (not "" or "0") keeps it off, as the emulator's own warnings."""
    if os.environ.get("PYUPMEM_EMU_QUIET", "") in ("", "0"):
        print(line, file=sys.stderr, flush=True)


def build(force: bool = False) -> Emulator:
    """Build the emulator if needed and return where it is.

    The build is cached by the digest of the sources, so the first call takes a few
    seconds and later ones return at once. Concurrent callers (several processes) wait
    for one another through a lock file.

    A build that fails its content check (:func:`check_build`) is rebuilt, with a
    :class:`~pyupmem.errors.CacheWarning`.

    Raises:
        EmulatorBuildError: no C compiler, or it failed; the message carries its output.
        CacheFolderError: the cache folder cannot be made, is not a folder, or is not
            private (another user owns it or others can write it).
    """
    compiler = host_compiler()
    # Private, as build_program's folders: libdpu.so and the worker run as native code.
    base = private_dir(cache_dir() / "emulator", cache_dir())
    emulator = Emulator(base / _source_digest(compiler))
    with open(base / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = emulator.root / RECORD_NAME
        if emulator.root.exists() and not force:
            problem = check_build(emulator.root)
            if problem is None:
                return emulator
            if done.exists():  # an unfinished build (a killed process) is not worth a warning
                warnings.warn(
                    CacheWarning(
                        f"the cached emulator build {emulator.root} is damaged ({problem}); "
                        "pyupmem removed it and is building it again"
                    ),
                    stacklevel=2,
                )
        if emulator.root.exists():
            shutil.rmtree(emulator.root)
        _notice(f"pyupmem: building the emulator into {emulator.root} (once for this version "
                "and compiler; a few seconds to half a minute)")
        (emulator.root / "bin").mkdir(parents=True)
        (emulator.root / "lib").mkdir()
        shutil.copytree(SOURCE_DIR / "include", emulator.root / "include")
        shutil.copy(SOURCE_DIR / "toolchain" / "dpu.ld", emulator.root / "dpu.ld")
        shutil.copy(
            SOURCE_DIR / "toolchain" / "dpu_cxx_prelude.h", emulator.root / "dpu_cxx_prelude.h"
        )
        src = SOURCE_DIR / "src"
        _compile(
            compiler,
            emulator.libdpu,
            sorted((src / "host").glob("*.c")),
            # -ldl: the Py_dpu_* helpers look Python's C API up in the running process.
            [
                f"-I{SOURCE_DIR / 'include' / 'host'}",
                "-Wl,-soname,libdpu.so",
                "-lpthread",
                "-lm",
                "-ldl",
            ],
        )
        if not counts_costs():
            raise EmulatorBuildError(
                f"the emulator runs DPU programs as x86-64 code in the DPU's 32-bit data model "
                f"(x32); this machine is {platform.machine()}"
            )
        runtime = [*sorted((src / "runtime").glob("*.c")), src / "runtime" / "switch_x86_64.S"]
        # -idirafter: the DPU headers (defs.h, mram.h ...) without shadowing libc's stdio.h.
        _compile(
            compiler,
            emulator.worker,
            runtime,
            [
                "-idirafter",
                str(SOURCE_DIR / "include" / "dpu"),
                # r15 holds the running tasklet's instruction count: the runtime (which
                # runs between program code) must never touch it.
                "-ffixed-r15",
                "-ldl",
                "-lpthread",
            ],
            shared=False,
        )
        for tool in ("dpu-upmem-dpurte-clang", "dpu-pkg-config"):
            template = SOURCE_DIR / "toolchain" / f"{tool}.in"
            _write_tool(template, emulator.bin_dir / tool, emulator, compiler)
        cost = emulator.root / "libexec" / "cost"
        cost.mkdir(parents=True)
        shutil.copy(SOURCE_DIR / "toolchain" / "dpu_cost_as.py", cost / "dpu_cost_as.py")
        _write_tool(SOURCE_DIR / "toolchain" / "cost-as.in", cost / "as", emulator, compiler)
        source_step = emulator.root / "libexec" / "dpu_source"
        source_step.mkdir(parents=True)
        shutil.copy(SOURCE_DIR / "toolchain" / "dpu_source.py", source_step)
        for proper in ("cc1", "cc1plus"):
            _write_tool(SOURCE_DIR / "toolchain" / "compiler-proper.in", source_step / proper,
                        emulator, compiler, proper=proper)
        libexec = emulator.root / "libexec"
        shutil.copy(SOURCE_DIR / "toolchain" / "check_memory.py", libexec / "check_memory.py")
        _build_dpu_library(emulator)
        _make_sdk_layout(emulator, compiler)
        done.write_text(json.dumps(_contents(emulator.root), indent=1, sort_keys=True))
    return emulator
