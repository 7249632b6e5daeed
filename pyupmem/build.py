"""Compiling DPU programs for the active backend, cached by content.

:func:`build_program` runs the backend's ``dpu-upmem-dpurte-clang`` (the SDK's, or the
emulator's stand-in) on C sources given as paths or as source text, and caches the binary
in the per-user cache folder (``$PYUPMEM_CACHE_DIR``, else ``$XDG_CACHE_HOME/pyupmem``,
else ``~/.cache/pyupmem``), under ``programs/``. The cache key covers the backend and its
compiler, every option, the sources' contents and the contents of the ``*.h`` files in
the sources' folders and in the include folders, so editing a kernel or a header beside
it rebuilds, and running a script again does not.

Example::

    program = build_program("kernel.c", nr_tasklets=16, defines={"BLOCK": 256})
    with DpuSet(64) as dpus:
        dpus.load(program)
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from pyupmem._cache import cache_dir
from pyupmem.backend import Backend, find_backend
from pyupmem.errors import BackendError, CompileError
from pyupmem.program import Program

SourceLike = str | os.PathLike
"""A source: a path to a C file, or C source text (a ``str`` holding a newline)."""

_CACHE_VERSION = "1"


def _is_source_text(source: SourceLike) -> bool:
    return isinstance(source, str) and "\n" in source


def _header_digest(directories: Iterable[Path]) -> list[tuple[str, bytes]]:
    items: list[tuple[str, bytes]] = []
    seen: set[Path] = set()
    for directory in directories:
        directory = directory.resolve()
        if directory in seen or not directory.is_dir():
            continue
        seen.add(directory)
        for header in sorted(directory.glob("*.h")):
            if header.is_file():
                items.append((str(header), hashlib.sha256(header.read_bytes()).digest()))
    return items


def _compiler_identity(compiler: Path) -> str:
    try:
        stat = compiler.stat()
        return f"{compiler.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"
    except OSError:
        return str(compiler)


def build_program(
    sources: SourceLike | Sequence[SourceLike],
    *,
    nr_tasklets: int = 16,
    defines: Mapping[str, object] | None = None,
    include_dirs: Sequence[str | os.PathLike] = (),
    opt_level: int | str = 2,
    debug: bool = False,
    extra_args: Sequence[str] = (),
    name: str | None = None,
    backend: Backend | str | None = None,
    cache: bool = True,
) -> Program:
    """Compile DPU C sources for the active backend and return the :class:`Program`.

    Args:
        sources: a path, source text (a ``str`` with a newline in it), or a sequence of them.
        nr_tasklets: passed as ``-DNR_TASKLETS=n`` (1 to 24).
        defines: extra ``-D`` macros; a value of ``None`` or ``True`` gives ``-DNAME``.
        include_dirs: extra ``-I`` folders. A source given by path also sees its own folder.
        opt_level: the optimisation level: ``0``, ``1``, ``2``, ``3``, ``"s"`` ...
        debug: add ``-g``.
        extra_args: further compiler arguments, passed as they are.
        name: the binary's file name (default: the first source's stem, or ``program``).
        backend: a :class:`~pyupmem.backend.Backend`, a backend name, or None (default).
        cache: reuse a cached binary built from the same inputs (default True).

    Returns:
        The compiled program; ``program.path`` is its binary in the cache.

    Raises:
        CompileError: the compiler failed; the exception carries its messages.
        BackendError: the backend has no DPU compiler.
        FileNotFoundError: a source path does not exist.
        ValueError: ``nr_tasklets`` is out of range or no source was given.
    """
    if not isinstance(backend, Backend):
        backend = find_backend(backend)
    if backend.compiler is None:
        raise BackendError(
            f"the {backend.kind} backend ({backend.library}) has no dpu-upmem-dpurte-clang: "
            "put the SDK's bin folder on PATH or set UPMEM_HOME"
        )
    if not 1 <= int(nr_tasklets) <= 24:
        raise ValueError(f"nr_tasklets must be in 1..24, got {nr_tasklets}")
    items = [sources] if isinstance(sources, str | os.PathLike) else list(sources)
    if not items:
        raise ValueError("build_program needs at least one source")

    texts: list[tuple[str, bytes, Path | None]] = []  # (label, content, path)
    search_dirs = [Path(d) for d in include_dirs]
    for index, item in enumerate(items):
        if _is_source_text(item):
            texts.append((f"source{index}.c", str(item).encode(), None))
        else:
            path = Path(item).resolve()
            if not path.is_file():
                raise FileNotFoundError(f"DPU source not found: {path}")
            texts.append((path.name, path.read_bytes(), path))
            search_dirs.append(path.parent)

    flags = [f"-O{opt_level}", f"-DNR_TASKLETS={int(nr_tasklets)}"]
    if debug:
        flags.append("-g")
    for key, value in (defines or {}).items():
        flags.append(f"-D{key}" if value is None or value is True else f"-D{key}={value}")
    flags += [f"-I{Path(d).resolve()}" for d in include_dirs]
    flags += list(extra_args)

    if name is None:
        first = texts[0]
        name = first[2].stem if first[2] is not None else "program"

    digest = hashlib.sha256()
    for part in (
        _CACHE_VERSION,
        backend.kind,
        _compiler_identity(backend.compiler),
        str(backend.root),
        *flags,
        name,
    ):
        digest.update(part.encode())
        digest.update(b"\0")
    for label, content, path in texts:
        digest.update(label.encode() + b"\0" + hashlib.sha256(content).digest())
        digest.update(str(path.parent if path else "").encode())
    for header, header_digest in _header_digest(search_dirs):
        digest.update(header.encode() + b"\0" + header_digest)
    key = digest.hexdigest()[:20]

    folder = cache_dir() / "programs" / key
    binary = folder / name
    program = Program(
        binary,
        nr_tasklets=int(nr_tasklets),
        sources=tuple(str(p) if p else label for label, _, p in texts),
    )
    if cache and binary.is_file():
        return program

    folder.mkdir(parents=True, exist_ok=True)
    source_paths: list[str] = []
    for label, content, path in texts:
        if path is None:
            text_path = folder / label
            text_path.write_bytes(content)
            source_paths.append(str(text_path))
        else:
            source_paths.append(str(path))
    fd, temporary = tempfile.mkstemp(prefix=f".{name}.", dir=folder)
    os.close(fd)
    command = [str(backend.compiler), *flags, "-o", temporary, *source_paths]
    try:
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise CompileError(command, result.returncode, result.stdout + result.stderr)
        os.replace(temporary, binary)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return program
