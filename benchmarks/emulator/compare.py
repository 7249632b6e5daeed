"""The compute-bound row (c) of run.py for two checkouts of pyupmem, run alternately in one
session, so that a change's effect on the emulator's speed is measured under the same load.

    .venv/bin/python benchmarks/emulator/compare.py BEFORE [AFTER] [--rounds 5]

BEFORE and AFTER are checkouts (AFTER defaults to this one), for example a worktree of an
older commit: ``git worktree add /tmp/before COMMIT``. Each checkout builds its own
emulator and its own copy of the benchmark (with its own toolchain, so a change in how DPU
programs are compiled shows); each round runs both, and each run's ratio is against the
native loop that the same run times on all cores.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import run  # this folder's run.py: how row (c) runs and reports

HERE = Path(__file__).resolve().parent

# Run in a child with the checkout first on sys.path: its pyupmem builds its emulator and
# its run.py builds the benchmark; prints where the binaries are.
BUILD = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1] + "/benchmarks/emulator")
import run
binaries = run.build(Path(sys.argv[2]))
print(json.dumps({name: str(path) for name, path in binaries.items()}))
"""


def build(checkout: Path, workdir: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    output = subprocess.run(
        [sys.executable, "-c", BUILD, str(checkout), str(workdir)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    return json.loads(output.splitlines()[-1])


def compute_ratio(binaries: dict[str, str], key: str, iterations: int) -> float:
    """Native time over emulated time of one run of the compute-bound row."""
    output = run.run(Path(binaries["bench"]), "compute", binaries[key], iterations)
    rows = run.records(output, "compute_cores")
    if not rows:
        raise SystemExit(f"no compute row in the output of {binaries['bench']}")
    if not rows[0]["same_results"]:
        raise SystemExit(f"{binaries[key]}: the emulator's results differ from native")
    return rows[0]["native_s"] / rows[0]["emulator_s"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the checkout to compare against")
    parser.add_argument("after", type=Path, nargs="?", default=HERE.parent.parent)
    parser.add_argument("--rounds", type=int, default=5, help="runs of each, alternating")
    parser.add_argument("--iterations", type=int, default=2_000_000)
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    checkouts = {"before": args.before.resolve(), "after": args.after.resolve()}
    for name, checkout in checkouts.items():
        if not (checkout / "pyupmem" / "__init__.py").is_file():
            parser.error(f"{name}: {checkout} is not a pyupmem checkout (no pyupmem/__init__.py)")
    with tempfile.TemporaryDirectory() as workdir:
        binaries = {}
        for name, checkout in checkouts.items():
            (Path(workdir) / name).mkdir()
            binaries[name] = build(checkout, Path(workdir) / name)
        for key, what in (
            ("compute", "with cost counting"),
            ("compute_uncounted", "without cost counting"),
        ):
            ratios: dict[str, list[float]] = {name: [] for name in checkouts}
            for _ in range(args.rounds):
                for name in checkouts:
                    ratios[name].append(compute_ratio(binaries[name], key, args.iterations))
            print(f"(c) compute-bound, 64 DPUs x 16 tasklets, {what} "
                  f"({args.rounds} alternating runs; x native):")
            for name, checkout in checkouts.items():
                values = ratios[name]
                runs = ", ".join(f"{value:.2f}" for value in values)
                print(f"  {name:6s} best {max(values):.2f}x, "
                      f"median {statistics.median(values):.2f}x  ({runs})  {checkout}")


if __name__ == "__main__":
    main()
