"""pyupmem's folders are its layers: no import climbs from a lower layer to a higher one.

The rule is read from the imports themselves (every ``import`` and ``from ... import`` of
each module, at top level, in functions and under ``TYPE_CHECKING`` alike), so a new
module or a new import that breaks it fails here, naming the file and the line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pyupmem

PACKAGE_ROOT = Path(pyupmem.__file__).resolve().parent

# Bottom to top: a module may import from its own layer and those before it.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("driver", ("pyupmem.errors", "pyupmem.driver", "pyupmem.emu")),
    ("build", ("pyupmem.build",)),
    ("estimate", ("pyupmem.estimate",)),
    ("dpus", ("pyupmem.dpus",)),
    ("apps", ("pyupmem.apps", "pyupmem.array", "pyupmem.sdk_compat")),
    ("interface", ("pyupmem",)),  # the package's re-exports and its command line
]

# The published public names of `import pyupmem` (the docs' examples use them): the layout
# may change underneath, these may not.
PUBLIC_NAMES = {
    "ALL", "ArgumentTypeError", "ArgumentValueError", "Backend", "BackendError", "CPU_DPU",
    "CacheFolderError", "CacheWarning", "Cluster", "CompileError", "CompileWarning", "DPU_CPU",
    "DPU_KERNEL", "DPU_MRAM_HEAP_POINTER_NAME", "Dpu", "DpuAccessError", "DpuAllocationError",
    "DpuBusyError", "DpuError", "DpuFaultError", "DpuIndexError", "DpuProfileError",
    "DpuProgramError", "DpuSet", "DpuSetError", "DpuStatus", "DpuSymbolError",
    "DpuTimeoutError", "INTER_DPU", "INTER_SERVER", "KernelEstimate", "LoadedProgram",
    "PHASES", "PendingArray", "PendingResultError", "PhaseTimer", "Program", "PyUpmemError",
    "PyUpmemWarning", "Rank", "SourceNotFoundError", "Symbol", "SymbolShapeError",
    "SymbolTypeError", "Timeline", "TimelineEvent", "UnsupportedError", "build_program",
    "default_backend", "find_backend", "load_ipython_extension",
}

MAX_MODULE_LINES = 650  # "about 600": past that a module is doing two jobs
# Laid out as the SDK's own Python module is (its driver.py is one class, the SDK's DpuSet).
SDK_LAYOUT = PACKAGE_ROOT / "sdk_compat"


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(name: str) -> int:
    """The index in LAYERS of the longest prefix that names ``name``'s package."""
    best, best_length = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    return best


def python_modules(root: Path) -> list[Path]:
    """The package's modules; the emulator's toolchain scripts run as programs, not imports."""
    return sorted(
        p for p in root.rglob("*.py")
        if "toolchain" not in p.relative_to(root).parts and "__pycache__" not in p.parts
    )


def imported_modules(path: Path, name: str, root: Path) -> list[tuple[int, str]]:
    """(line, module) for each pyupmem module that ``path`` imports."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                # ``from pyupmem import emu`` imports a module; ``from pyupmem import DpuSet``
                # imports the top level's re-export.
                candidate = f"{target}.{alias.name}"
                as_module = root.parent.joinpath(*candidate.split("."))
                is_module = as_module.with_suffix(".py").is_file() or as_module.is_dir()
                found.append((node.lineno, candidate if is_module else target))
    return [(line, module) for line, module in found if module.split(".")[0] == root.name]


def layer_violations(root: Path) -> list[str]:
    problems = []
    for path in python_modules(root):
        name = module_name(path, root)
        own = layer_of(name)
        if own < 0:
            problems.append(f"{name}: in no layer (add its package to LAYERS)")
            continue
        for line, imported in imported_modules(path, name, root):
            theirs = layer_of(imported)
            if theirs > own:
                problems.append(
                    f"{path.relative_to(root.parent)}:{line}: {name} ({LAYERS[own][0]}) "
                    f"imports {imported} ({LAYERS[theirs][0]}), a higher layer"
                )
    return problems


def test_no_import_climbs_to_a_higher_layer() -> None:
    assert layer_violations(PACKAGE_ROOT) == []


def test_the_layer_check_finds_a_planted_upward_import(tmp_path: Path) -> None:
    root = tmp_path / "pyupmem"
    for package in ("driver", "dpus"):
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text("")
    (root / "__init__.py").write_text("")
    (root / "dpus" / "dpuset.py").write_text("from pyupmem.driver import libdpu\n")
    (root / "driver" / "libdpu.py").write_text("def f():\n    from ..dpus import dpuset\n")
    problems = layer_violations(root)
    assert len(problems) == 1
    assert "pyupmem/driver/libdpu.py:2" in problems[0]
    assert "imports pyupmem.dpus.dpuset (dpus), a higher layer" in problems[0]


def test_every_layer_package_says_what_it_holds_and_may_use() -> None:
    import importlib

    for _, prefixes in LAYERS[:-1]:
        for prefix in prefixes:
            if not (PACKAGE_ROOT.parent / prefix.replace(".", "/")).is_dir():
                continue  # a module (pyupmem.errors) or a package still to come
            doc = importlib.import_module(prefix).__doc__ or ""
            if prefix in ("pyupmem.emu", "pyupmem.sdk_compat"):
                assert doc.strip(), prefix
                continue
            assert "May use" in doc, f"{prefix}'s docstring does not say which layers it may use"


@pytest.mark.parametrize(
    "path",
    [p for p in python_modules(PACKAGE_ROOT) if SDK_LAYOUT not in p.parents],
    ids=lambda p: str(p.relative_to(PACKAGE_ROOT)),
)
def test_no_module_is_much_over_600_lines(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_MODULE_LINES, f"{path}: {lines} lines; split it by job"


def test_the_public_names_are_unchanged() -> None:
    assert set(pyupmem.__all__) >= PUBLIC_NAMES
    for name in PUBLIC_NAMES:
        assert getattr(pyupmem, name) is not None, name
