"""Data sets for pimopt: a LIBSVM reader and writer, seeded generators, scikit-learn's sets.

A :class:`DataSet` holds dense float32 features ``x`` (``(n, F)``) and labels ``y`` in
{0, 1} (int8); :meth:`DataSet.labels` gives them as each model needs them (0/1 for
logistic regression, -1/+1 for the SVM).

**LIBSVM format** (the format of YFCC100M-HNfc6 and Criteo): one sample per line,
``label index:value index:value ...`` with 1-based, increasing indices; labels ``+1``,
``-1``, ``1`` or ``0`` (``-1`` and ``0`` are the negative class); blank lines and
``#`` comments are skipped.

**Generators** (:func:`dense`, :func:`sparse`) plant a linear model: labels are drawn
from ``sigmoid(scale * x . w*)`` of a hidden ``w*``, so a linear classifier can reach the
Bayes accuracy but no more.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

YFCC_FEATURES = 4096
"""Features of the dense YFCC100M-HNfc6-like generator (the fc6 layer's width)."""
CRITEO_FIELDS = 26
"""Categorical fields of the sparse Criteo-like generator."""


@dataclass(frozen=True)
class DataSet:
    """Dense samples ``x`` (float32, ``(n, F)``) and labels ``y`` (int8, 0 or 1)."""

    x: np.ndarray  #: features, float32 ``(n, F)``
    y: np.ndarray  #: labels, int8 0/1 ``(n,)``
    name: str = ""  #: where the data came from

    def __len__(self) -> int:
        return int(self.y.shape[0])

    @property
    def n_features(self) -> int:
        """F, the number of features."""
        return int(self.x.shape[1])

    def labels(self, model: str) -> np.ndarray:
        """Labels as int32 for ``model``: 0/1 (``"lr"``) or -1/+1 (``"svm"``)."""
        y = self.y.astype(np.int32)
        return 2 * y - 1 if model == "svm" else y


def read_libsvm(path: str | os.PathLike, n_features: int | None = None) -> DataSet:
    """Read a LIBSVM file into a dense :class:`DataSet` (``n_features``: at least this many
    columns, e.g. a training set's width for its test set).

    Raises:
        ValueError: a bad line, naming the file and its 1-based line; or no samples.
        OSError: the file cannot be read.
    """
    rows: list[tuple[int, list[int], list[float]]] = []
    width = 0
    widest = 0  # the line of the highest feature index, named if it is too high
    with open(path, "rb") as f:
        for number, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise ValueError(
                    f"{path}, line {number}: not text (byte 0x{raw[error.start]:02x} at "
                    f"column {error.start + 1}); a LIBSVM file is text lines of "
                    "'label index:value ...'") from None
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            parts = text.split()
            where = f"{path}, line {number}"
            try:
                label = float(parts[0])
            except ValueError:
                raise ValueError(f"{where}: the label {parts[0]!r} is not a number") from None
            if label not in (1.0, -1.0, 0.0):
                raise ValueError(f"{where}: the label {parts[0]!r} is not +1, -1, 1 or 0")
            idx: list[int] = []
            val: list[float] = []
            for item in parts[1:]:
                key, sep, value = item.partition(":")
                try:
                    i, v = int(key), float(value)
                except ValueError:
                    i, v = 0, 0.0
                    sep = ""
                if not sep:
                    raise ValueError(f"{where}: {item!r} is not index:value")
                if i < 1:
                    raise ValueError(f"{where}: feature index {i} is below 1 (indices are "
                                     f"1-based)")
                if idx and i <= idx[-1]:
                    raise ValueError(f"{where}: feature index {i} does not increase")
                if not np.isfinite(v):
                    raise ValueError(f"{where}: the value of feature {i} is not finite")
                idx.append(i - 1)
                val.append(v)
            rows.append((1 if label > 0 else 0, idx, val))
            if idx and idx[-1] + 1 > width:
                width, widest = idx[-1] + 1, number
    if not rows:
        raise ValueError(f"{path}: no samples")
    width = max(width, int(n_features or 0))
    check_fits(len(rows), width, f"{path}, line {widest}: feature index {width}")
    x = np.zeros((len(rows), width), dtype=np.float32)
    y = np.empty(len(rows), dtype=np.int8)
    for r, (label, idx, val) in enumerate(rows):
        x[r, idx] = val
        y[r] = label
    return DataSet(x, y, str(path))


def memory_bytes() -> int:
    """This machine's physical memory in bytes."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def check_fits(n: int, width: int, what: str,
               fix: str = "renumber (hash) the features into fewer columns") -> None:
    """A ValueError unless ``n`` samples of ``width`` float32 features fit in memory:
    pimopt holds its data sets dense (``what`` names the cause, ``fix`` the way out)."""
    need = n * width * 4
    if need > memory_bytes() // 2:
        raise ValueError(
            f"{what} makes the data set {n:,} samples x {width:,} features of float32, "
            f"{need / 2**30:,.1f} GiB held dense, more than half of this machine's "
            f"{memory_bytes() / 2**30:,.0f} GiB (pimopt holds data sets dense): {fix}")


def write_libsvm(path: str | os.PathLike, data: DataSet) -> Path:
    """Write ``data`` in LIBSVM format (labels +1/-1, only nonzero features)."""
    out = Path(path)
    with open(out, "w", encoding="utf-8") as f:
        for row, label in zip(data.x, data.y, strict=True):
            nz = np.flatnonzero(row)
            items = " ".join(f"{i + 1}:{float(row[i]):.7g}" for i in nz)
            f.write(f"{'+1' if label else '-1'} {items}\n".rstrip() + "\n")
    return out


def _planted_labels(rng: np.random.Generator, x: np.ndarray, scale: float) -> np.ndarray:
    w = rng.standard_normal(x.shape[1])
    score = x.astype(np.float64) @ w
    score *= scale / (np.std(score) or 1.0)
    p = 1.0 / (1.0 + np.exp(-score))
    return (rng.random(len(p)) < p).astype(np.int8)


def dense(n: int = 4096, n_features: int = YFCC_FEATURES, seed: int = 0,
          scale: float = 4.0) -> DataSet:
    """A dense YFCC100M-HNfc6-like set: standard normal features, planted labels
    (``scale``: the planted scores' spread; larger is more separable)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, n_features)).astype(np.float32)
    return DataSet(x, _planted_labels(rng, x, scale), f"dense(n={n}, F={n_features}, "
                                                      f"seed={seed})")


def sparse(n: int = 4096, n_buckets: int = 1024, seed: int = 0,
           fields: int = CRITEO_FIELDS, cardinality: int = 1000,
           scale: float = 4.0) -> DataSet:
    """A sparse hashed Criteo-like set: ``fields`` categorical fields (Zipf-distributed
    values out of ``cardinality``), each hashed into one of ``n_buckets`` buckets,
    one-hot (stored dense), with planted labels."""
    rng = np.random.default_rng(seed)
    values = np.minimum(rng.zipf(1.5, size=(n, fields)), cardinality) - 1
    salt = rng.integers(1, 2**31 - 1, size=fields, dtype=np.int64)
    bucket = ((values.astype(np.int64) * 2654435761 + salt) % 2**32) % n_buckets
    x = np.zeros((n, n_buckets), dtype=np.float32)
    np.add.at(x, (np.repeat(np.arange(n), fields), bucket.reshape(-1)), 1.0)
    x = np.minimum(x, 1.0)
    return DataSet(x, _planted_labels(rng, x - x.mean(axis=0), scale),
                   f"sparse(n={n}, D={n_buckets}, seed={seed})")


def sklearn_set(name: str = "breast_cancer") -> DataSet:
    """One of scikit-learn's bundled sets (``"breast_cancer"``), standardised.

    Raises:
        ValueError: an unknown name.
        ImportError: scikit-learn is not installed (``pip install pyupmem[pimopt]``).
    """
    from sklearn import datasets as skd

    loaders = {"breast_cancer": skd.load_breast_cancer}
    if name not in loaders:
        raise ValueError(f"unknown set {name!r}; choose one of {', '.join(loaders)}")
    bunch = loaders[name]()
    x = np.asarray(bunch.data, dtype=np.float64)
    x = (x - x.mean(axis=0)) / np.where(x.std(axis=0) > 0, x.std(axis=0), 1.0)
    return DataSet(x.astype(np.float32), np.asarray(bunch.target, np.int8), name)


def split(data: DataSet, test_fraction: float = 0.25, seed: int = 0
          ) -> tuple[DataSet, DataSet]:
    """A seeded random train/test split.

    Raises:
        ValueError: ``test_fraction`` not in (0, 1), or too few samples for both parts.
    """
    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"test_fraction={test_fraction} must be in (0, 1)")
    order = np.random.default_rng(seed).permutation(len(data))
    k = int(round(len(data) * test_fraction))
    if k < 1 or k >= len(data):
        raise ValueError(f"{len(data)} samples are too few to split")
    test, train = order[:k], order[k:]
    return (DataSet(data.x[train], data.y[train], data.name + " [train]"),
            DataSet(data.x[test], data.y[test], data.name + " [test]"))
