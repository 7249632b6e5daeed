"""pimopt: distributed optimisation of linear models on UPMEM DPUs (the PIM-Opt workload).

Logistic regression and linear SVMs trained with GA-SGD, MA-SGD and consensus ADMM on
DPUs through pyupmem, in FP32 or INT32 fixed point (:mod:`pimopt.fixed_point`), with a
bit-exact CPU reference (:mod:`pimopt.reference`), scikit-learn and numpy baselines
(:mod:`pimopt.baselines`), LIBSVM data and seeded generators (:mod:`pimopt.data`) and
the command line ``python -m pimopt``.
"""

from .algorithms import ALGORITHMS, FORMATS, MODELS, SCHEDULES, Config
from .trainer import Trainer, TrainResult, combine

__all__ = ["ALGORITHMS", "FORMATS", "MODELS", "SCHEDULES", "Config", "Trainer", "TrainResult",
           "combine"]
