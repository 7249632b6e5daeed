"""The workloads the mapping search knows: fully connected layers (GEMV and batched GEMM,
int8 and int32) and two PrIM-style kernels (vector addition, reduction), and
:class:`ProgramWorkload` for a user's own DPU program.

A built-in workload's run takes one DPU of the mapping: every DPU gets an equal share
(the last ones a little less), so the DPU with the largest share sets the kernel's time.
The workload emulates that one DPU, with its real data, and adds the launch's own cost
for the mapping's DPU count and the host transfers the model gives for it (a broadcast,
a scatter or a gather over all the mapping's DPUs, or one copy per DPU when transfers are
serial). So a mapping of 2,560 DPUs costs the emulation of one, and its estimate is what
the time model gives the whole run. The weights of a layer are loaded once and stay on
the DPUs; their transfer is left out unless ``include_weights``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import pyupmem
import pyupmem as pim
from pyupmem.build.builder import packaged_program

from .environment import InvalidMapping, Workload
from .space import Parameter, Space

PROGRAMS = packaged_program("rl.mapping", "mapping", "fc.c").parent
"""The folder of the built-in workloads' DPU programs: inside the installed package, or
``dpu_programs/mapping`` of the source tree (:func:`pyupmem.build.builder.packaged_program`)."""
HEAP = pim.DPU_MRAM_HEAP_POINTER_NAME
"""The symbol of the MRAM heap, where the programs keep their data."""
MRAM_BYTES = 64 << 20
"""One DPU's MRAM."""
BATCH_MAX = 16
"""The most input vectors ``fc.c`` takes per launch (it writes that many sums per row)."""
LOADED_VARIANTS = 8
"""Program variants a workload keeps loaded, one DPU each (each takes a rank)."""

DPUS = (64, 128, 256, 512, 1024, 2048, 2560)
"""The DPU counts of the built-in spaces: one rank to a full server."""
TASKLETS = (1, 2, 4, 8, 11, 16, 24)
"""The tasklet counts of the built-in spaces (11 saturates the pipeline; 24 is v1A's most)."""
BLOCKS = (64, 128, 256, 512, 1024, 2048)
"""The DMA block sizes of the built-in spaces, in bytes (2,048 is a DMA's most)."""


def _check_host_bytes(what: str, nbytes: int, fix: str) -> None:
    """A ValueError unless ``nbytes`` (the workload's data, which it holds on the host to
    emulate a DPU's share with real values) fits in half of this machine's memory."""
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    if nbytes > memory // 2:
        raise ValueError(f"{what} is {nbytes / 2**30:,.1f} GiB, more than half of this "
                         f"machine's {memory / 2**30:,.0f} GiB of memory, where the search "
                         f"keeps it: {fix}")


def _phases(cpu_dpu: float, kernel: float, dpu_cpu: float) -> dict[str, float]:
    return {pim.CPU_DPU: cpu_dpu, pim.DPU_KERNEL: kernel, pim.DPU_CPU: dpu_cpu}


def _copy_seconds(kind: str, serial: bool, bytes_per_dpu: int, nr_dpus: int) -> float:
    """A transfer of ``bytes_per_dpu`` to or from each of ``nr_dpus`` DPUs: one call over
    all of them, or with ``serial`` one ``dpu_copy_to``/``dpu_copy_from`` per DPU."""
    if serial:
        one = "write" if kind in ("scatter", "broadcast") else "read"
        return nr_dpus * pim.estimate.model.transfer_seconds(one, bytes_per_dpu, 1)
    return pim.estimate.model.transfer_seconds(kind, bytes_per_dpu, nr_dpus)


class _OneDpuWorkload(Workload):
    """What the built-in workloads share: building a variant, one loaded DPU per variant,
    and a launch whose fault is the mapping's invalidity."""

    source: Path
    loaded_variants = LOADED_VARIANTS
    """Program variants kept loaded (least recently used out)."""

    def __init__(self, space: Space):
        super().__init__(space)
        self._sets: dict[Path, pyupmem.DpuSet] = {}

    def _dpu(self, tasklets: int, defines: dict[str, object]) -> tuple[Path, pyupmem.DpuSet]:
        """The loaded DPU of a variant, and the variant's binary (the pool's key)."""
        name = "-".join(f"{k}{v}" for k, v in sorted(defines.items()))
        program = pim.build_program(
            self.source, nr_tasklets=tasklets, defines=defines, debug=False,
            name=f"{self.source.stem}-{tasklets}-{name}", backend="emulator",
        )
        dpus = self._sets.pop(program.path, None)
        if dpus is None:
            if len(self._sets) >= self.loaded_variants:  # the least recently used one goes
                self._sets.pop(next(iter(self._sets))).free()
            dpus = pim.DpuSet(1, backend="emulator")
            dpus.load(program)
        self._sets[program.path] = dpus  # now the most recently used
        return program.path, dpus

    def _launch(self, dpus: pyupmem.DpuSet, key: Path, nr_dpus: int) -> float:
        """Runs the loaded DPU; its modelled seconds as one of ``nr_dpus`` DPUs."""
        try:
            dpus.launch()
        except pim.DpuFaultError as fault:
            self._sets.pop(key, None)
            dpus.free()
            reason = " ".join(str(message) for message in fault.faults.values()) or str(fault)
            raise InvalidMapping(f"the DPU faults: {reason}") from None
        estimate = dpus.estimate()
        return float(estimate.cycles.max()) / estimate.clock_hz + pim.estimate.model.launch_seconds(
            nr_dpus
        )

    def close(self) -> None:
        for dpus in self._sets.values():
            dpus.free()
        self._sets.clear()


class FullyConnected(_OneDpuWorkload):
    """``Y = W X`` for a layer of ``rows`` outputs and ``cols`` inputs over ``batch`` input
    vectors, in int8 or int32 (``dpu_programs/mapping/fc.c``).

    Parameters of the space: ``dpus``, ``tasklets``, ``block`` (bytes per DMA),
    ``split`` (``rows``: each DPU gets whole rows and the whole input, broadcast;
    ``cols``: each DPU gets a slice of every row and of the input, and returns partial
    sums), ``transfer`` (``parallel`` pushes or ``serial`` copies per DPU) and, for a
    batch above 1, ``per_launch`` (input vectors per launch).
    """

    source = PROGRAMS / "fc.c"

    def __init__(self, name: str, rows: int, cols: int, batch: int = 1, dtype: str = "int8",
                 include_weights: bool = False, dpus: tuple[int, ...] = DPUS,
                 tasklets: tuple[int, ...] = TASKLETS, blocks: tuple[int, ...] = BLOCKS):
        if dtype not in ("int8", "int32"):
            raise ValueError(f"dtype must be int8 or int32, not {dtype!r}")
        if rows < 1 or cols < 1 or not 1 <= batch <= BATCH_MAX:
            raise ValueError(
                f"a layer needs rows, cols >= 1 and 1 <= batch <= {BATCH_MAX}, not "
                f"{rows}, {cols}, {batch}"
            )
        _check_host_bytes(f"a {rows:,} x {cols:,} {dtype} layer",
                          rows * cols * np.dtype(dtype).itemsize, "use fewer --rows or --cols")
        parameters = [
            Parameter("dpus", tuple(dpus), "DPUs"),
            Parameter("tasklets", tuple(tasklets), "tasklets per DPU"),
            Parameter("block", tuple(blocks), "bytes per DMA (-DBLOCK)"),
            Parameter("split", ("rows", "cols"), "how W is split over the DPUs"),
            Parameter("transfer", ("parallel", "serial"), "how inputs and outputs move"),
        ]
        if batch > 1:
            per_launch = tuple(b for b in (1, 2, 4, 8, 16) if b <= batch and batch % b == 0)
            parameters.append(Parameter("per_launch", per_launch, "input vectors per launch"))
        super().__init__(Space(tuple(parameters)))
        self.name, self.rows, self.cols, self.batch = name, rows, cols, batch
        self.dtype = np.dtype(dtype)
        self.include_weights = include_weights
        self.description = (
            f"{dtype} fully connected layer, {rows} x {cols}, batch {batch}"
            + (" (GEMV)" if batch == 1 else " (GEMM)")
        )
        rng = np.random.default_rng(0)
        low, high = (-128, 128) if dtype == "int8" else (-1000, 1000)
        self.weights = rng.integers(low, high, (rows, cols)).astype(self.dtype)
        self.inputs = rng.integers(low, high, (batch, cols)).astype(self.dtype)

    def _share(self, mapping: dict[str, Any]) -> tuple[int, int, int]:
        """(rows, cols, bytes of a row) of the largest share, checked."""
        dpus, block, item = mapping["dpus"], mapping["block"], self.dtype.itemsize
        if mapping["split"] == "rows":
            if dpus > self.rows:
                raise InvalidMapping(f"{dpus} DPUs for {self.rows} rows: some would be idle")
            rows, cols = math.ceil(self.rows / dpus), self.cols
        else:
            if (self.cols * item) % (dpus * block):
                raise InvalidMapping(
                    f"{self.cols} columns of {item} bytes do not split into {dpus} slices "
                    f"of whole {block}-byte blocks"
                )
            rows, cols = self.rows, self.cols // dpus
        row_bytes = cols * item
        if row_bytes % block:
            raise InvalidMapping(
                f"a row share of {row_bytes} bytes is not whole {block}-byte blocks"
            )
        per_launch = mapping.get("per_launch", 1)
        needed = rows * row_bytes + per_launch * row_bytes + rows * BATCH_MAX * 4
        if needed > MRAM_BYTES:
            raise InvalidMapping(f"a DPU's share takes {needed} bytes of MRAM, over 64 MiB")
        return rows, cols, row_bytes

    def run(self, mapping: dict[str, Any]) -> dict[str, float]:
        rows, cols, row_bytes = self._share(mapping)
        dpus_n, serial = mapping["dpus"], mapping["transfer"] == "serial"
        per_launch = mapping.get("per_launch", 1)
        defines = {"T": f"{self.dtype}_t", "BLOCK": mapping["block"]}
        key, dpus = self._dpu(mapping["tasklets"], defines)
        # the largest share: the first rows (rows split) or the first columns (cols split)
        w = np.ascontiguousarray(self.weights[:rows, :cols])
        x = np.ascontiguousarray(self.inputs[:per_launch, :cols])
        dpus.broadcast("rows", np.uint32(rows))
        dpus.broadcast("cols", np.uint32(cols))
        dpus.broadcast("batch", np.uint32(per_launch))
        dpus.broadcast(HEAP, w.reshape(-1).view(np.uint8))
        dpus.broadcast(HEAP, x.reshape(-1).view(np.uint8), offset=rows * row_bytes)
        kernel = self._launch(dpus, key, dpus_n)
        y = dpus.gather(HEAP, np.int32, rows * BATCH_MAX, offset=(rows + per_launch) * row_bytes)
        sums = y.reshape(rows, BATCH_MAX)[:, :per_launch]
        if not np.array_equal(sums, (w.astype(np.int64) @ x.T.astype(np.int64)).astype(np.int32)):
            raise InvalidMapping("the DPU's sums are wrong")  # never expected: a bug
        launches = self.batch // per_launch
        x_bytes = per_launch * row_bytes
        x_kind = "broadcast" if mapping["split"] == "rows" else "scatter"
        cpu_dpu = launches * _copy_seconds(x_kind, serial, x_bytes, dpus_n)
        if self.include_weights:
            cpu_dpu += _copy_seconds("scatter", serial, rows * row_bytes, dpus_n)
        # each row's sums: the int32 per vector, padded to 8 bytes
        out_bytes = rows * max(8, per_launch * 4)
        dpu_cpu = launches * _copy_seconds("gather", serial, out_bytes, dpus_n)
        return _phases(cpu_dpu, launches * kernel, dpu_cpu)

    def default_mapping(self) -> dict[str, Any]:
        """All DPUs that leave none idle, 16 tasklets, the largest block that fits WRAM
        with them, split by rows, parallel transfers, every vector in one launch."""
        space = self.space
        mapping = {"dpus": max(d for d in space["dpus"].values if d <= self.rows),
                   "tasklets": 16, "split": "rows", "transfer": "parallel"}
        if self.batch > 1:
            mapping["per_launch"] = max(space["per_launch"].values)
        for block in sorted(space["block"].values, reverse=True):
            if 16 * (2 * block + 64 + 1024) > 60 << 10:
                continue  # two buffers, the sums and a stack per tasklet: over WRAM
            try:
                self._share({**mapping, "block": block})
            except InvalidMapping:
                continue
            return space.check({**mapping, "block": block})
        raise ValueError(f"no block of {space['block'].values} fits a row of {self.name}")


class Streaming(_OneDpuWorkload):
    """A PrIM-style kernel over ``elements`` int32 values split evenly over the DPUs
    (``dpu_programs/mapping/stream.c``): ``va`` (vector addition, C = A + B) or ``red``
    (the sum of A). Parameters: ``dpus``, ``tasklets``, ``block``, ``transfer``."""

    source = PROGRAMS / "stream.c"

    def __init__(self, kernel: str, elements: int, dpus: tuple[int, ...] = DPUS,
                 tasklets: tuple[int, ...] = TASKLETS, blocks: tuple[int, ...] = BLOCKS):
        if kernel not in ("va", "red"):
            raise ValueError(f"kernel must be va or red, not {kernel!r}")
        if elements < 1:
            raise ValueError(f"elements must be >= 1, not {elements}")
        _check_host_bytes(f"the input (2 x {elements:,} int32)", 8 * elements,
                          "use fewer --elements")
        super().__init__(Space((
            Parameter("dpus", tuple(dpus), "DPUs"),
            Parameter("tasklets", tuple(tasklets), "tasklets per DPU"),
            Parameter("block", tuple(blocks), "bytes per DMA (-DBLOCK)"),
            Parameter("transfer", ("parallel", "serial"), "how inputs and outputs move"),
        )))
        self.name, self.kernel, self.elements = kernel, kernel, elements
        self.description = (
            f"{'vector addition' if kernel == 'va' else 'reduction'} of {elements:,} int32"
        )
        self.values = np.random.default_rng(1).integers(-1000, 1000, 2 * elements).astype(np.int32)

    def run(self, mapping: dict[str, Any]) -> dict[str, float]:
        dpus_n, block = mapping["dpus"], mapping["block"]
        per_block = block // 4
        share = math.ceil(self.elements / dpus_n / per_block) * per_block  # whole blocks
        if share * 4 * (3 if self.kernel == "va" else 1) > MRAM_BYTES:
            raise InvalidMapping(f"a share of {share} values does not fit 64 MiB of MRAM")
        serial = mapping["transfer"] == "serial"
        key, dpus = self._dpu(mapping["tasklets"], {f"KERNEL_{self.kernel.upper()}": None,
                                                    "BLOCK": block})
        a = np.zeros(share, np.int32)
        real = self.values[: min(share, self.elements)]
        a[: len(real)] = real
        dpus.broadcast("elements", np.uint32(share))
        dpus.broadcast(HEAP, a)
        if self.kernel == "va":
            b = np.zeros(share, np.int32)
            b[: len(real)] = self.values[self.elements : self.elements + len(real)]
            dpus.broadcast(HEAP, b, offset=share * 4)
        kernel = self._launch(dpus, key, dpus_n)
        if self.kernel == "va":
            c = dpus.gather(HEAP, np.int32, share, offset=2 * share * 4)[0]
            if not np.array_equal(c, a + b):
                raise InvalidMapping("the DPU's sums are wrong")  # never expected: a bug
            cpu_dpu = 2 * _copy_seconds("scatter", serial, share * 4, dpus_n)
            dpu_cpu = _copy_seconds("gather", serial, share * 4, dpus_n)
        else:
            total = int(dpus.gather("total", np.int64, 1)[0, 0])
            if total != int(a.astype(np.int64).sum()):
                raise InvalidMapping("the DPU's sum is wrong")  # never expected: a bug
            cpu_dpu = _copy_seconds("scatter", serial, share * 4, dpus_n)
            dpu_cpu = _copy_seconds("gather", serial, 8, dpus_n)
        return _phases(cpu_dpu, kernel, dpu_cpu)

    def default_mapping(self) -> dict[str, Any]:
        """All DPUs, 16 tasklets, the largest block that fits WRAM, parallel transfers."""
        buffers = 2 if self.kernel == "va" else 1
        block = max(b for b in self.space["block"].values
                    if 16 * (buffers * b + 1024) <= 60 << 10)
        return {"dpus": max(self.space["dpus"].values), "tasklets": 16, "block": block,
                "transfer": "parallel"}


class ProgramWorkload(Workload):
    """A user's own DPU program and parameter ranges, run whole on the emulator.

    Args:
        name: a short name.
        source: the DPU program's C source.
        space: its mapping space; it must have a ``tasklets`` and a ``dpus`` parameter.
        host: ``host(dpus, mapping)`` does the run on the loaded set of ``mapping["dpus"]``
            DPUs (transfers, launches); the environment reads the set's modelled time per
            phase (:meth:`pyupmem.DpuSet.phase_seconds`) afterwards. It may raise
            :class:`~rl.mapping.InvalidMapping`.
        defines: the ``-D`` macros of a mapping (default: every parameter other than
            ``dpus`` and ``tasklets``, by its name in upper case).
        default: the mapping a programmer would pick (for the speedup report).
    """

    def __init__(self, name: str, source: str | Path, space: Space,
                 host: Callable[[pyupmem.DpuSet, dict[str, Any]], None],
                 defines: Callable[[dict[str, Any]], dict[str, object]] | None = None,
                 default: dict[str, Any] | None = None):
        for needed in ("dpus", "tasklets"):
            if needed not in space.names:
                raise ValueError(f"the space needs a {needed!r} parameter, it has {space.names}")
        super().__init__(space)
        self.name, self.source, self.host = name, Path(source), host
        self.description = f"{self.source.name} ({space.size} mappings)"
        self._defines = defines or (lambda m: {k.upper(): v for k, v in m.items()
                                               if k not in ("dpus", "tasklets")})
        self._default = default

    def run(self, mapping: dict[str, Any]) -> dict[str, float]:
        try:
            program = pim.build_program(self.source, nr_tasklets=mapping["tasklets"],
                                        defines=self._defines(mapping), backend="emulator")
        except pim.CompileError as error:
            raise InvalidMapping(f"the program does not build: {error}") from None
        with pim.DpuSet(mapping["dpus"], backend="emulator") as dpus:
            try:
                dpus.load(program)
                self.host(dpus, mapping)
            except pim.DpuFaultError as fault:
                raise InvalidMapping(f"a DPU faults: {fault}") from None
            phases = dpus.phase_seconds()
        return {k: v for k, v in phases.items() if k != pim.INTER_DPU}

    def default_mapping(self) -> dict[str, Any]:
        if self._default is None:
            raise ValueError(f"workload {self.name!r} has no default mapping")
        return self.space.check(self._default)


BUILTIN: dict[str, Callable[..., Workload]] = {
    # a small MLP's hidden layer (int8), and a transformer's feed-forward block (1,024 to
    # 4,096), as GEMV; the same layer over a batch of 16 inputs (GEMM), in int32
    "mlp": lambda **kw: FullyConnected("mlp", **({"rows": 1024, "cols": 1024} | kw)),
    "ffn": lambda **kw: FullyConnected("ffn", **({"rows": 4096, "cols": 1024} | kw)),
    "gemm": lambda **kw: FullyConnected(
        "gemm", **({"rows": 1024, "cols": 1024, "batch": 16, "dtype": "int32"} | kw)
    ),
    "va": lambda **kw: Streaming("va", **({"elements": 1 << 22} | kw)),
    "red": lambda **kw: Streaming("red", **({"elements": 1 << 22} | kw)),
}
"""The built-in workloads by name, each taking its shape options as keywords."""


def workload(name: str, **shape: Any) -> Workload:
    """A built-in workload by name (see :data:`BUILTIN`), with shape options, or a layer of
    the large spaces (:data:`rl.mapping.layers.LAYERS`).

    Raises:
        ValueError: an unknown name or shape option.
    """
    from .layers import LAYERS, layer

    shape = {k: v for k, v in shape.items() if v is not None}
    if name in LAYERS:
        if shape:
            raise ValueError(f"layer {name!r} has a fixed shape: no {', '.join(shape)}")
        made: Workload = layer(name)
    elif name in BUILTIN:
        try:
            made = BUILTIN[name](**shape)
        except TypeError as error:
            raise ValueError(f"workload {name!r}: {error}") from None
    else:
        raise ValueError(f"unknown workload {name!r}: choose one of "
                         f"{', '.join([*BUILTIN, *LAYERS])}")
    made.factory = (name, shape)
    return made
