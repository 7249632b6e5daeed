"""Moving to real hardware or the SDK's simulator: how pyupmem finds libdpu, and profiles.

Nothing in a script changes between the emulator, the SDK's simulator and hardware: only
which libdpu is loaded. This tutorial shows the knobs on the emulator; on a machine with
the SDK the same lines pick the SDK.

Run it from the repository root::

    .venv/bin/python docs/tutorials/hardware.py
"""

# [start-which]
import os
import subprocess
import sys
import textwrap

import pyupmem as pim

backend = pim.find_backend()  # what DpuSet and build_program use by default
print("kind:", backend.kind)
print("library is the emulator's:", backend.library.endswith("/lib/libdpu.so"))
print("compiler:", backend.compiler.name)
# [end-which]


# [start-info]
def info(*args: str, **env: str) -> str:
    """Run ``python -m pyupmem info`` with extra arguments and environment variables."""
    command = [sys.executable, "-m", "pyupmem", "info", *args]
    environment = {**os.environ, **env}
    result = subprocess.run(command, env=environment, capture_output=True, text=True)
    return (result.stdout + result.stderr).strip()


print(info())
# [end-info]

# [start-choose]
print(info(PYUPMEM_BACKEND="emulator").splitlines()[0])  # force the emulator
print(info(PYUPMEM_LIBDPU=backend.library).splitlines()[0])  # this very library
no_sdk = info(PYUPMEM_BACKEND="sdk", UPMEM_HOME="/nonexistent")  # no SDK here
print(textwrap.fill(no_sdk, 88))
# [end-choose]

# [start-profiles]
print(info("--profile", "nrRanks=2"))  # the emulator: a 2-rank system
with pim.DpuSet(profile={"nrRanks": 4}) as dpus:  # a mapping or "nrRanks=4"
    print("DpuSet() with nrRanks=4:", len(dpus), "DPUs in", dpus.nr_ranks, "ranks")
with pim.DpuSet(nr_ranks=1, profile="backend=simulator") as rank:  # SDK profiles work
    print("one rank:", len(rank), "DPUs")
print(info(PYUPMEM_EMU_NR_RANKS="1").splitlines()[-1])  # system size by environment
# [end-profiles]

# [start-errors]
try:
    pim.DpuSet(profile="nrRanks")  # a key without a value
except pim.DpuProfileError as error:
    print("bad profile:", error.name)
try:
    pim.DpuSet(3000)  # more DPUs than the 40 x 64 = 2,560 of the default system
except pim.DpuAllocationError as error:
    print("too many:", error.name)
# [end-errors]
