"""The layouts of rl.layouts on a small example, shown on the RL layouts page.

Run it from the repository root::

    .venv/bin/python docs/explanation/rl_layouts_examples.py
"""

# [start-layouts]
from rl.layouts import learner_indices

n, dpus, tasklets = 22, 2, 3  # 22 transitions, 2 DPUs x 3 tasklets = 6 learners
for layout in ("block", "stride", "random"):
    print(layout)
    per_learner = learner_indices(layout, n, dpus, tasklets, chunk=2)
    for learner, indices in enumerate(per_learner):
        d, t = divmod(learner, tasklets)
        print(f"  DPU {d} tasklet {t}: {indices.tolist()}")
# [end-layouts]
