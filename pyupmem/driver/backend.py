"""Finding and loading a ``libdpu``: UPMEM's SDK (hardware or its simulator) or the emulator.

Order of choice, first match wins:

1. An explicit backend, by argument or ``PYUPMEM_BACKEND`` (``emulator`` or ``sdk``),
   overrides the search below: ``emulator`` uses the bundled emulator (built on first
   use) and ``sdk`` uses the SDK's library and fails if there is none.
2. An explicit library path, by argument or ``PYUPMEM_LIBDPU``.
3. The SDK's library: ``$UPMEM_HOME/lib/libdpu.so``, then the system's (``/usr/lib``,
   ``/usr/local/lib`` ..., then the dynamic loader's search).
4. The bundled emulator.

With ``backend="sdk"`` an explicit library path is used as the SDK's library, and with
``backend="emulator"`` as an emulator build. The SDK's ``libdpu`` picks hardware or its
simulator from the profile (``backend=hw`` / ``backend=simulator``).
"""

from __future__ import annotations

import ctypes.util
import glob
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pyupmem.driver import libdpu as C
from pyupmem.errors import BackendError, DpuError, PyUpmemError, make_error

BackendKind = Literal["emulator", "sdk"]
"""The two kinds of backend: ``"emulator"`` (bundled) or ``"sdk"`` (UPMEM's libdpu)."""

BACKEND_ENV = "PYUPMEM_BACKEND"
"""Environment variable naming the backend: ``emulator`` or ``sdk``."""
LIBDPU_ENV = "PYUPMEM_LIBDPU"
"""Environment variable giving the path of the libdpu to use."""

DPU_DEVICES = "/dev/dpu_rank*"
"""The device files of the UPMEM driver, one per rank of DPU hardware on this machine."""

_SYSTEM_LIB_DIRS = (
    "/usr/lib",
    "/usr/local/lib",
    "/usr/lib64",
    "/usr/lib/x86_64-linux-gnu",
    "/opt/upmem/lib",
)


# DpuSet's arguments that become the emulator's profile keys: named in its messages.
_ARGUMENT_OF_KEY = {
    "emuStrict": "strict=",
    "emuSchedule": "schedule=",
    "sgXferEnable": "scatter_gather=",
    "sgXferMaxBlocksPerDpu": "scatter_gather=",
}


def _profile_problem(lib: C.LibDpu) -> str:
    """Why the emulator refused this thread's last profile, or "" for another library."""
    if "dpu_emu_profile_error" not in lib.extensions:
        return ""
    text = (lib.dpu_emu_profile_error() or b"").decode("utf-8", "replace")  # type: ignore[attr-defined]
    for key, argument in _ARGUMENT_OF_KEY.items():
        if text.startswith(f"profile key {key}="):
            text += f" (DpuSet's {argument} gives this key)"
    return text


@dataclass
class Backend:
    """A loaded libdpu and the DPU compiler that goes with it.

    Attributes:
        kind: ``"emulator"`` or ``"sdk"``.
        library: the path (or loader name) of the libdpu.
        compiler: the ``dpu-upmem-dpurte-clang`` to build DPU programs with, if found.
        lib: the typed ctypes binding (:class:`pyupmem.driver.libdpu.LibDpu`).
        root: the emulator build folder or the SDK's ``UPMEM_HOME``, when known.
    """

    kind: BackendKind
    library: str
    compiler: Path | None
    lib: C.LibDpu = field(repr=False)
    root: Path | None = None

    def status_error(self, status: int, call: str, detail: str = "", **extra: object) -> DpuError:
        """The exception for ``status`` returned by ``call``.

        On the emulator the status is read in the 2024+ numbering. On the SDK the library's
        own ``dpu_error_to_string`` names it, so that an SDK that numbers differently
        (2020.x) still maps to the right exception class.
        """
        message = self.lib.error_string(status)
        if status == C.DPU_ERR_INVALID_PROFILE:
            detail = _profile_problem(self.lib) + (f" ({detail})" if detail else "")
        code = status
        if self.kind == "sdk":
            base = status & 0xFFFF if status & C.DPU_ERR_ASYNC_JOBS else status
            mapped = C.ERROR_BY_MESSAGE.get(message)
            if mapped is not None and mapped != base:
                code = mapped
        return make_error(code, call, message=message, detail=detail, **extra)

    def check(self, status: int, call: str, detail: str = "") -> None:
        """Raise :meth:`status_error` unless ``status`` is ``DPU_OK``."""
        if status:
            raise self.status_error(status, call, detail)

    def capacity(self, profile: str = "") -> tuple[int, int]:
        """``(DPUs, ranks)`` that ``dpu_alloc(DPU_ALLOCATE_ALL, profile)`` gives now.

        Allocates every DPU, counts, and frees them again.
        """
        dpu_set = C.dpu_set_t()
        lib = self.lib
        self.check(
            lib.dpu_alloc(C.DPU_ALLOCATE_ALL, profile.encode(), ctypes.byref(dpu_set)),  # type: ignore[attr-defined]
            "dpu_alloc",
        )
        try:
            dpus = ctypes.c_uint32()
            ranks = ctypes.c_uint32()
            self.check(lib.dpu_get_nr_dpus(dpu_set, ctypes.byref(dpus)), "dpu_get_nr_dpus")  # type: ignore[attr-defined]
            self.check(lib.dpu_get_nr_ranks(dpu_set, ctypes.byref(ranks)), "dpu_get_nr_ranks")  # type: ignore[attr-defined]
        finally:
            lib.dpu_free(dpu_set)  # type: ignore[attr-defined]
        return dpus.value, ranks.value


    def allocation_hint(self, profile: str = "", devices: str = DPU_DEVICES,
                        given: str | None = None) -> str:
        """The cause of a failed allocation and the fix, for its error message: what is
        free now and how to get more; on the SDK with no DPU to allocate at all, whether
        that is because this machine has no DPU hardware (no ``devices``) and the profile
        does not ask for the SDK's simulator, or because the simulator did not start.
        ``given`` is the profile the caller wrote (default ``profile``): on the emulator,
        the hint names the limit the caller set, its ``nrRanks`` or the environment's."""
        try:
            dpus, ranks = self.capacity(profile)
        except PyUpmemError:
            dpus = ranks = 0
        if self.kind == "sdk" and dpus == 0:
            asked = {
                key.strip().lower(): value.strip().lower()
                for key, _, value in (item.partition("=") for item in profile.split(","))
            }
            if asked.get("backend") == "simulator":
                return (
                    f"; the SDK's simulator gave no DPU (the SDK's libdpu: {self.library}). "
                    "Fix: check the SDK install (UPMEM_HOME and the simulator libraries in "
                    f"its lib folder), or use pyupmem's emulator ({BACKEND_ENV}=emulator)"
                )
            if not glob.glob(devices):
                return (
                    f"; this machine has no DPU hardware (no {devices} device of the UPMEM "
                    "driver) and the profile does not ask for the SDK's simulator. Fix: "
                    "run on a machine with UPMEM DIMMs and their driver, use the SDK's "
                    "simulator (profile 'backend=simulator'), or use pyupmem's emulator "
                    f"({BACKEND_ENV}=emulator, or DpuSet(..., backend='emulator'))"
                )
            return (
                f"; {len(glob.glob(devices))} DPU ranks are on this machine and none is "
                "free now. Fix: free other sets, or wait for the other processes that hold "
                "them"
            )
        hint = f"; {dpus} DPUs ({ranks} ranks) are free now. Fix: ask for fewer or free other sets"
        if self.kind != "emulator":
            return hint
        given = profile if given is None else given
        keys = dict(item.partition("=")[::2] for item in given.split(",") if item)
        if "nrRanks" in keys:
            return hint + (f", or raise nrRanks (your profile gives nrRanks={keys['nrRanks']}; "
                           "64 DPUs per rank)")
        environment = os.environ.get("PYUPMEM_EMU_NR_RANKS")
        if environment:
            return hint + (f", or raise PYUPMEM_EMU_NR_RANKS (now {environment}; 64 DPUs per "
                           "rank)")
        return hint + (", or emulate a larger system (64 DPUs per rank): for instance set "
                       "PYUPMEM_EMU_NR_RANKS=N in the environment, or give this set the profile "
                       "key nrRanks=N")


_cache: dict[tuple[str | None, str | None], Backend] = {}


def _sdk_library(upmem_home: str | None) -> str | None:
    # An UPMEM_HOME that `python -m pyupmem env` pointed at the emulator's SDK layout holds
    # the emulator's libdpu, not the SDK's.
    if upmem_home:
        candidate = Path(upmem_home) / "lib" / "libdpu.so"
        if candidate.is_file() and not _is_emulator_library(str(candidate)):
            return str(candidate)
    for directory in _SYSTEM_LIB_DIRS:
        candidate = Path(directory) / "libdpu.so"
        if candidate.is_file():
            return str(candidate)
    return ctypes.util.find_library("dpu")


def _sdk_compiler(library: str, upmem_home: str | None) -> Path | None:
    candidates = []
    if upmem_home:
        candidates.append(Path(upmem_home) / "bin" / "dpu-upmem-dpurte-clang")
    library_path = Path(library)
    if library_path.is_absolute():
        candidates.append(library_path.parent.parent / "bin" / "dpu-upmem-dpurte-clang")
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    found = shutil.which("dpu-upmem-dpurte-clang")
    return Path(found) if found else None


def sdk_bin_dir() -> Path | None:
    """The folder of the SDK's own tools (``dpu-upmem-dpurte-clang`` ...): ``bin`` beside
    the ``lib`` of the SDK's libdpu, when there is one; None without an SDK."""
    library = os.environ.get(LIBDPU_ENV) or _sdk_library(os.environ.get("UPMEM_HOME"))
    if library is None or not Path(library).is_absolute():
        return None
    folder = Path(library).resolve().parent.parent / "bin"
    return folder if folder.is_dir() else None


def _is_emulator_library(library: str) -> bool:
    root = Path(library).resolve().parent.parent
    return (root / "include" / "dpu" / "_dpu_program.h").is_file()


def _open_emulator(library: str | None) -> Backend:
    if library is None:
        from pyupmem import emu

        emulator = emu.build()
        library = str(emulator.libdpu)
        root = emulator.root
        compiler: Path | None = emulator.dpu_compiler
    else:
        root = Path(library).resolve().parent.parent
        compiler = root / "bin" / "dpu-upmem-dpurte-clang"
        if not compiler.is_file():
            compiler = None
    try:
        lib = C.LibDpu.open(library, frees_error_strings=True)
    except OSError as error:
        raise BackendError(f"cannot load the emulator's libdpu {library}: {error}") from error
    if "dpu_emu_report_profile_errors" in lib.extensions:
        lib.dpu_emu_report_profile_errors(False)  # type: ignore[attr-defined]  # raised instead
    return Backend("emulator", library, compiler, lib, root)


def _open_sdk(library: str) -> Backend:
    upmem_home = os.environ.get("UPMEM_HOME")
    try:
        # Never free dpu_error_to_string's result on the SDK: 2020.x returns static strings
        # and 2024.2 keeps them; leaking one string per status beats a double free.
        lib = C.LibDpu.open(library, frees_error_strings=False)
    except OSError as error:
        raise BackendError(f"cannot load the SDK's libdpu {library}: {error}") from error
    return Backend(
        "sdk",
        library,
        _sdk_compiler(library, upmem_home),
        lib,
        Path(upmem_home) if upmem_home else None,
    )


def _explicit_kind(backend: str | None) -> BackendKind | None:
    kind = backend if backend is not None else (os.environ.get(BACKEND_ENV) or None)
    if kind is None:
        return None
    kind = kind.strip().lower()
    if kind in ("emu", "emulated"):
        kind = "emulator"
    if kind not in ("emulator", "sdk"):
        raise BackendError(
            f"unknown backend {kind!r}: use 'emulator' or 'sdk' "
            f"(argument backend= or ${BACKEND_ENV})"
        )
    return kind  # type: ignore[return-value]


def selected_kind(
    backend: str | None = None, library: str | os.PathLike | None = None
) -> BackendKind:
    """The kind of backend :func:`find_backend` would choose with these arguments, found
    without loading any library (``python -m pyupmem env`` asks it).

    Raises:
        BackendError: an unknown backend name.
    """
    kind = _explicit_kind(backend)
    if kind is not None:
        return kind
    path = os.fspath(library) if library is not None else (os.environ.get(LIBDPU_ENV) or None)
    if path is not None:
        return "emulator" if _is_emulator_library(path) else "sdk"
    return "sdk" if _sdk_library(os.environ.get("UPMEM_HOME")) is not None else "emulator"


def find_backend(backend: str | None = None, library: str | os.PathLike | None = None) -> Backend:
    """Find, load and return a backend (see the module documentation for the order).

    Args:
        backend: ``"emulator"`` or ``"sdk"``; default ``$PYUPMEM_BACKEND``, else automatic.
        library: path of a libdpu; default ``$PYUPMEM_LIBDPU``.

    Results are cached per (backend, library), so the library is loaded once per process.

    Raises:
        BackendError: an unknown backend name, no SDK library for ``backend="sdk"``, or a
            library that cannot be loaded.
    """
    kind = _explicit_kind(backend)
    path = os.fspath(library) if library is not None else (os.environ.get(LIBDPU_ENV) or None)
    key = (kind, path)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    if kind == "emulator":
        result = _open_emulator(path)
    elif kind == "sdk":
        sdk = path or _sdk_library(os.environ.get("UPMEM_HOME"))
        if sdk is None:
            raise BackendError(
                "backend 'sdk' was asked for but no libdpu.so was found "
                "($UPMEM_HOME/lib, /usr/lib, the loader's path); install the UPMEM SDK, "
                f"set UPMEM_HOME or {LIBDPU_ENV}, or use {BACKEND_ENV}=emulator"
            )
        result = _open_sdk(sdk)
    elif path is not None:
        if _is_emulator_library(path):
            result = _open_emulator(path)
        else:
            result = _open_sdk(path)
    else:
        sdk = _sdk_library(os.environ.get("UPMEM_HOME"))
        result = _open_sdk(sdk) if sdk is not None else _open_emulator(None)
    _cache[key] = result
    return result


def default_backend() -> Backend:
    """The backend that :func:`find_backend` chooses with no arguments (cached)."""
    return find_backend()
