"""Mapping spaces of real DNN layers on a server of 2,560 DPUs: 10^6 to 10^9 mappings each,
most of which the static rules refuse.

A layer is ``Y = W X``: ``W`` has ``M`` rows (outputs) of ``K`` values (inputs), ``X`` holds
``N`` input vectors (tokens, pixels of a convolution lowered to a GEMM, or one vector for a
GEMV). A mapping (:class:`LayerWorkload`'s parameters) says

- how the three dimensions split over DPUs: ``dpus_m`` x ``dpus_k`` x ``dpus_n`` DPUs (a
  split of ``K`` leaves partial sums the host adds; each split of ``N`` holds all the
  weights), in whole ranks of 64;
- how one DPU's share runs (``dpu_programs/mapping/gemm.c``): ``tasklets``, the WRAM tiles
  ``tile_k`` (bytes per DMA), ``tile_m`` (rows of W) and ``tile_n`` (vectors of X), the loop
  ``order`` (output- or weight-stationary), whether X is ``resident`` in WRAM or streams
  from MRAM, and the accumulator width ``acc``;
- on the host: ``transfer`` (one parallel push, broadcasts to the DPUs that share a slice
  of X, or serial copies per DPU) and ``per_launch`` (input vectors per launch).

Only ``tasklets`` and ``acc`` are compile-time choices (16 builds per element type); the
rest are written into the DPU before the launch, so a scoring is a launch once the builds
are cached. The weights are loaded once and stay on the DPUs: their transfer is not
counted. The host's sum of the partial results of a ``K`` split is not modelled.

Double buffering is not a parameter: a DPU's ``mram_read`` blocks its tasklet, and DMA
overlaps compute across tasklets (the tasklet count), not within one.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .environment import InvalidMapping
from .space import Parameter, Space
from .workloads import HEAP, MRAM_BYTES, PROGRAMS, _copy_seconds, _OneDpuWorkload, _phases

SERVER_DPUS = 2560
"""The DPUs of the server the spaces map onto (40 ranks)."""
RANK = 64
"""DPUs of a rank: DPUs are allocated by rank, so a mapping uses whole ranks."""
WRAM_BYTES = 64 << 10
"""One DPU's WRAM."""
WRAM_RESERVED = 1024
"""WRAM kept for the program's globals and the runtime (a conservative figure)."""
STACK_BYTES = 1024
"""A tasklet's stack (the emulator's and the SDK's default)."""

DPU_SPLITS = tuple(sorted({1 << i for i in range(12)} | {5 << i for i in range(10)}))
"""Values of ``dpus_m``: powers of two and five times them, so that 40 ranks are reachable."""
LAYER_TASKLETS = (1, 2, 4, 8, 11, 12, 16, 24)
"""Values of ``tasklets`` (11 saturates the pipeline; 24 is the most)."""
TILE_K = (8, 16, 32, 64, 128, 256, 512, 1024, 2048)
"""Values of ``tile_k``, bytes per DMA (8 to 2,048, the DMA's limits)."""
TILE_M = (1, 2, 3, 4, 6, 8, 12, 16)
"""Values of ``tile_m``, rows of W a tasklet holds in WRAM."""
TILE_N = (1, 2, 4, 8, 16)
"""Values of ``tile_n``, vectors of X a tasklet holds in WRAM (those up to the layer's)."""
PER_LAUNCH_MAX = 200
"""The most vectors per launch: ``per_launch`` takes the divisors of the layer's up to it."""


def _round8(size: int) -> int:
    return (size + 7) & ~7


def _divisors(n: int, at_most: int) -> tuple[int, ...]:
    return tuple(d for d in range(1, min(n, at_most) + 1) if n % d == 0)


class LayerWorkload(_OneDpuWorkload):
    """A DNN layer ``Y = W X`` of ``m`` x ``k`` weights and ``n`` input vectors, in
    ``dtype`` (int8 or int32; the sums are int32), and its large mapping space (see the
    module)."""

    source = PROGRAMS / "gemm.c"
    loaded_variants = len(LAYER_TASKLETS) * 2  # every build of a layer stays loaded

    def __init__(self, name: str, m: int, k: int, n: int, dtype: str = "int8",
                 description: str = ""):
        if dtype not in ("int8", "int32"):
            raise ValueError(f"dtype must be int8 or int32, not {dtype!r}")
        if m < 1 or k < 1 or n < 1:
            raise ValueError(f"a layer needs m, k, n >= 1, not {m}, {k}, {n}")
        self.dtype = np.dtype(dtype)
        if k * self.dtype.itemsize % 8:
            raise ValueError(f"a row of {k} {dtype} values is not whole 8-byte DMAs")
        parameters = (
            Parameter("dpus_m", tuple(d for d in DPU_SPLITS if d <= SERVER_DPUS),
                      "DPUs along the rows of W"),
            Parameter("dpus_k", (1, 2, 4, 8, 16, 32), "DPUs along K (the host adds partial sums)"),
            Parameter("dpus_n", tuple(d for d in _divisors(n, 128) if d & (d - 1) == 0),
                      "DPUs along the input vectors (each holds all of W)"),
            Parameter("tasklets", LAYER_TASKLETS, "tasklets per DPU"),
            Parameter("tile_k", TILE_K, "bytes per DMA of a row of W or a vector of X"),
            Parameter("tile_m", TILE_M, "rows of W in WRAM per tasklet"),
            Parameter("tile_n", tuple(t for t in TILE_N if t <= n), "vectors of X in WRAM"),
            Parameter("order", ("output", "weight"), "loop order: which tile stays"),
            Parameter("resident", ("stream", "x"), "X streams from MRAM or stays in WRAM"),
            Parameter("acc", ("int32", "int64"), "accumulator width"),
            Parameter("transfer", ("parallel", "broadcast", "serial"), "how X and Y move"),
            Parameter("per_launch", _divisors(n, PER_LAUNCH_MAX), "input vectors per launch"),
        )
        super().__init__(Space(parameters))
        self.name, self.m, self.k, self.n = name, m, k, n
        kind = "GEMV" if n == 1 else "GEMM"
        self.description = (description or name) + f": {dtype}, {m} x {k}, {n} vector" + (
            "s" if n > 1 else "") + f" ({kind})"
        self._data: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def data(self) -> tuple[np.ndarray, np.ndarray]:
        """The layer's weights W (m x k) and inputs X (n x k): random, made on first use."""
        if self._data is None:
            rng = np.random.default_rng(0)
            low, high = (-128, 128) if self.dtype == np.int8 else (-1000, 1000)
            self._data = (rng.integers(low, high, (self.m, self.k)).astype(self.dtype),
                          rng.integers(low, high, (self.n, self.k)).astype(self.dtype))
        return self._data

    # the static rules --------------------------------------------------------------

    def share(self, mapping: dict[str, Any]) -> tuple[int, int, int]:
        """(rows, bytes of a row's K share, vectors) of the largest DPU share."""
        rows = math.ceil(self.m / mapping["dpus_m"])
        k_bytes = self.k * self.dtype.itemsize // mapping["dpus_k"]
        return rows, k_bytes, self.n // mapping["dpus_n"]

    def wram_bytes(self, mapping: dict[str, Any]) -> int:
        """The WRAM a mapping's kernel takes: stacks, each tasklet's tiles and sums, and X
        when resident."""
        _, k_bytes, _ = self.share(mapping)
        tasklets, per_launch = mapping["tasklets"], mapping["per_launch"]
        tile_k, tile_m, tile_n = mapping["tile_k"], mapping["tile_m"], mapping["tile_n"]
        sums = tile_n if mapping["order"] == "output" else (per_launch + 1) & ~1
        acc = 8 if mapping["acc"] == "int64" else 4
        per_tasklet = (STACK_BYTES + _round8(tile_m * tile_k) + _round8(tile_m * sums * acc)
                       + _round8(((sums + 1) & ~1) * 4))
        if mapping["resident"] == "stream":
            per_tasklet += _round8(tile_n * tile_k)
        shared = _round8(per_launch * k_bytes) if mapping["resident"] == "x" else 0
        return tasklets * per_tasklet + shared

    def check(self, mapping: dict[str, Any]) -> str | None:
        dm, dk, dn = mapping["dpus_m"], mapping["dpus_k"], mapping["dpus_n"]
        dpus = dm * dk * dn
        if dpus % RANK or dpus > SERVER_DPUS:
            return (f"{dm} x {dk} x {dn} = {dpus} DPUs: not whole ranks of {RANK} up to "
                    f"{SERVER_DPUS}")
        if dm > self.m:
            return f"{dm} DPUs for {self.m} rows: some would have none"
        item = self.dtype.itemsize
        tile_k = mapping["tile_k"]
        if (self.k * item) % (dk * tile_k):
            return (f"{self.k} values of {item} bytes do not split into {dk} shares of whole "
                    f"{tile_k}-byte DMAs")
        rows, k_bytes, n_share = self.share(mapping)
        per_launch, tile_n = mapping["per_launch"], mapping["tile_n"]
        if n_share * dn != self.n or n_share % per_launch:
            return (f"{self.n} vectors over {dn} DPUs do not make whole launches of "
                    f"{per_launch}")
        if per_launch % tile_n:
            return f"{per_launch} vectors per launch are not whole tiles of {tile_n}"
        if mapping["order"] == "output" and tile_n % 2 and per_launch > 1:
            return ("output-stationary tiles of an odd number of vectors write 4-byte sums: "
                    "a DMA is whole 8 bytes")
        wram = self.wram_bytes(mapping)
        if wram > WRAM_BYTES - WRAM_RESERVED:
            return f"the kernel needs {wram} bytes of WRAM, over {WRAM_BYTES - WRAM_RESERVED}"
        mram = rows * k_bytes + per_launch * k_bytes + rows * ((per_launch + 1) & ~1) * 4
        if mram > MRAM_BYTES:
            return f"a DPU's share takes {mram} bytes of MRAM, over 64 MiB"
        return None

    # a run -------------------------------------------------------------------------

    def run(self, mapping: dict[str, Any]) -> dict[str, float]:
        reason = self.check(mapping)
        if reason is not None:
            raise InvalidMapping(reason)
        rows, k_bytes, n_share = self.share(mapping)
        per_launch = mapping["per_launch"]
        cols = k_bytes // self.dtype.itemsize
        n_pad = (per_launch + 1) & ~1
        acc = "int64_t" if mapping["acc"] == "int64" else "int32_t"
        key, dpus = self._dpu(mapping["tasklets"], {"T": f"{self.dtype}_t", "ACC": acc})
        weights, inputs = self.data
        w = np.ascontiguousarray(weights[:rows, :cols])
        x = np.ascontiguousarray(inputs[:per_launch, :cols])
        for name, value in (("rows", rows), ("k_bytes", k_bytes), ("n", per_launch),
                            ("tile_k", mapping["tile_k"]), ("tile_m", mapping["tile_m"]),
                            ("tile_n", mapping["tile_n"]),
                            ("order", int(mapping["order"] == "weight")),
                            ("resident", int(mapping["resident"] == "x"))):
            dpus.broadcast(name, np.uint32(value))
        dpus.broadcast(HEAP, w.reshape(-1).view(np.uint8))
        dpus.broadcast(HEAP, x.reshape(-1).view(np.uint8), offset=rows * k_bytes)
        nr_dpus = mapping["dpus_m"] * mapping["dpus_k"] * mapping["dpus_n"]
        kernel = self._launch(dpus, key, nr_dpus)
        y = dpus.gather(HEAP, np.int32, rows * n_pad, offset=(rows + per_launch) * k_bytes)
        sums = y.reshape(rows, n_pad)[:, :per_launch]
        expected = (w.astype(np.int64) @ x.T.astype(np.int64)).astype(np.int32)
        if not np.array_equal(sums, expected):
            raise InvalidMapping("the DPU's sums are wrong")  # never expected: a bug
        launches = n_share // per_launch
        x_bytes, y_bytes = per_launch * k_bytes, rows * n_pad * 4
        transfer = mapping["transfer"]
        if transfer == "broadcast":  # one broadcast per slice of X, to the DPUs sharing it
            x_seconds = (mapping["dpus_k"] * mapping["dpus_n"]
                         * _copy_seconds("broadcast", False, x_bytes, mapping["dpus_m"]))
        else:
            x_seconds = _copy_seconds("scatter", transfer == "serial", x_bytes, nr_dpus)
        y_seconds = _copy_seconds("gather", transfer == "serial", y_bytes, nr_dpus)
        return _phases(launches * x_seconds, launches * kernel, launches * y_seconds)

    def default_mapping(self) -> dict[str, Any]:
        """A hand-made mapping, as PrIM's GEMV does: rows over as many DPUs as have rows
        (whole ranks), 16 tasklets, 2 KiB blocks (or the largest that divides a row), one
        row at a time, every vector in one launch (as many as fit), parallel transfers."""
        values = self.space
        for dpus_m in sorted(values["dpus_m"].values, reverse=True):
            for per_launch in sorted(values["per_launch"].values, reverse=True):
                for tile_k in sorted(TILE_K, reverse=True):
                    mapping = {"dpus_m": dpus_m, "dpus_k": 1, "dpus_n": 1, "tasklets": 16,
                               "tile_k": tile_k, "tile_m": 1, "tile_n": 1, "order": "weight",
                               "resident": "stream", "acc": "int32", "transfer": "parallel",
                               "per_launch": per_launch}
                    if self.check(mapping) is None:
                        return mapping
        raise ValueError(f"no PrIM-like mapping of {self.name} passes the static rules")


LAYERS: dict[str, dict[str, Any]] = {
    # BERT-base's feed-forward block over a sequence of 128 tokens: 768 -> 3,072 -> 768
    "bert-ffn1": {"m": 3072, "k": 768, "n": 128, "description": "BERT-base FFN up"},
    "bert-ffn2": {"m": 768, "k": 3072, "n": 128, "description": "BERT-base FFN down"},
    # a GPT-2-size (d=768) decoder generating one token: batch 1, so GEMV
    "gpt2-qkv": {"m": 2304, "k": 768, "n": 1, "description": "GPT-2 attention QKV projection"},
    "gpt2-proj": {"m": 768, "k": 3072, "n": 1, "description": "GPT-2 MLP down projection"},
    # ResNet-50 convolutions lowered to GEMMs (im2col): out channels x (in channels x
    # kernel) x pixels; conv2_x's 1x1 expansion at 56x56 and conv3_x's 3x3 at 28x28
    "resnet-1x1": {"m": 256, "k": 64, "n": 3136, "description": "ResNet-50 conv2_x 1x1"},
    "resnet-3x3": {"m": 128, "k": 1152, "n": 784, "description": "ResNet-50 conv3_x 3x3"},
    # an MLP's hidden layer in int32 over 16 inputs
    "mlp-int32": {"m": 1024, "k": 1024, "n": 16, "dtype": "int32",
                  "description": "MLP hidden layer"},
}
"""The layers of the large spaces by name, with their shapes."""


def layer(name: str) -> LayerWorkload:
    """A layer of :data:`LAYERS` by name."""
    if name not in LAYERS:
        raise ValueError(f"unknown layer {name!r}: choose one of {', '.join(LAYERS)}")
    return LayerWorkload(name, **LAYERS[name])
