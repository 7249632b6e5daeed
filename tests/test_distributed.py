"""pyupmem.apps.distributed: the Cluster in one process, and sum_in_order under real mpirun."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import pyupmem
from pyupmem.apps.distributed import BLOCK_DPUS, Cluster, sum_in_order
from pyupmem.errors import ArgumentValueError
from tests.mpi_support import run_mpi


def test_world_outside_mpirun_is_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PMI_SIZE", "PMI_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
                 "MPI_LOCALNRANKS", "HYDRA_CONTROL_FD"):
        monkeypatch.delenv(name, raising=False)
    cluster = Cluster.world()
    assert (cluster.rank, cluster.size, cluster.comm, cluster.is_root) == (0, 1, None, True)
    assert pyupmem.Cluster is Cluster
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert np.array_equal(cluster.sum_in_order(x), x[0] + x[1] + x[2])
    assert cluster.allgather(5) == [5] and cluster.bcast("a") == "a"
    cluster.barrier()
    assert cluster.seconds == 0.0


def test_share_splits_uneven_totals_first_ranks_first() -> None:
    def shares(total: int, size: int) -> list[range]:
        out = []
        for rank in range(size):
            c = Cluster.single()
            c.rank, c.size = rank, size
            out.append(c.share(total))
        return out

    assert shares(10, 4) == [range(0, 3), range(3, 6), range(6, 8), range(8, 10)]
    assert shares(2, 3) == [range(0, 1), range(1, 2), range(2, 2)]
    for total in range(0, 40):
        for size in (1, 2, 3, 7):
            got = shares(total, size)
            assert [i for r in got for i in r] == list(range(total))
            assert max(map(len, got)) - min(map(len, got)) <= 1
    with pytest.raises(ArgumentValueError, match="must be >= 0"):
        Cluster.single().share(-1)


def test_dpu_share_gives_whole_blocks() -> None:
    c = Cluster.single()
    c.rank, c.size = 1, 2
    assert c.dpu_share(256) == range(128, 256)
    assert c.dpu_share(100) == range(64, 100)  # the last block is short
    c.rank, c.size = 0, 3
    assert c.dpu_share(5 * BLOCK_DPUS) == range(0, 2 * BLOCK_DPUS)
    with pytest.raises(ArgumentValueError, match="at least 129 DPUs"):
        c.dpu_share(128)


def test_sum_in_order_is_strictly_left_to_right() -> None:
    # 1e8 + 1 - 1e8 in float32: left to right loses the 1, (1e8 - 1e8) + 1 keeps it
    p = np.array([[1e8], [1.0], [-1e8]], dtype=np.float32)
    assert sum_in_order(p)[0] == np.float32(0.0)
    assert sum_in_order(p[[0, 2, 1]])[0] == np.float32(1.0)
    with pytest.raises(ArgumentValueError, match="blocks >= 1"):
        sum_in_order(np.zeros((0, 3)))


SCRIPT = r"""
import sys
import numpy as np
from pyupmem.apps.distributed import Cluster, sum_in_order

blocks, entries = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(7)
# partials of wildly different magnitudes: float32 sums depend on the order
everything = (rng.standard_normal((blocks, entries)) *
              10.0 ** rng.integers(-6, 8, (blocks, entries))).astype(np.float32)
ints = rng.integers(-2**40, 2**40, (blocks, entries))
cluster = Cluster.world()
assert cluster.size > 1, "not under mpirun"
mine = cluster.share(blocks)
got = cluster.sum_in_order(everything[mine.start:mine.stop])
got_int = cluster.sum_in_order(ints[mine.start:mine.stop])
want = sum_in_order(everything)
assert got.dtype == np.float32
assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), "float32 differs"
assert np.array_equal(got_int, ints.sum(axis=0)), "int64 differs"
# a different order would have given other bits: the test can tell orders apart
assert not np.array_equal(want, sum_in_order(everything[::-1]))
assert cluster.seconds > 0
if cluster.rank == 0:
    print("ok", cluster.size, mine)
"""


@pytest.mark.parametrize("processes", [2, 4])
def test_sum_in_order_under_mpirun_equals_one_process_bit_for_bit(
    processes: int, tmp_path
) -> None:
    script = tmp_path / "sum.py"
    script.write_text(SCRIPT)
    result = run_mpi(processes, [str(script), "11", "5000"], timeout=60)
    assert result.stdout.startswith(f"ok {processes} range(0, ")


def test_mismatched_partials_are_a_clear_error(tmp_path) -> None:
    script = tmp_path / "bad.py"
    script.write_text(
        "import numpy as np\nfrom pyupmem.apps.distributed import Cluster\n"
        "c = Cluster.world()\n"
        "try:\n"
        "    c.sum_in_order(np.zeros((1, 3 + c.rank)))\n"
        "except Exception as e:\n"
        "    if c.rank == 0:\n"
        "        print(type(e).__name__, e)\n")
    result = run_mpi(2, [str(script)], timeout=60)
    assert "ArgumentValueError process 1 passed partials of shape (1, 4)" in result.stdout


def test_phase_timer_shows_inter_server_only_when_recorded() -> None:
    timer = pyupmem.PhaseTimer(warmup=0)
    for _ in timer.repetitions(1):
        with timer.phase(pyupmem.DPU_CPU):
            pass
        with timer.phase(pyupmem.INTER_DPU):
            pass
    assert "Inter-server" not in timer.table()
    for _ in timer.repetitions(1):
        timer.add("inter_server", 0.002)
    assert pyupmem.INTER_SERVER == "Inter-server"
    assert timer.phases() == [pyupmem.INTER_DPU, pyupmem.INTER_SERVER, pyupmem.DPU_CPU]
    assert timer.samples(pyupmem.INTER_SERVER) == [0.002]
    with pytest.raises(ArgumentValueError, match="Did you mean 'Inter-server'"):
        timer.add("Inter-servr", 1.0)


FAKE_CLUSTER = """
import sys, time
import pyupmem.apps.distributed as d
arrive = sys.argv[2] == "all"
class Request:
    def Test(self): return arrive
class Comm:
    def __init__(self, rank): self.rank = rank
    def Get_rank(self): return self.rank
    def Get_size(self): return 2
    def Ibarrier(self):
        print("barrier", file=sys.stderr, flush=True)
        return Request()
    def Abort(self, status):
        print(f"abort {status}", file=sys.stderr, flush=True)
        raise SystemExit(status)
d.AGREEMENT_SECONDS = 0
d.time.sleep = lambda seconds: print(f"wait {seconds:g}", file=sys.stderr, flush=True)
def work():
    raise ValueError("--dpus 3 is too few")
d.run_command(d.Cluster(Comm(int(sys.argv[1]))), work, "prog")
"""


@pytest.mark.parametrize(("rank", "arrive", "expected"), [
    # every process met it: one message (process 0's), all exit 2, no MPI_Abort
    (0, "all", ["prog: error: --dpus 3 is too few", "barrier"]),
    (1, "all", ["barrier"]),
    # another process never comes: the message is out before MPI_Abort(2)
    (0, "not", ["prog: error: --dpus 3 is too few", "barrier", "wait 1", "abort 2"]),
    (1, "not", ["barrier", "prog (process 1): error: --dpus 3 is too few", "wait 1", "abort 2"]),
])
def test_a_bad_option_is_reported_once_and_ends_every_process(rank, arrive, expected) -> None:
    result = subprocess.run([sys.executable, "-c", FAKE_CLUSTER, str(rank), arrive],
                            capture_output=True, text=True, timeout=60)
    events = [x for x in result.stderr.splitlines()
              if x.startswith(("wait", "abort", "prog", "barrier"))]
    assert result.returncode == 2, result.stderr
    assert events == expected, result.stderr
