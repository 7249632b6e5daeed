"""The programs of the UPMEM SDK's own test/ folder, written again as an SDK user would
(tests/emu_programs/sdk_examples/), build with the emulator's toolchain and give the
results the SDK documents:

- hello world: the log holds "Hello World!" (test/1_helloworld, "Hello World! Example");
- tasklet stack check: built with NR_TASKLETS=3, STACK_SIZE_DEFAULT=256 and
  STACK_SIZE_TASKLET_1=2048, check_stack() gives each tasklet what is left of its own stack
  (test/2_tasklet_stack_check, "Tasklet management and synchronization");
- mutex: the first tasklet in sets shared_variable to 1 << me(), every tasklet returns that
  value (test/3_mutex, "Mutexes");
- virtual mutex and mutex pool: the histogram of a 1 MiB table of bytes is exact
  (test/4_vmutex, test/5_mutex_pool, "Virtual mutexes", "Mutex pools");
- barrier: after tasklet 0 fills coefficients[i] = i, tasklet t sums
  coefficients[32 t .. 32 t + 31] (test/7_barrier, "Barriers");
- fixed-size buffer: each tasklet's list of 11 values keeps the odd ones, their sum is the
  result (test/8_fixed_size_buffer, "Fixed-size block allocator");
- MRAM access: mram_write then mram_read give back the data, and plain accesses to an MRAM
  variable read back what was stored (test/9_simple_mram_access, "MRAM accesses").
"""

import re
import subprocess

import numpy as np
import pytest
from emu_support import PROGRAMS, build_dpu, build_host, parse_codes, run, toolchain_env

EXAMPLES = PROGRAMS / "sdk_examples"

STACK_FLAGS = ("-DNR_TASKLETS=3", "-DSTACK_SIZE_DEFAULT=256", "-DSTACK_SIZE_TASKLET_1=2048")

# Each DPU program with the flags it is built with, as the SDK's examples are.
BUILDS = {
    "helloworld.c": (),
    "tasklet_stack_check.c": STACK_FLAGS,
    "mutex_example.c": ("-DNR_TASKLETS=16",),
    "vmutex_example.c": ("-DNR_TASKLETS=16",),
    "mutex_pool_example.c": ("-DNR_TASKLETS=16",),
    "barrier_example.c": ("-DNR_TASKLETS=4",),
    "fsb_example.c": ("-DNR_TASKLETS=4",),
    "mram_example.c": ("-DNR_TASKLETS=16",),
}


def run_example(name: str, *args: str | object, dpu_flags: tuple[str, ...] | None = None):
    """Builds sdk_examples/`name`.c (with `dpu_flags`, else its BUILDS flags) and its host,
    runs the host with `args` and checks that it succeeded."""
    flags = BUILDS[f"{name}.c"] if dpu_flags is None else dpu_flags
    dpu = build_dpu(f"sdk_examples/{name}.c", *flags)
    tasklets = [f for f in flags if f.startswith("-DNR_TASKLETS=")]
    shared = name in ("vmutex_example", "mutex_pool_example")
    host_source = "histogram_host.c" if shared else f"{name}_host.c"
    host = build_host(f"sdk_examples/{host_source}", "-std=c11", f'-DDPU_BINARY="{dpu}"', *tasklets)
    result = run([host, *args])
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def log_lines(stdout: str) -> list[str]:
    """The DPU's log lines, without dpu_log_read's "=== DPU#... ===" header, and without
    the host's own name=value lines."""
    return [
        line
        for line in stdout.splitlines()
        if not line.startswith("=== DPU#") and not re.fullmatch(r"\w+=-?\d+", line)
    ]


@pytest.mark.parametrize("source", sorted(BUILDS))
def test_example_builds_without_warnings(source):
    """As C11 with -Wall -Wextra, with the flags each is built with."""
    result = subprocess.run(
        ["dpu-upmem-dpurte-clang", "-std=c11", "-O2", "-Wall", "-Wextra", *BUILDS[source], "-c",
         str(EXAMPLES / source), "-o", "/dev/null"],
        env=toolchain_env(),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0 and result.stderr == "", result.stderr


def test_hello_world():
    result = run_example("helloworld")
    lines = result.stdout.splitlines()
    assert lines[0] == "=== DPU#0x0 ==="
    assert lines[1:] == ["Hello World!"]


def test_tasklet_stack_check():
    """Every tasklet runs the same code, so what is left differs by what each was given:
    tasklet 1 has 2048 - 256 bytes more than tasklets 0 and 2, and what is left of a
    256-byte stack is less than 256 bytes but not nothing."""
    lines = log_lines(run_example("tasklet_stack_check").stdout)
    assert sorted(line.split(":")[0] for line in lines) == ["tasklet 0", "tasklet 1", "tasklet 2"]
    left = {int(line.split()[1].rstrip(":")): int(line.rsplit("=", 1)[1]) for line in lines}
    assert 0 < left[0] < 256
    assert left[2] == left[0]
    assert left[1] - left[0] == 2048 - 256


def test_tasklet_stack_check_default_stack():
    """Without STACK_SIZE_* every tasklet gets the SDK's default stack, 1024 bytes (what
    dpu_stack_analyzer reports as "Allocated size" for a program built without them)."""
    sized = log_lines(run_example("tasklet_stack_check").stdout)
    default = log_lines(run_example("tasklet_stack_check", dpu_flags=("-DNR_TASKLETS=3",)).stdout)
    left_256 = {line.split(":")[0]: int(line.rsplit("=", 1)[1]) for line in sized}["tasklet 0"]
    left = {line.split(":")[0]: int(line.rsplit("=", 1)[1]) for line in default}
    assert sorted(left) == ["tasklet 0", "tasklet 1", "tasklet 2"]
    assert set(left.values()) == {left_256 + 1024 - 256}


def test_mutex():
    """One tasklet at a time: the first one in finds the variable undefined and sets it to
    1 << me(), every later one finds that value, and every tasklet returns it."""
    result = run_example("mutex_example")
    lines = log_lines(result.stdout)
    found = [(int(line.split()[1].rstrip(":")), int(line.rsplit(" ", 1)[1])) for line in lines]
    assert sorted(t for t, _ in found) == list(range(16))
    first = found[0][0]
    assert found[0][1] == -1
    assert all(value == 1 << first for _, value in found[1:])
    codes = parse_codes(result.stdout)
    assert codes["shared_variable"] == 1 << first
    assert codes["nr_writers"] == 1
    assert [codes[f"returned_{t}"] for t in range(16)] == [1 << first] * 16


def skewed_table(seed: int) -> np.ndarray:
    """1 MiB of bytes, half of them in bins 0..7 (one hardware mutex of the pool, and the
    same few bins for every tasklet), the rest spread over all 256 bins."""
    rng = np.random.default_rng(seed)
    size = 1 << 20
    table = rng.integers(0, 256, size, dtype=np.uint8)
    hot = rng.random(size) < 0.5
    table[hot] = rng.integers(0, 8, int(hot.sum()), dtype=np.uint8)
    return table


@pytest.mark.parametrize("name", ["vmutex_example", "mutex_pool_example"])
def test_histogram_with_shared_locks(name, tmp_path):
    table = skewed_table(16)
    path = tmp_path / "input.bin"
    path.write_bytes(table.tobytes())
    result = run_example(name, path)
    counts = {}
    for line in result.stdout.splitlines():
        bin_, count = line.removeprefix("histogram[").split("] = ")
        counts[int(bin_)] = int(count)
    assert sorted(counts) == list(range(256))
    expected = np.bincount(table, minlength=256)
    assert [counts[b] for b in range(256)] == expected.tolist()
    assert sum(counts.values()) == 1 << 20


def test_barrier():
    """No tasklet sums before tasklet 0 has filled the table: tasklet t gets
    sum(32 t .. 32 t + 31) = 1024 t + 496."""
    result = run_example("barrier_example")
    expected = {t: sum(range(32 * t, 32 * t + 32)) for t in range(4)}
    assert expected == {0: 496, 1: 1520, 2: 2544, 3: 3568}
    lines = sorted(f"tasklet[{t}]: {s}" for t, s in expected.items())
    assert sorted(log_lines(result.stdout)) == lines
    codes = parse_codes(result.stdout)
    assert {t: codes[f"checksum_{t}"] for t in range(4)} == expected


FSB_VALUES = (42, 1, -2, 13, 22, 10000, 0, 91, -45, 9, 0)


def test_fixed_size_buffer():
    """A node (an int and a pointer) is 8 bytes; tasklet t keeps the odd values of
    t + FSB_VALUES and sums them; every block freed goes back to its allocator."""
    result = run_example("fsb_example")
    codes = parse_codes(result.stdout)
    assert codes["node_size"] == 8
    expected = {t: sum(v for v in (t + x for x in FSB_VALUES) if v % 2) for t in range(4)}
    assert expected[0] == 69 and expected[1] == 10068
    assert {t: codes[f"result_{t}"] for t in range(4)} == expected
    lines = sorted(f"tasklet[{t}]: result = {r}" for t, r in expected.items())
    assert sorted(log_lines(result.stdout)) == lines
    assert [codes[f"blocks_back_{t}"] for t in range(4)] == [1000] * 4


def test_mram_access():
    result = run_example("mram_example")
    codes = parse_codes(result.stdout)
    assert [codes[f"status_{t}"] for t in range(16)] == [0] * 16
    assert [codes[f"array_ok_{t}"] for t in range(16)] == [1] * 16
    assert [codes[f"output_{i}"] for i in range(4)] == [0, 2, 4, 6]
    assert [codes[f"mram_values_{i}"] for i in range(4)] == [0, 2, 4, 6]
