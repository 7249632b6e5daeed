"""Rating a linear model: training loss, accuracy and AUC, per epoch."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .data import DataSet


def scores(w: np.ndarray, data: DataSet) -> np.ndarray:
    """The decision values ``x . w`` (float64)."""
    return data.x.astype(np.float64) @ np.asarray(w, np.float64)


def loss(w: np.ndarray, data: DataSet, model: str, lam: float = 0.0) -> float:
    """The objective: mean log loss (``"lr"``) or hinge loss (``"svm"``) plus
    ``lam / 2 * ||w||^2``."""
    s = scores(w, data)
    ys = 2.0 * data.y - 1.0
    if model == "svm":
        per = np.maximum(0.0, 1.0 - ys * s)
    else:
        per = np.logaddexp(0.0, -ys * s)
    return float(per.mean() + 0.5 * lam * float(np.dot(w, w)))


def accuracy(w: np.ndarray, data: DataSet) -> float:
    """The share of samples whose sign of ``x . w`` matches the label (positive: > 0)."""
    return float(np.mean((scores(w, data) > 0) == (data.y == 1)))


def auc(w: np.ndarray, data: DataSet) -> float:
    """The area under the ROC curve of the decision values (ties count one half);
    NaN when one class is missing."""
    s = scores(w, data)
    pos = data.y == 1
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s), dtype=np.float64)
    sorted_s = s[order]
    # average ranks of ties
    _, first, counts = np.unique(sorted_s, return_index=True, return_counts=True)
    avg = first + (counts - 1) / 2.0 + 1.0
    ranks[order] = np.repeat(avg, counts)
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


@dataclass(frozen=True)
class EpochFigures:
    """The figures of one model: loss on the training set, accuracy and AUC on the test set."""

    loss: float  #: training objective
    test_accuracy: float  #: test accuracy, in [0, 1]
    test_auc: float  #: test AUC


def rate(w: np.ndarray, train: DataSet, test: DataSet, model: str, lam: float
         ) -> EpochFigures:
    """:class:`EpochFigures` of model ``w``."""
    return EpochFigures(loss(w, train, model, lam), accuracy(w, test), auc(w, test))


def per_epoch(history: list[np.ndarray], train: DataSet, test: DataSet, model: str,
              lam: float) -> list[EpochFigures]:
    """:func:`rate` of every epoch's model."""
    return [rate(w, train, test, model, lam) for w in history]
