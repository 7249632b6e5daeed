"""A cache folder pyupmem cannot use is refused with CacheFolderError naming the fix, for
the emulator's own build (its libdpu.so runs as native code) as for build_program."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

USES = {
    "DpuSet": "pim.DpuSet(1)",
    "build_program": "pim.build_program('int main(void) { return 0; }', nr_tasklets=1)",
}


def _use(cache: Path | str, use: str) -> subprocess.CompletedProcess:
    code = (
        "import pyupmem as pim\n"
        f"try:\n    {USES[use]}\n"
        "except pim.CacheFolderError as error:\n    print('CacheFolderError:', error)\n"
    )
    env = {**os.environ, "PYUPMEM_CACHE_DIR": str(cache), "PYUPMEM_BACKEND": "emulator"}
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("use", sorted(USES))
def test_a_cache_path_that_is_a_file(tmp_path: Path, use: str) -> None:
    cache = tmp_path / "a_file"
    cache.write_text("not a folder")
    result = _use(cache, use)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert f"CacheFolderError: the cache path {cache} is not a folder" in result.stdout
    assert "Fix: set PYUPMEM_CACHE_DIR" in result.stdout


@pytest.mark.parametrize("use", sorted(USES))
def test_a_cache_path_under_proc(use: str) -> None:
    result = _use("/proc/pyupmem-cache", use)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "CacheFolderError: cannot create the cache folder /proc/pyupmem-cache" in result.stdout
    assert "Fix: set PYUPMEM_CACHE_DIR" in result.stdout


@pytest.mark.parametrize("use", sorted(USES))
def test_a_world_writable_cache_folder_is_refused(tmp_path: Path, use: str) -> None:
    cache = tmp_path / "shared"
    cache.mkdir()
    cache.chmod(0o777)
    result = _use(cache, use)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "CacheFolderError: the cache folder" in result.stdout
    assert "can be written by others" in result.stdout and "chmod go-w" in result.stdout
    assert not (cache / "emulator").exists()  # nothing built, nothing loaded from there
