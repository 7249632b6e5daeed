"""A release installs and runs: the sdist carries the whole project, the wheel built from it
carries every module and data file, and the wheel, installed without ``-e`` in a fresh
virtual environment, runs the rl demo and a vector addition from a folder outside the tree.

One build and one installation serve every test here (module-scoped fixtures); they take
about a minute, most of it pip installing numpy and gymnasium from its cache.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("pyupmem", "rl")


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None,
         timeout: int = 600) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout)
    assert result.returncode == 0, (
        f"{' '.join(command)} failed (exit {result.returncode}):\n"
        f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    )
    return result


def _tracked(folder: str) -> list[str]:
    """The files git tracks under ``folder`` (paths relative to the root)."""
    listed = _run(["git", "ls-files", "--", folder], ROOT).stdout.split()
    return [path for path in listed if (ROOT / path).is_file()]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist and the wheel that ``python -m build`` makes from it."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout (the file lists come from git ls-files)")
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], ROOT)
    (sdist,) = out.glob("pyupmem-*.tar.gz")
    (wheel,) = out.glob("pyupmem-*.whl")
    return {"sdist": sdist, "wheel": wheel}


@pytest.fixture(scope="module")
def installed(dist: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A fresh venv with the wheel installed (not editable), a cache folder of its own,
    and an empty working folder outside the tree."""
    base = tmp_path_factory.mktemp("installed")
    venv = base / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], base)
    python = venv / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", str(dist["wheel"])], base)
    work = base / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYUPMEM_CACHE_DIR"] = str(base / "cache")  # the emulator builds from the wheel's files
    env["PYUPMEM_EMU_QUIET"] = "1"
    env.pop("PYUPMEM_BACKEND", None)
    return {"python": python, "work": work, "env": env, "venv": venv}


def test_the_sdist_carries_the_project(dist: dict[str, Path]) -> None:
    with tarfile.open(dist["sdist"]) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    wanted = [
        *_tracked("pyupmem"), *_tracked("rl"), *_tracked("dpu_programs"), *_tracked("tests"),
        *_tracked("docs"), *_tracked("benchmarks"), "pyproject.toml", "setup.py",
        "MANIFEST.in", "README.md",
    ]
    missing = sorted(set(wanted) - names)
    assert not missing, f"the sdist lacks {len(missing)} files, e.g. {missing[:10]}"


def test_the_wheel_carries_every_module_and_the_dpu_programs(dist: dict[str, Path]) -> None:
    with zipfile.ZipFile(dist["wheel"]) as archive:
        names = set(archive.namelist())
    wanted = {path for package in PACKAGES for path in _tracked(package)}
    wanted |= {f"rl/dpu_programs/{Path(p).name}" for p in _tracked("dpu_programs/rl")}
    wanted |= {f"pimopt/dpu_programs/{Path(p).name}" for p in _tracked("dpu_programs/pimopt")}
    # the header both programs include (pyupmem.apps.training.include_dir)
    wanted |= {f"pyupmem/dpu_programs/{Path(p).name}" for p in _tracked("dpu_programs/common")}
    assert "pyupmem/dpu_programs/fixed_point.h" in wanted
    missing = sorted(wanted - names)
    assert not missing, f"the wheel lacks {len(missing)} files, e.g. {missing[:10]}"
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]
    # PEP 561: type checkers read the packages' annotations
    assert {"pyupmem/py.typed", "rl/py.typed", "pimopt/py.typed"} <= names


def test_the_installed_packages_are_the_wheels(installed: dict) -> None:
    """The checks below would prove nothing if the venv imported the checkout."""
    code = "import pyupmem, rl.kernel; print(pyupmem.__file__); print(rl.kernel.kernel_source())"
    result = _run([str(installed["python"]), "-c", code], installed["work"], installed["env"])
    for line in result.stdout.split():
        path = Path(line).resolve()
        assert path.is_relative_to(installed["venv"].resolve()), f"{path} is not in the venv"
        assert not path.is_relative_to(ROOT), f"{path} is in the checkout"


def test_the_installed_rl_demo_runs(installed: dict) -> None:
    command = [
        str(installed["python"]), "-m", "rl", "demo", "--transitions", "20000",
        "--episodes", "100", "--dpus", "4", "--tasklets", "4", "--no-progress",
    ]
    result = _run(command, installed["work"], installed["env"], timeout=300)
    assert "rl demo:" in result.stdout
    assert "learned greedy policy: success" in result.stdout, result.stdout


def test_the_installed_pyupmem_adds_vectors(installed: dict) -> None:
    for name in ("vecadd.py", "vecadd.c"):
        shutil.copy(ROOT / "docs" / "examples" / name, installed["work"] / name)
    command = [str(installed["python"]), "vecadd.py", "--dpus", "8", "--elements", "10000"]
    result = _run(command, installed["work"], installed["env"], timeout=300)
    assert "vecadd of 10000 elements on 8 DPUs: OK" in result.stdout, result.stdout
