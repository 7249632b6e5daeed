"""The cost of scoring a mapping of each large-space layer once its builds are cached and
loaded: 60 random mappings that pass the static rules, timed one by one.

    .venv/bin/python benchmarks/mapping_scoring_cost.py
"""

from __future__ import annotations

import time

import numpy as np

from rl.mapping import LAYERS, MappingEnvironment, layer
from rl.mapping.layers import LAYER_TASKLETS


def main() -> None:
    rng = np.random.default_rng(7)
    for name in LAYERS:
        chosen = layer(name)
        space = chosen.space
        mappings: list[dict] = []
        while len(mappings) < 60:
            mapping = space.from_indices([rng.integers(len(p.values)) for p in space.parameters])
            if chosen.check(mapping) is None:
                mappings.append(mapping)
        with MappingEnvironment(chosen) as env:
            for tasklets in LAYER_TASKLETS:  # build and load every variant first
                for acc in ("int32", "int64"):
                    variant = dict(chosen.default_mapping(), tasklets=tasklets, acc=acc)
                    if chosen.check(variant) is None:
                        env.evaluate(variant)
            seconds, invalid = [], 0
            for mapping in mappings:
                started = time.perf_counter()
                invalid += not env.evaluate(mapping).valid
                seconds.append(time.perf_counter() - started)
        ms = np.array(seconds) * 1e3
        print(f"{name}: mean {ms.mean():.1f} ms, median {np.median(ms):.1f} ms, "
              f"max {ms.max():.0f} ms; {invalid} invalid when run")


if __name__ == "__main__":
    main()
