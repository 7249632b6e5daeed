"""Tabular Q-learning and SARSA trained from offline datasets, on DPUs and on the CPU.

Modules:

* :mod:`rl.envs` -- the known gymnasium environments and their transition models.
* :mod:`rl.datasets` -- collect, save, load and read SwiftRL text datasets.
* :mod:`rl.layouts` -- how transitions are spread over DPUs and tasklets.
* :mod:`rl.fixed_point` -- the INT32 (Q15.16 / Q0.15) arithmetic, bit for bit.
* :mod:`rl.reference` -- the bit-exact pure-Python reference of the DPU learners.
* :mod:`rl.baseline` -- the vectorised numpy CPU trainer (equal to the reference).
* :mod:`rl.combine` -- averaging the learners' tables.
* :mod:`rl.evaluation` -- value iteration, greedy policies, rollouts in gymnasium.
* :mod:`rl.kernel` -- the host's view of the DPU program (variants, records, memory plan).
* :mod:`rl.trainer` -- training on DPUs through pyupmem, with the four-phase breakdown.

Run ``python -m rl --help`` for the command line (``demo``, ``collect``, ``train``,
``evaluate``, ``quality``).
"""
