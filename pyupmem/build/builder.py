"""Compiling DPU programs for the active backend, cached by everything the compiler read.

:func:`build_program` runs the backend's ``dpu-upmem-dpurte-clang`` (the SDK's, or the
emulator's stand-in) on C sources given as paths or as source text, and caches the binary
in the per-user cache folder (``$PYUPMEM_CACHE_DIR``, else ``$XDG_CACHE_HOME/pyupmem``,
else ``~/.cache/pyupmem``), under ``programs/``.

**Source text or path.** A ``str`` that holds a newline, a ``{`` or a ``;`` is C source
text (no sensible file name holds one of those); any other ``str`` and every
``os.PathLike`` is a path. ``build_program("int main(void){return 0;}")`` is source text,
``build_program("kernel.c")`` a path.

**The cache is never stale.** A build is found again by two keys:

- the *invocation*: the backend and its folder, the compiler's identity (its file's
  contents, what ``--version`` prints, and the environment variables that change what it
  produces: ``PYUPMEM_HOST_CC``, ``PYUPMEM_HOST_CXX`` and ``PYUPMEM_EMU_COST`` on the
  emulator), every flag, the binary's name, and the sources' contents and paths;
- the *dependencies*: every file the compiler read, as it reported them itself
  (``-MD -MF``: headers reached through subfolders, ``include_dirs``, ``-I`` in
  ``extra_args`` and the system's alike), with their contents.

Changing any of them rebuilds into a new folder, so a :class:`~pyupmem.Program` already
returned keeps its binary; running a script again with nothing changed only hashes the
dependencies (their digests are remembered per file size and modification time).

**Checked on use.** Each build records its binary's size and SHA-256 (``build.json``
beside it); a cached binary that no longer matches (truncated, overwritten) is removed and
built again, with a :class:`~pyupmem.errors.CacheWarning`, never loaded. ``python -m
pyupmem cache verify`` checks every stored build (:mod:`pyupmem.build.cache`).

**Warnings and the log.** :attr:`Program.build_log <pyupmem.Program.build_log>` holds what
the compiler printed. When it printed warnings, the build issues one
:class:`~pyupmem.errors.CompileWarning` (silence it with the ``warnings`` filters).

**A private cache.** A cached binary runs as native code on the emulator, so the cache
refuses, with :class:`~pyupmem.errors.CacheFolderError`, a folder that another user owns
or that others can write, and creates its folders and files readable by the user only.

Example::

    program = build_program("kernel.c", nr_tasklets=16, defines={"BLOCK": 256})
    with DpuSet(64) as dpus:
        dpus.load(program)
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from pyupmem.build.program import Program
from pyupmem.driver.backend import Backend, find_backend
from pyupmem.driver.cache_folder import cache_dir, private_dir
from pyupmem.errors import (
    ArgumentTypeError,
    ArgumentValueError,
    BackendError,
    CacheWarning,
    CompileError,
    CompileWarning,
    SourceNotFoundError,
)

SourceLike = str | os.PathLike
"""A source: a path to a C file, or C source text (a ``str`` holding a newline, ``{`` or
``;``)."""

_CACHE_VERSION = "3"  # 3: each build carries build.json (its binary's hash)

RECORD_NAME = "build.json"
"""The file beside a cached binary that records its name, size and SHA-256."""

# Environment variables that change what the compiler produces (the emulator's wrapper
# reads them): part of the compiler's identity.
_COMPILER_ENV = ("PYUPMEM_HOST_CC", "PYUPMEM_HOST_CXX", "PYUPMEM_EMU_COST")

_file_digests: dict[tuple[str, int, int, int], str] = {}
_compiler_ids: dict[tuple[object, ...], str] = {}


def packaged_program(package: str, folder: str, name: str) -> Path:
    """The path of a DPU program source that an application package ships: the package
    data ``<package>/dpu_programs/<name>`` of an installed wheel (``setup.py`` maps the
    top-level ``dpu_programs/<folder>/`` there), else ``dpu_programs/<folder>/<name>`` of
    the source tree (an editable install runs from the checkout).

    Raises:
        FileNotFoundError: neither exists (a broken installation); the message says how
            to reinstall.
    """
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"{package!r} is not an installed package")
    here = Path(next(iter(spec.submodule_search_locations)))
    installed = here / "dpu_programs" / name
    if installed.is_file():
        return installed
    top = package.split(".")[0]
    tree = here.parents[package.count(".")] / "dpu_programs" / folder / name  # the checkout
    if tree.is_file():
        return tree
    raise FileNotFoundError(
        f"the DPU program {name} of {top} is missing: neither {installed} (an installed "
        f"wheel) nor {tree} (a source tree) exists. Fix: reinstall pyupmem (pip install "
        "--force-reinstall pyupmem, or pip install -e . in a checkout)"
    )


def is_source_text(source: SourceLike) -> bool:
    """Whether :func:`build_program` takes ``source`` as C source text rather than a path:
    a ``str`` holding a newline, a ``{`` or a ``;``."""
    return isinstance(source, str) and any(mark in source for mark in "\n{;")


def _file_digest(path: str) -> str | None:
    """The SHA-256 of a file's contents (remembered per size and mtime), None if missing."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    memo = (path, info.st_ino, info.st_size, info.st_mtime_ns)
    found = _file_digests.get(memo)
    if found is None:
        try:
            with open(path, "rb") as file:
                found = hashlib.file_digest(file, "sha256").hexdigest()
        except OSError:
            return None
        _file_digests[memo] = found
    return found


def _compiler_identity(compiler: Path) -> str:
    """The compiler file's contents, its ``--version`` output, and the environment that
    changes its output."""
    env = tuple(os.environ.get(name, "") for name in _COMPILER_ENV)
    try:
        info = compiler.stat()
        memo: tuple[object, ...] = (str(compiler), info.st_ino, info.st_size, info.st_mtime_ns, env)
    except OSError:
        return f"{compiler}:missing"
    found = _compiler_ids.get(memo)
    if found is None:
        try:
            version = subprocess.run(
                [str(compiler), "--version"], capture_output=True, text=True, timeout=60
            )
            printed = version.stdout + version.stderr
        except (OSError, subprocess.SubprocessError) as error:
            printed = f"--version failed: {error}"
        content = _file_digest(str(compiler.resolve())) or ""
        found = "\0".join((str(compiler.resolve()), content, printed, *env))
        _compiler_ids[memo] = found
    return found


def _parse_depfile(text: str) -> list[str]:
    """The prerequisites of a make rule as ``-MD`` writes it (continuations, ``\\ `` escapes)."""
    text = text.replace("\\\n", " ")
    _, _, prerequisites = text.partition(": ")
    paths: list[str] = []
    current = ""
    index = 0
    while index < len(prerequisites):
        char = prerequisites[index]
        if char == "\\" and index + 1 < len(prerequisites) and prerequisites[index + 1] in " #":
            current += prerequisites[index + 1]
            index += 2
            continue
        if char == "$" and prerequisites[index + 1 : index + 2] == "$":
            current += "$"
            index += 2
            continue
        if char.isspace():
            if current:
                paths.append(current)
            current = ""
        else:
            current += char
        index += 1
    if current:
        paths.append(current)
    return paths


def _dependency_digest(paths: Sequence[str]) -> str | None:
    """One digest over every dependency's path and contents (None when one is missing)."""
    digest = hashlib.sha256()
    for path in sorted(set(paths)):
        content = _file_digest(path)
        if content is None:
            return None
        digest.update(path.encode() + b"\0" + content.encode() + b"\0")
    return digest.hexdigest()[:20]


def _write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, readable by the user only."""
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def _sha256(path: Path) -> str:
    # Not _file_digest's memo: a binary overwritten within one timestamp tick keeps its
    # size and mtime, and a check that can be fooled is no check.
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def check_cached_build(folder: Path) -> str | None:
    """What is wrong with the cached build in ``folder`` (a binary and its
    ``build.json``), or None when the binary is there with the recorded size and hash."""
    try:
        record = json.loads((folder / RECORD_NAME).read_text())
        name, size, digest = record["binary"], record["size"], record["sha256"]
    except FileNotFoundError:
        return f"no {RECORD_NAME} (a build pyupmem did not finish)"
    except (OSError, ValueError, KeyError, TypeError):
        return f"its {RECORD_NAME} is unreadable"
    binary = folder / str(name)
    try:
        found_size = binary.stat().st_size
    except OSError:
        return f"the binary {name} is missing"
    if found_size != size:
        return f"the binary {name} has {found_size} bytes where {size} were built"
    if _sha256(binary) != digest:
        return f"the binary {name} differs from the one built (SHA-256)"
    return None


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold ``folder``'s lock: publishing a build and checking one never interleave, so a
    check never sees a binary without its record."""
    fd = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _tasklets_and_defines(
    nr_tasklets: object, defines: Mapping[str, object] | None
) -> tuple[int, dict[str, object]]:
    """The checked tasklet count, whether given as ``nr_tasklets=`` or as
    ``defines["NR_TASKLETS"]`` (one ``-DNR_TASKLETS``, and ``Program.nr_tasklets`` tells
    it), and the other defines."""
    others = dict(defines or {})
    label = "nr_tasklets"
    if "NR_TASKLETS" in others:
        given = others.pop("NR_TASKLETS")
        if nr_tasklets is not None:
            raise ArgumentValueError(
                f"the tasklet count is given twice: nr_tasklets={nr_tasklets!r} and "
                f"defines={{'NR_TASKLETS': {given!r}}}. Fix: give nr_tasklets= only"
            )
        label = 'defines["NR_TASKLETS"]'
        if given is None or given is True:
            raise ArgumentValueError(
                f"{label} needs a number of tasklets (1..24), got {given!r}. Fix: give "
                "nr_tasklets=n instead"
            )
        nr_tasklets = given
        if isinstance(given, str) and given.strip().isdigit():
            nr_tasklets = int(given)
    if nr_tasklets is None:
        nr_tasklets = 16
    if isinstance(nr_tasklets, bool) or not isinstance(nr_tasklets, int):
        raise ArgumentTypeError(
            f"{label} must be an int, got {type(nr_tasklets).__name__} {nr_tasklets!r}"
        )
    if not 1 <= nr_tasklets <= 24:
        raise ArgumentValueError(
            f"{label} must be in 1..24 (a DPU has 24 hardware threads), got {nr_tasklets}"
        )
    return nr_tasklets, others


def build_program(
    sources: SourceLike | Sequence[SourceLike],
    *,
    nr_tasklets: int | None = None,
    defines: Mapping[str, object] | None = None,
    include_dirs: Sequence[str | os.PathLike] = (),
    opt_level: int | str = 2,
    debug: bool = True,
    extra_args: Sequence[str] = (),
    name: str | None = None,
    backend: Backend | str | None = None,
    cache: bool = True,
) -> Program:
    """Compile DPU C sources for the active backend and return the :class:`Program`.

    Args:
        sources: a path, source text (a ``str`` with a newline, ``{`` or ``;`` in it), or a
            sequence of them.
        nr_tasklets: passed as ``-DNR_TASKLETS=n`` (1 to 24; default 16).
        defines: extra ``-D`` macros; a value of ``None`` or ``True`` gives ``-DNAME``.
            ``NR_TASKLETS`` given here is the same as ``nr_tasklets=`` (checked the same
            way, and what :attr:`Program.nr_tasklets` says); giving both is refused.
        include_dirs: extra ``-I`` folders. A source given by path also sees its own folder.
        opt_level: the optimisation level: ``0``, ``1``, ``2``, ``3``, ``"s"`` ...
        debug: add ``-g`` (default True): the debug information gives the symbols their C
            types (:attr:`pyupmem.Symbol.dtype`), so transfers know them. False passes
            ``-g0`` (the emulator's compiler adds ``-g`` unless told otherwise).
        extra_args: further compiler arguments, passed as they are.
        name: the binary's file name (default: the first source's stem, or ``program``).
        backend: a :class:`~pyupmem.driver.backend.Backend`, a backend name, or None (default).
        cache: reuse a cached binary built from the same inputs (default True).

    Returns:
        The compiled program; ``program.path`` is its binary in the cache and
        ``program.build_log`` what the compiler printed.

    Raises:
        CompileError: the compiler failed; the exception carries its messages.
        BackendError: the backend has no DPU compiler.
        SourceNotFoundError: a source path does not exist (a ``FileNotFoundError``).
        CacheFolderError: the cache folder is not private (a ``PermissionError``).
        ArgumentValueError: ``nr_tasklets`` (or ``defines["NR_TASKLETS"]``) out of range
            or given twice, no source, or a ``name`` that is not a plain file name (a
            ``ValueError``).
        ArgumentTypeError: an argument of the wrong type (a ``TypeError``).
    """
    if not isinstance(backend, Backend):
        backend = find_backend(backend)
    if backend.compiler is None:
        raise BackendError(
            f"the {backend.kind} backend ({backend.library}) has no dpu-upmem-dpurte-clang: "
            "put the SDK's bin folder on PATH or set UPMEM_HOME"
        )
    nr_tasklets, defines = _tasklets_and_defines(nr_tasklets, defines)
    items = [sources] if isinstance(sources, str | os.PathLike) else list(sources)
    if not items:
        raise ArgumentValueError("build_program needs at least one source (a path or C text)")
    if name is not None and (
        not isinstance(name, str)
        or not name
        or "/" in name
        or "\0" in name
        or name in (".", "..")
    ):
        raise ArgumentValueError(
            f"name must be a plain file name (non-empty, no '/' or NUL, not '.' or '..'), "
            f"got {name!r}; it names the binary inside the cache"
        )
    if isinstance(extra_args, str):
        raise ArgumentTypeError("extra_args must be a sequence of arguments, not one str")

    texts: list[tuple[str, bytes, Path | None]] = []  # (label, content, path)
    for index, item in enumerate(items):
        if is_source_text(item):
            texts.append((f"source{index}.c", str(item).encode(), None))
        elif isinstance(item, str | os.PathLike):
            path = Path(item).resolve()
            if not path.is_file():
                raise SourceNotFoundError(
                    f"DPU source not found: {path}. A str is read as a path unless it holds a "
                    "newline, '{' or ';' (then it is C source text)"
                )
            texts.append((path.name, path.read_bytes(), path))
        else:
            raise ArgumentTypeError(
                f"a source is a path or C source text, got {type(item).__name__}"
            )

    flags = [f"-O{opt_level}", f"-DNR_TASKLETS={nr_tasklets}"]
    flags.append("-g" if debug else "-g0")
    for key, value in defines.items():
        flags.append(f"-D{key}" if value is None or value is True else f"-D{key}={value}")
    flags += [f"-I{Path(d).resolve()}" for d in include_dirs]
    flags += [str(arg) for arg in extra_args]

    if name is None:
        first = texts[0]
        name = first[2].stem if first[2] is not None else "program"

    digest = hashlib.sha256()
    for part in (
        _CACHE_VERSION,
        backend.kind,
        _compiler_identity(backend.compiler),
        str(backend.root),
        # relative -I folders in extra_args are read from the working folder; without
        # extra_args nothing is, and a program (pyupmem.array's kernels) built from any
        # folder, a fresh checkout's included, is one cache entry
        os.getcwd() if extra_args else "",
        *flags,
        name,
    ):
        digest.update(part.encode())
        digest.update(b"\0")
    for label, content, path in texts:
        digest.update(label.encode() + b"\0" + hashlib.sha256(content).digest())
        digest.update(str(path or "").encode() + b"\0")
    key = digest.hexdigest()[:20]

    root = cache_dir()
    folder = private_dir(root / "programs" / key, root)
    sources_tuple = tuple(str(p) if p else label for label, _, p in texts)
    manifest = folder / "manifest.json"

    if cache:
        with _locked(folder):
            found = _cached(folder, manifest, name)
        if found is not None:
            binary, log = found
            return Program(binary, nr_tasklets=nr_tasklets, sources=sources_tuple, build_log=log)

    source_paths: list[str] = []
    for label, content, path in texts:
        if path is None:
            text_path = folder / label
            if not text_path.is_file() or text_path.read_bytes() != content:
                _write_private(text_path, content)
            source_paths.append(str(text_path))
        else:
            source_paths.append(str(path))

    work = Path(tempfile.mkdtemp(prefix=".build-", dir=folder))
    try:
        binary, log, dependencies = _compile(backend.compiler, flags, source_paths, work, name)
        dependency_digest = _dependency_digest(dependencies) or "unknown"
        os.chmod(binary, 0o700)
        record = {"binary": name, "size": binary.stat().st_size, "sha256": _sha256(binary)}
        with _locked(folder):
            final_folder = private_dir(folder / dependency_digest)
            final = final_folder / name
            os.replace(binary, final)
            _write_private(final_folder / "build.log", log.encode())
            _write_private(final_folder / RECORD_NAME, json.dumps(record).encode())
            _write_private(
                manifest,
                json.dumps({"dependencies": sorted(set(dependencies)), "name": name}).encode(),
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if "warning" in log:
        warnings.warn(
            CompileWarning(
                f"the DPU compiler warned while building {name} "
                f"(Program.build_log holds its output):\n{log.rstrip()}"
            ),
            stacklevel=2,
        )
    return Program(final, nr_tasklets=nr_tasklets, sources=sources_tuple, build_log=log)


def _cached(folder: Path, manifest: Path, name: str) -> tuple[Path, str] | None:
    """The binary and log of an earlier build whose dependencies are all unchanged and
    whose binary passes :func:`check_cached_build` (one that fails is removed, with a
    :class:`CacheWarning`). Called with the folder's lock held."""
    try:
        recorded = json.loads(manifest.read_text())
        dependencies = recorded["dependencies"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    dependency_digest = _dependency_digest(dependencies)
    if dependency_digest is None:
        return None
    binary = folder / dependency_digest / name
    if not binary.is_file():
        return None
    problem = check_cached_build(binary.parent)
    if problem is not None:
        shutil.rmtree(binary.parent, ignore_errors=True)
        warnings.warn(
            CacheWarning(
                f"the cached DPU program {binary} is damaged ({problem}); pyupmem removed it "
                "and is building it again"
            ),
            stacklevel=3,
        )
        return None
    try:
        log = (binary.parent / "build.log").read_text()
    except OSError:
        log = ""
    return binary, log


def _compile(
    compiler: Path, flags: list[str], sources: list[str], work: Path, name: str
) -> tuple[Path, str, list[str]]:
    """Run the compiler in ``work``; return the binary, the log and the files it read.

    One source is compiled and linked by one command; several are compiled one by one
    (``-c``, so that each writes its own dependency file) and then linked.
    """
    output = work / name
    commands: list[tuple[list[str], Path | None]] = []
    if len(sources) == 1:
        depfile = work / "deps0.d"
        commands.append(
            (
                [str(compiler), *flags, "-MD", "-MF", str(depfile), "-o", str(output), sources[0]],
                depfile,
            )
        )
    else:
        objects = []
        for index, source in enumerate(sources):
            depfile = work / f"deps{index}.d"
            obj = work / f"object{index}.o"
            objects.append(str(obj))
            commands.append(
                (
                    [
                        str(compiler),
                        *flags,
                        "-c",
                        "-MD",
                        "-MF",
                        str(depfile),
                        "-o",
                        str(obj),
                        source,
                    ],
                    depfile,
                )
            )
        commands.append(([str(compiler), *flags, "-o", str(output), *objects], None))
    log = ""
    dependencies: list[str] = list(sources)
    for command, depfile in commands:
        result = subprocess.run(command, capture_output=True, text=True)
        log += result.stdout + result.stderr
        if result.returncode != 0:
            raise CompileError(command, result.returncode, log)
        if depfile is not None:
            try:
                listed = _parse_depfile(depfile.read_text())
            except OSError:
                listed = []
            dependencies += [os.path.abspath(path) for path in listed]
    return output, log, dependencies
