"""CPU baselines on the same data: scikit-learn, and numpy versions of the three algorithms.

:func:`sklearn_fit` solves the same objective (``mean loss + lam / 2 ||w||^2``, no
intercept) to convergence with scikit-learn (``LogisticRegression``, or ``LinearSVC``
with the hinge loss): the accuracy the DPU models are held to. :func:`numpy_train` runs
GA-SGD, MA-SGD and ADMM as :mod:`pimopt.algorithms` defines them, vectorised in float32
over the DPUs' shares (the exact sigmoid; not bit-exact with the DPUs): the CPU time of
the same algorithm.
"""

from __future__ import annotations

import numpy as np

from . import algorithms as alg
from . import kernel
from .data import DataSet


def sklearn_fit(data: DataSet, model: str, lam: float) -> np.ndarray:
    """The weights scikit-learn finds for ``model`` with L2 strength ``lam`` (float64).

    Raises:
        ImportError: scikit-learn is missing (``pip install pyupmem[pimopt]``).
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC

    c = 1.0 / (max(lam, 1e-12) * len(data))
    if model == "svm":
        clf = LinearSVC(C=c, loss="hinge", fit_intercept=False, dual=True, max_iter=100000,
                        tol=1e-6)
    else:
        clf = LogisticRegression(C=c, fit_intercept=False, max_iter=10000, tol=1e-8)
    clf.fit(data.x, data.y)
    return np.asarray(clf.coef_, np.float64).reshape(-1)


def _gradients(model: str, x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Sum of the loss gradients of samples ``x`` with labels ``y`` (0/1 or -1/+1)."""
    s = x @ w
    if model == "svm":
        g = np.where(y * s < 1, -y, 0).astype(np.float32)
    else:
        g = (1.0 / (1.0 + np.exp(-s)) - y).astype(np.float32)
    return g @ x


def numpy_train(data: DataSet, c: alg.Config) -> np.ndarray:
    """Train with ``c``'s algorithm in vectorised numpy float32; the weights (float64)."""
    p = kernel.plan(len(data), data.n_features, c.n_dpus, c.n_tasklets)
    x = data.x.astype(np.float32)
    y = data.labels(c.model).astype(np.float32)
    f = data.n_features
    parts = [(x[s:s + n], y[s:s + n]) for s, n in p.shares]
    n_steps = alg.steps_per_epoch(p.max_share, c.batch)
    model = np.zeros(f, np.float32)
    ws = np.zeros((c.n_dpus, f), np.float32)
    us = np.zeros((c.n_dpus, f), np.float32)
    first = True
    for epoch, k, n in alg.launches(c, n_steps):
        lr = np.float32(c.lr_at(epoch))
        if c.algorithm == "ga-sgd":
            lo = k * c.batch
            total = np.zeros(f, np.float32)
            size = 0
            for xd, yd in parts:
                total += _gradients(c.model, xd[lo:lo + c.batch], yd[lo:lo + c.batch], model)
                size += len(yd[lo:lo + c.batch])
            if size:
                model = model - lr * (total / size + np.float32(c.lam) * model)
            continue
        for d, (xd, yd) in enumerate(parts):
            w = model.copy() if c.algorithm == "ma-sgd" else ws[d]
            if c.algorithm == "admm" and not first:
                us[d] += w - model
            for s in range(k, k + n):
                xb, yb = xd[s * c.batch:(s + 1) * c.batch], yd[s * c.batch:(s + 1) * c.batch]
                if len(yb) == 0:
                    continue
                g = _gradients(c.model, xb, yb, w) / len(yb) + np.float32(c.lam) * w
                if c.algorithm == "admm":
                    g = g + np.float32(c.rho) * (w - model + us[d])
                w = w - lr * g
            ws[d] = w
        model = (ws.mean(axis=0) if c.algorithm == "ma-sgd"
                 else (ws + us).mean(axis=0)).astype(np.float32)
        first = False
    return model.astype(np.float64)
