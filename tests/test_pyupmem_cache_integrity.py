"""Stored builds carry content hashes checked on use: a damaged DPU program or emulator
build is rebuilt with a CacheWarning, never loaded; ``python -m pyupmem cache
info|verify|clear``; one emulator build per interpreter, whatever link started it."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import pyupmem as pim
from pyupmem import emu
from pyupmem.__main__ import main

KERNEL = "#include <defs.h>\n__host int x = 41;\nint main(void) { x += 1; return 0; }\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("PYUPMEM_CACHE_DIR", str(folder))
    return folder


@pytest.fixture(scope="module")
def built_emulator(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder holding one emulator build (built once; tests copy it)."""
    folder = tmp_path_factory.mktemp("emulator-cache")
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stderr(io.StringIO()) as err:
        patch.setenv("PYUPMEM_CACHE_DIR", str(folder))
        patch.delenv("PYUPMEM_EMU_QUIET", raising=False)
        emu.build()
        BUILD_NOTICES.append(err.getvalue())
        emu.build()  # built: silent
        BUILD_NOTICES.append(err.getvalue())
    return folder


BUILD_NOTICES: list[str] = []
"""What the first emu.build() printed on stderr, then what both had printed."""


def test_a_build_says_so_in_one_line_and_a_cached_one_says_nothing(built_emulator: Path) -> None:
    first, both = BUILD_NOTICES
    assert first.count("\n") == 1 and first.startswith("pyupmem: building the emulator into ")
    assert str(built_emulator / "emulator") in first
    assert both == first


def _copy_emulator(built: Path, cache: Path) -> Path:
    shutil.copytree(built, cache, symlinks=True)
    (root,) = [p for p in (cache / "emulator").iterdir() if p.is_dir()]
    return root


def _run(program: pim.Program) -> int:
    with pim.DpuSet(1) as dpu:
        dpu.load(program)
        dpu.launch()
        return int(dpu.read("x"))


def _damage_truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _damage_overwrite(path: Path) -> None:
    """Same size, other bytes: only the hash can tell."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 64] = bytes(64)
    if data == path.read_bytes():
        data[-1] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [_damage_truncate, _damage_overwrite])
def test_a_damaged_program_is_rebuilt_with_a_warning(cache: Path, damage) -> None:
    first = pim.build_program(KERNEL, nr_tasklets=1)
    good = first.path.read_bytes()
    damage(first.path)
    assert first.path.read_bytes() != good
    with pytest.warns(pim.CacheWarning, match="damaged") as caught:
        second = pim.build_program(KERNEL, nr_tasklets=1)
    assert str(first.path) in str(caught[0].message)
    assert second.path == first.path  # rebuilt in place, same key
    assert _run(second) == 42
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a sound build is reused silently
        assert pim.build_program(KERNEL, nr_tasklets=1).path == second.path


def test_a_program_without_its_record_is_rebuilt(cache: Path) -> None:
    first = pim.build_program(KERNEL, nr_tasklets=1)
    (first.path.parent / "build.json").unlink()
    with pytest.warns(pim.CacheWarning, match="build.json"):
        second = pim.build_program(KERNEL, nr_tasklets=1)
    assert (second.path.parent / "build.json").is_file() and _run(second) == 42


def test_a_damaged_emulator_is_rebuilt_with_a_warning(built_emulator: Path, cache: Path) -> None:
    root = _copy_emulator(built_emulator, cache)
    assert emu.check_build(root) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert emu.build().root == root
    _damage_truncate(root / "lib" / "libdpu.so")
    assert "lib/libdpu.so" in (emu.check_build(root) or "")
    with pytest.warns(pim.CacheWarning, match="libdpu.so"):
        rebuilt = emu.build()
    assert rebuilt.root == root and emu.check_build(root) is None


def test_the_emulator_check_sees_files_and_links(built_emulator: Path, cache: Path) -> None:
    root = _copy_emulator(built_emulator, cache)
    (root / "bin" / "dpu-pkg-config").unlink()
    assert "bin/dpu-pkg-config is missing" in (emu.check_build(root) or "")
    root = _copy_emulator(built_emulator, cache.parent / "other")
    link = root / "upmem" / "lib" / "libdpu.so"
    link.unlink()
    link.symlink_to("/nonexistent")
    assert "upmem/lib/libdpu.so" in (emu.check_build(root) or "")
    (root / "python" / "dpu" / "__pycache__").mkdir()  # what importing it leaves is fine
    link.unlink()
    link.symlink_to(os.readlink(built_emulator / root.relative_to(cache.parent / "other")
                                / "upmem" / "lib" / "libdpu.so"))
    assert emu.check_build(root) is None


def test_cache_info_verify_and_clear(
    built_emulator: Path, cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy_emulator(built_emulator, cache)
    program = pim.build_program(KERNEL, nr_tasklets=1)
    other = pim.build_program(KERNEL.replace("41", "7"), nr_tasklets=1, name="other")

    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert f"folder:   {cache}" in out
    assert "emulator builds: 1" in out and "DPU programs: 2" in out
    assert str(root) in out and str(program.path.parent) in out and "other" in out
    total = sum(f.lstat().st_size for f in cache.rglob("*") if not f.is_dir())
    # the emulator alone is about 1 MiB, so the total is in KiB or MiB as it grows
    shown = f"{total / 1024:.1f} KiB" if total < 1024**2 else f"{total / 1024**2:.1f} MiB"
    assert f"total:    {shown}" in out

    assert main(["cache", "verify"]) == 0
    assert "checked 3 builds: 0 damaged" in capsys.readouterr().out

    _damage_overwrite(other.path)
    _damage_truncate(root / "lib" / "dpu-worker")
    assert main(["cache", "verify"]) == 1
    out = capsys.readouterr().out
    assert "checked 3 builds: 2 damaged" in out
    assert f"damaged program build {other.path.parent}" in out and "SHA-256" in out
    assert f"damaged emulator build {root}" in out and "dpu-worker" in out
    assert not other.path.exists() and not root.exists() and program.path.exists()
    assert main(["cache", "verify"]) == 0
    capsys.readouterr()

    assert main(["cache", "clear"]) == 0
    assert "removed every build" in capsys.readouterr().out
    assert not cache.exists()  # nothing left behind
    assert main(["cache", "info"]) == 0
    assert "emulator builds: 0" in capsys.readouterr().out


def test_cache_clear_keeps_what_is_not_the_caches(
    cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pim.build_program(KERNEL, nr_tasklets=1)
    (cache / "notes.txt").write_text("mine")  # PYUPMEM_CACHE_DIR may be a shared folder
    assert main(["cache", "clear"]) == 0
    assert sorted(p.name for p in cache.iterdir()) == ["notes.txt"]


def test_cache_json(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    program = pim.build_program(KERNEL, nr_tasklets=1)
    assert main(["cache", "info", "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert facts["folder"] == str(cache)
    assert [e["path"] for e in facts["entries"]] == [str(program.path.parent)]
    assert facts["entries"][0]["size"] > program.path.stat().st_size


def test_python_and_python3_share_one_emulator_build(tmp_path: Path) -> None:
    """``.venv/bin/python`` and ``.venv/bin/python3`` are links to one interpreter."""
    links = [Path(sys.executable).parent / name for name in ("python", "python3")]
    if not all(link.exists() for link in links) or len({os.path.realpath(p) for p in links}) > 1:
        pytest.skip("needs python and python3 beside sys.executable, links to one interpreter")
    env = dict(os.environ, PYUPMEM_CACHE_DIR=str(tmp_path / "cache"))
    code = "from pyupmem import emu; print(emu.build().root)"
    roots = [
        subprocess.run([str(link), "-c", code], env=env, capture_output=True, text=True,
                       check=True).stdout.strip()
        for link in links
    ]
    assert roots[0] == roots[1]
    assert len([p for p in (tmp_path / "cache" / "emulator").iterdir() if p.is_dir()]) == 1
    tool = Path(roots[0]) / "libexec" / "cost" / "as"
    assert os.path.realpath(sys.executable) in tool.read_text()  # the interpreter, no link
