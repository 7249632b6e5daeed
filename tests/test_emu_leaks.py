"""Nothing is left behind: no worker process and no shared-memory file of the emulator
remains after dpu_free, after 200 alloc/load/launch/free cycles, or after the host is
killed with SIGKILL."""

import ctypes
import os
import signal
import subprocess
import time
from pathlib import Path

from emu_support import (
    build_dpu,
    build_host,
    descendants,
    emulator_memory,
    pyupmem_memory_owners,
    pyupmem_processes,
    toolchain_env,
)

PR_SET_CHILD_SUBREAPER = 36


def start_holder(nr_dpus: int, cycles: int) -> subprocess.Popen:
    holder = subprocess.Popen(
        [
            str(build_host("hold.c")),
            str(build_dpu("everything.c", "-DNR_TASKLETS=16")),
            str(nr_dpus),
            str(cycles),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=toolchain_env(),
    )
    assert holder.stdout.readline().startswith("ready")
    return holder


def wait_until(condition, seconds: float = 60.0) -> bool:
    """Polls ``condition`` until true; the bound only catches a hang (a loaded machine may
    take seconds to reap the workers)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_free_leaves_no_worker_and_no_shared_memory():
    holder = start_holder(64, 0)
    try:
        # 1 zygote + 64 workers while allocated.
        assert len(descendants(holder.pid)) == 65
        assert emulator_memory(holder.pid)
        holder.stdin.write("free\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "freed"
        assert descendants(holder.pid) == set()
        assert emulator_memory(holder.pid) == []
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)


def test_200_cycles_leave_nothing_behind():
    holder = start_holder(8, 200)
    try:
        assert descendants(holder.pid) == set()
        assert emulator_memory(holder.pid) == []
        assert len(os.listdir(f"/proc/{holder.pid}/fd")) <= 4  # stdin, stdout, stderr (+1)
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)


def test_sigkill_of_the_host_leaves_nothing_behind():
    libc = ctypes.CDLL(None, use_errno=True)
    # Orphans get re-parented to us, so that we can reap them and see them go.
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    try:
        holder = start_holder(64, 0)
        workers = descendants(holder.pid)
        assert len(workers) == 65
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)

        def all_gone() -> bool:
            try:
                while os.waitpid(-1, os.WNOHANG)[0] > 0:
                    pass
            except ChildProcessError:
                pass
            return not any(Path(f"/proc/{pid}").exists() for pid in workers)

        assert wait_until(all_gone), "workers survived their host"
        assert not [pid for pid in pyupmem_processes() if pid in workers]
        assert not [pid for pid in pyupmem_memory_owners() if pid in workers | {holder.pid}]
        assert not [f for f in os.listdir("/dev/shm") if "pyupmem" in f]
    finally:
        libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
