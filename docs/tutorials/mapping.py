"""Mapping search: the fastest way to run an MLP layer on 64 to 2,560 DPUs, found by
decentralised multi-agent RL and scored by the emulator's hardware-time model.

Run it from the repository root::

    .venv/bin/python docs/tutorials/mapping.py
"""

# [start-space]
from rl.mapping import MappingEnvironment, search, workload

layer = workload("mlp")  # int8, 1,024 outputs x 1,024 inputs, one input vector
print(layer.description)
for parameter in layer.space.parameters:
    print(f"  {parameter.name:<9} {list(parameter.values)}  ({parameter.help})")
print(f"{layer.space.size} mappings")
# [end-space]

# [start-search]
with MappingEnvironment(layer) as env:
    default = env.evaluate(layer.default_mapping())
    result = search(env, "marl-bandit", budget=150, seed=0)
    best = result.best
    print(f"agents: {result.clusters}")
    print(f"best after {result.evaluations} evaluations: {best.seconds * 1e3:.3f} ms")
    print("  " + ", ".join(f"{k}={v}" for k, v in best.mapping.items()))
    print("  " + ", ".join(f"{k} {v * 1e3:.3f} ms" for k, v in best.phases.items()))
    print(f"default: {default.seconds * 1e3:.3f} ms "
          f"({', '.join(f'{k}={v}' for k, v in default.mapping.items())})")
    print("  " + ", ".join(f"{k} {v * 1e3:.3f} ms" for k, v in default.phases.items()))
    print(f"speedup over the default: {default.seconds / best.seconds:.2f}x")
    invalid = env.evaluate({**best.mapping, "tasklets": 24, "block": 2048})
    print(f"an invalid mapping: {invalid.reason}")
# [end-search]
