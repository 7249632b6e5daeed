"""The documentation builds with warnings as errors, shows only code that runs, shows the
outputs that code really prints, and documents every public name of pyupmem and rl.

Mechanism: every piece of code a page shows comes from ``literalinclude`` of a file that
these tests run (the scripts under docs/tutorials and docs/explanation) or that those
scripts build (their C files, the SDK project, the rl DPU program). The check reads the
built doctrees, so it sees every literal block whatever syntax wrote it: a literal block
without a source file is allowed only as an output block (``text``), whose lines must
appear in what the page's scripts printed (exactly, but for timings: see ``_normalise``),
or outside the tutorials as a shell command line.
"""

from __future__ import annotations

import ast
import importlib
import os
import pickle
import pkgutil
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
TUTORIALS = DOCS / "tutorials"

# Scripts the pages include and these tests run; each must finish well within its limit.
SCRIPTS = sorted(
    [*TUTORIALS.glob("*.py"), *TUTORIALS.glob("*.sh"), *(DOCS / "explanation").glob("*.py")]
)
# Scripts run with arguments that keep them short (they support a quick mode).
SCRIPT_ARGS = {
    "rl_plots.py": ["--quick", "--out", "{tmp}"],
    "timing_examples.py": ["{tmp}"],  # the timeline figure and trace go there
}
# Files that run scripts build without naming them: the SDK project (make builds all of
# it) and the rl package's DPU program with the header it includes (built by rl.trainer in
# the RL tutorial).
BUILT_BY_SCRIPTS = {
    *(p.resolve() for p in (TUTORIALS / "sdk_project").rglob("*") if p.is_file()),
    (ROOT / "dpu_programs" / "rl" / "learner.c").resolve(),
    (ROOT / "dpu_programs" / "common" / "fixed_point.h").resolve(),
}
# Notebook pages (myst-nb) show their cells and stored outputs; tests/test_notebook.py
# executes each notebook and checks that its stored outputs are what it prints.
NOTEBOOK_PAGES = {f"tutorials/{p.stem}" for p in TUTORIALS.glob("*.ipynb")}
OUTPUT_LANGUAGES = {"text"}
# The limit on a script, the Sphinx build or a pasted session: it only catches a hang. On
# two cores pinned by busy loops the build alone took over 300 s (the old limit).
_HANG = 1800
COMMAND_LANGUAGES = {"sh", "shell", "bash", "console"}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYUPMEM_EMU_QUIET"] = "1"
    env.pop("PYUPMEM_BACKEND", None)  # the tutorials are written for the default choice
    return env


@pytest.fixture(scope="session")
def docs_build(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, subprocess.Popen]]:
    """Starts the Sphinx build with -W (warnings are errors) into a temporary folder, in the
    background: on two cores it runs while the scripts do (see :func:`built_docs`)."""
    out = tmp_path_factory.mktemp("docs")
    with open(out / "build.log", "w+") as log:
        build = subprocess.Popen(
            [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-q", "-b", "html",
             "-d", str(out / "doctrees"), str(DOCS), str(out / "html")],
            cwd=ROOT, env=_env(), stdout=log, stderr=subprocess.STDOUT,
        )
        yield out, build
        if build.poll() is None:  # a test failed before it waited: nothing left running
            build.kill()
        build.wait()


@pytest.fixture(scope="session")
def script_outputs(
    docs_build: tuple[Path, subprocess.Popen], tmp_path_factory: pytest.TempPathFactory
) -> dict[Path, str]:
    """Runs every documentation script once (the site builds meanwhile); maps its path to
    what it printed."""
    outputs: dict[Path, str] = {}
    for script in SCRIPTS:
        tmp = tmp_path_factory.mktemp(script.stem)
        args = [a.replace("{tmp}", str(tmp)) for a in SCRIPT_ARGS.get(script.name, [])]
        command = (
            ["sh", str(script)] if script.suffix == ".sh" else [sys.executable, str(script)]
        ) + args
        env = _env()
        if script.suffix == ".sh":
            env["BUILDDIR"] = str(tmp / "bin")
        result = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=_HANG
        )
        assert result.returncode == 0, (
            f"{script.relative_to(ROOT)} failed (exit {result.returncode}):\n"
            f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        )
        outputs[script.resolve()] = result.stdout
    return outputs


@pytest.fixture(scope="session")
def built_docs(docs_build: tuple[Path, subprocess.Popen]) -> Path:
    """The built site: waits for the build :func:`docs_build` started."""
    out, build = docs_build
    try:
        build.wait(timeout=_HANG)
    except subprocess.TimeoutExpired:
        build.kill()
        raise
    log = (out / "build.log").read_text()
    assert build.returncode == 0, f"the docs build failed:\n{log}"
    return out


# The scripts' test comes first: it starts the build, and runs the scripts while it builds.
def test_every_script_runs(script_outputs: dict[Path, str]) -> None:
    assert set(script_outputs) == {s.resolve() for s in SCRIPTS}


def test_docs_build_with_warnings_as_errors(built_docs: Path) -> None:
    pages = ("index", "tutorials/first_steps", "reference/api/pyupmem.dpus.dpuset", "benchmarks")
    for page in pages:
        assert (built_docs / "html" / f"{page}.html").is_file(), page


# ------------------------------------------------------------------ code on the pages


def _doctrees(built_docs: Path) -> dict[str, object]:
    trees = {}
    for path in (built_docs / "doctrees").rglob("*.doctree"):
        name = path.relative_to(built_docs / "doctrees").with_suffix("").as_posix()
        with open(path, "rb") as file:
            trees[name] = pickle.load(file)
    return trees


# What varies from run to run (or with the machine and its compiler) is timing, and only
# timing is masked: a number followed by a unit of time (``0.08 s``, ``167.3 ms``, modelled
# ``cycles``) or of a rate (``6.7 GB/s``), and every number of a row of a phase table
# (pyupmem.estimate.phases's report: a row starts with a phase's name and holds its times and its
# share of the total). Every other number must be printed exactly.
_TIME_UNITS = r"(?:ns|us|µs|ms|s|min|seconds?|cycles|[kKMGT]?B/s|[kMG]?ops/s|/s)"
_TIMED_NUMBER = re.compile(rf"\d+(?:[.,]\d+)*(?=\s*{_TIME_UNITS}(?![\w/]))")
_PHASE_ROW = re.compile(r"\s*(?:CPU-DPU|DPU kernel|Inter-DPU|DPU-CPU|total)\s+\d")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _normalise(line: str) -> str:
    """A line with its timings replaced by ``N`` and its spaces collapsed."""
    if _PHASE_ROW.match(line):
        line = _NUMBER.sub("N", line)
    else:
        line = _TIMED_NUMBER.sub("N", line)
    return " ".join(line.split())


def _matches(shown: str, printed: set[str]) -> bool:
    pattern = re.escape(_normalise(shown)).replace(re.escape("..."), ".*")
    return any(re.fullmatch(pattern, line) for line in printed)


def test_only_timings_are_masked() -> None:
    printed = {_normalise("greedy policy: success 73.8%, 20,000,000 updates in 0.08 s")}
    assert _matches("greedy policy: success 73.8%, 20,000,000 updates in 0.31 s", printed)
    assert not _matches("greedy policy: success 73.9%, 20,000,000 updates in 0.08 s", printed)
    assert not _matches("greedy policy: success 73.8%, 20,000,001 updates in 0.08 s", printed)
    row = {_normalise("DPU kernel        65.896    65.896    82.5%       526.680")}
    assert _matches("DPU kernel  1.2  1.3  50.0%  7.0", row)
    assert not _matches("DPU-CPU  1.2  1.3  50.0%  7.0", row)
    assert _matches("kernel 167.3 ms, 6.68 GB/s", {_normalise("kernel 99 ms, 4.74 GB/s")})
    assert _matches("(modelled, 2392738 cycles)", {_normalise("(modelled, 2788224 cycles)")})
    assert not _matches("16 states x 4 actions", {_normalise("16 states x 5 actions")})


def test_pages_show_only_code_that_runs_and_its_real_output(
    built_docs: Path, script_outputs: dict[Path, str]
) -> None:
    from docutils import nodes

    run_files = set(script_outputs)
    script_texts = "\n".join(path.read_text() for path in run_files)
    problems = []
    checked_outputs = 0
    for page, tree in sorted(_doctrees(built_docs).items()):
        if page.startswith("reference/api/") or page in NOTEBOOK_PAGES:
            continue  # generated by autodoc from docstrings, or a notebook's executed cells
        blocks = list(tree.findall(nodes.literal_block))
        included = {Path(b["source"]).resolve() for b in blocks if b.get("source")}
        printed = {
            _normalise(line)
            for source in included & run_files
            for line in script_outputs[source].splitlines()
        }
        for block in blocks:
            language = block.get("language", "default")
            source = block.get("source")
            where = f"{page}: {block.astext()[:60]!r}"
            if source:
                path = Path(source).resolve()
                if not (path in run_files or path in BUILT_BY_SCRIPTS or path.name in script_texts):
                    problems.append(f"{where}: includes {path}, which no test runs or builds")
            elif language in OUTPUT_LANGUAGES:
                if not printed:
                    if page.startswith("tutorials/"):
                        problems.append(f"{where}: an output block on a page that runs nothing")
                    continue  # a diagram on an explanation page
                for line in block.astext().splitlines():
                    if line.strip() and not _matches(line, printed):
                        problems.append(f"{where}: output line {line!r} was not printed")
                checked_outputs += 1
            elif language in COMMAND_LANGUAGES and not page.startswith("tutorials/"):
                continue  # install and build commands on the other pages
            else:
                problems.append(f"{where}: code ({language}) that is not a literalinclude")
    assert not problems, "\n".join(problems)
    assert checked_outputs >= 20


def test_tutorials_all_include_a_script_that_runs(built_docs: Path) -> None:
    from docutils import nodes

    scripts = {s.resolve() for s in SCRIPTS}
    for page, tree in _doctrees(built_docs).items():
        if not page.startswith("tutorials/") or page in {"tutorials/index", *NOTEBOOK_PAGES}:
            continue
        sources = {
            Path(b["source"]).resolve()
            for b in tree.findall(nodes.literal_block)
            if b.get("source")
        }
        assert sources & scripts, f"{page} shows no script that the tests run"


# ------------------------------------------------------------------ API reference


# The ctypes mirror of dpu.h: its page documents the Python helpers; its hundreds of
# constants and structures are the SDK's, as UPMEM_ABI.md lists them, not each one a page entry.
C_MIRROR = "pyupmem.driver.libdpu"


def _modules(package: str) -> list[str]:
    module = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(module.__path__, package + "."):
        last = info.name.rsplit(".", 1)[1]
        if not last.startswith("_") and info.name != C_MIRROR:
            names.append(info.name)
    return names


def _top_level_names(module_name: str) -> list[str]:
    """Public names a module defines: its __all__, else its top-level definitions."""
    module = importlib.import_module(module_name)
    if hasattr(module, "__all__"):
        return list(module.__all__)
    tree = ast.parse(Path(module.__file__).read_text())
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [n for n in names if not n.startswith("_")]


def _defined_in(package: str, name: str) -> str | None:
    inside = [m for m in _modules(package.split(".")[0]) if m.startswith(package + ".")]
    for module_name in inside:
        tree = ast.parse(Path(importlib.import_module(module_name).__file__).read_text())
        for node in tree.body:
            found = []
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                found = [node.name]
            elif isinstance(node, ast.Assign):
                found = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                found = [node.target.id]
            if name in found:
                return module_name
    mirror = importlib.import_module(C_MIRROR)
    if C_MIRROR.startswith(package + ".") and name in vars(mirror):
        return C_MIRROR
    return None


def _inventory(built_docs: Path) -> set[str]:
    from sphinx.util.inventory import InventoryFile

    with open(built_docs / "html" / "objects.inv", "rb") as file:
        inventory = InventoryFile.load(file, "", os.path.join)
    return {
        name for kind, entries in inventory.items() if kind.startswith("py:") for name in entries
    }


@pytest.mark.parametrize("package", ["pyupmem", "rl"])
def test_every_public_name_is_in_the_api_reference(built_docs: Path, package: str) -> None:
    documented = _inventory(built_docs)
    missing = []
    for module_name in _modules(package):
        if module_name not in documented:
            missing.append(f"module {module_name}")
        module = importlib.import_module(module_name)
        # a package that re-exports names from its modules (an __all__): documented there
        reexports = module_name == package or (
            hasattr(module, "__path__") and hasattr(module, "__all__")
        )
        for name in _top_level_names(module_name):
            if reexports:
                home = _defined_in(module_name, name)
                target = f"{home}.{name}" if home else f"{module_name}.{name}"
            else:
                target = f"{module_name}.{name}"
            if target not in documented:
                missing.append(target)
                continue
            obj = getattr(module, name, None)
            if isinstance(obj, type) and obj.__module__.startswith(package):
                for klass in obj.__mro__:
                    if not klass.__module__.startswith(package):
                        continue
                    # Each member is documented once: on this class, or on a public base
                    # class that has it (which the class's "Bases:" line links to); a
                    # private base's members (pyupmem.dpus.transfers._Transfers ...) are
                    # documented on the public class that derives from it.
                    homes = [
                        f"{k.__module__}.{k.__qualname__}"
                        for k in obj.__mro__[1:]
                        if k.__module__.startswith(package)
                        and not k.__name__.startswith("_")
                        and issubclass(k, klass)
                    ]
                    for member in vars(klass):
                        if member.startswith("_") or f"{target}.{member}" in documented:
                            continue
                        if any(h in documented and f"{h}.{member}" in documented for h in homes):
                            continue
                        missing.append(f"{target}.{member}")
    assert not missing, "not in the API reference:\n" + "\n".join(sorted(set(missing)))


def _reference_page(module: str, built_docs: Path) -> str:
    return (built_docs / "html" / "reference" / "api" / f"{module}.html").read_text()


def _header(page: str, object_id: str) -> str:
    found = re.search(rf'id="{re.escape(object_id)}">(.*?)</dt>', page, re.S)
    assert found, object_id
    return found.group(1)


def test_reference_shows_each_shared_method_once_on_dpugroup(built_docs: Path) -> None:
    documented = _inventory(built_docs)
    for method in ("load", "scatter", "gather", "launch", "sync", "callback", "logs"):
        assert f"pyupmem.dpus.group.DpuGroup.{method}" in documented
        for cls in ("dpuset.DpuSet", "views.Rank", "views.Dpu"):
            assert f"pyupmem.dpus.{cls}.{method}" not in documented, f"{cls}.{method} again"
    assert "nr_dpus" in _header(
        _reference_page("pyupmem.dpus.dpuset", built_docs), "pyupmem.dpus.dpuset.DpuSet"
    )  # the one users call
    for module, name in [
        ("group", "DpuGroup"),
        ("views", "Rank"),
        ("views", "Dpu"),
        ("views", "DpuSubset"),
        ("loaded_program", "LoadedProgram"),
    ]:
        page = _reference_page(f"pyupmem.dpus.{module}", built_docs)
        header = _header(page, f"pyupmem.dpus.{module}.{name}")
        assert "sig-param" not in header, f"{name} shows its internal constructor"


def test_shared_methods_link_to_the_module_that_holds_their_code(built_docs: Path) -> None:
    page = _reference_page("pyupmem.dpus.group", built_docs)
    for method, module in [
        ("load", "group"),
        ("scatter", "transfers"),
        ("gather_blocks", "block_transfers"),
        ("launch", "control"),
        ("sync", "control"),
        ("estimate", "reports"),
    ]:
        header = _header(page, f"pyupmem.dpus.group.DpuGroup.{method}")
        link = f"_modules/pyupmem/dpus/{module}.html#DpuGroup.{method}"
        assert link in header, f"DpuGroup.{method} has no [source] link to {module}.py"


def test_reference_bases_are_never_empty_nor_a_link_to_the_class_itself(built_docs: Path) -> None:
    problems = []
    for page in sorted((built_docs / "html" / "reference" / "api").glob("*.html")):
        text = page.read_text()
        for match in re.finditer(r"<p>Bases:(.*?)</p>", text, re.S):
            before = text[: match.start()]
            owner = re.findall(r'<dt class="sig sig-object py" id="([\w.]+)">', before)
            content = match.group(1)
            if not re.sub(r"<[^>]+>", "", content).strip():
                problems.append(f"{page.name}: {owner[-1]}: empty Bases")
            if owner and f'href="#{owner[-1]}"' in content:
                problems.append(f"{page.name}: {owner[-1]}: Bases links to the class itself")
            if re.sub(r"<[^>]+>", "", content).strip() == "object":
                problems.append(f"{page.name}: {owner[-1]}: Bases: object")
    assert not problems, "\n".join(problems)


def test_landing_page_has_an_example_and_benchmarks_say_things_once(built_docs: Path) -> None:
    from docutils import nodes

    trees = _doctrees(built_docs)
    sources = {
        Path(block["source"]).name
        for block in trees["index"].findall(nodes.literal_block)
        if block.get("source")
    }
    assert "landing_example.py" in sources
    benchmarks = trees["benchmarks"].astext()
    assert benchmarks.count("Every figure is a ratio against a baseline") == 1


# ------------------------------------------------------------------ plots and README


def test_rl_plots_have_titles_and_labels(tmp_path: Path) -> None:
    sys.path.insert(0, str(TUTORIALS))
    try:
        rl_plots = importlib.import_module("rl_plots")
    finally:
        sys.path.remove(str(TUTORIALS))
    figures = rl_plots.make_figures(rl_plots.sample_measurements())
    assert figures
    for name, figure in figures.items():
        for axes in figure.get_axes():
            if not axes.get_visible() or not axes.has_data():
                continue
            assert axes.get_title() or figure._suptitle is not None, f"{name}: no title"
            assert axes.get_xlabel(), f"{name}: no x label"
            assert axes.get_ylabel(), f"{name}: no y label"
            units = axes.get_xlabel() + axes.get_ylabel()
            assert "(" in units, f"{name}: an axis without a unit or count in parentheses"
    committed = DOCS / "_static" / "rl"
    for name in figures:
        assert (committed / f"{name}.png").is_file(), f"docs/_static/rl/{name}.png is missing"


def test_readme_says_how_to_build_the_docs() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "## Documentation" in readme
    assert "python -m sphinx -W -b html docs docs/_build/html" in readme


def test_benchmark_plots_redraw_from_the_committed_measurements(tmp_path: Path) -> None:
    script = DOCS / "benchmarks_data" / "plot_emulator.py"
    result = subprocess.run(
        [sys.executable, str(script), "--out", str(tmp_path)],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    for name in ("bandwidth", "launch_latency"):
        assert (tmp_path / f"{name}.png").stat().st_size > 10_000
        assert (DOCS / "_static" / "benchmarks" / f"{name}.png").is_file()


# ------------------------------------------------------------------ SDK users' page


def _first_column_names(page: Path) -> set[str]:
    """The identifiers named in the first column of the page's Markdown tables."""
    names: set[str] = set()
    for line in page.read_text().splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            first = line.split("|")[1]
            names.update(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", first))
    return names


def test_sdk_users_page_maps_every_libdpu_function_and_the_sdk_python_module() -> None:
    from pyupmem import sdk_compat
    from pyupmem.driver import libdpu as _libdpu

    named = _first_column_names(DOCS / "explanation" / "sdk_users.md")
    missing = [name for name in _libdpu.FUNCTIONS if name not in named]
    assert not missing, f"sdk_users.md has no table row for: {missing}"
    # the SDK's Python module: its names and every public method of its DpuSet
    python_names = set(sdk_compat.__all__) | {
        name for name in vars(sdk_compat.DpuSet) if not name.startswith("_")
    }
    missing = sorted(python_names - named)
    assert not missing, f"sdk_users.md does not map these of the SDK's module dpu: {missing}"
    index = (DOCS / "explanation" / "index.md").read_text()
    assert "sdk_users" in index, "the page is not in the explanations' table of contents"


# ------------------------------------------------------------------ code pasted as shown

# A fresh interpreter in the repository root that runs each block it is given as one
# paste into its prompt would: in one namespace named __main__, with no __file__. Its
# sys.argv is [""] and the page's script's SCRIPT_ARGS (those that keep it short and its
# files out of the repository). Blocks come as JSON on stdin; what they print goes to
# stdout.
_PASTE_SESSION = r"""
import builtins, json, sys, traceback
session = json.load(sys.stdin)
sys.argv = ["", *session["argv"]]
namespace = {"__name__": "__main__", "__builtins__": builtins}
for number, (where, code) in enumerate(session["blocks"], 1):
    try:
        exec(compile(code, f"<{where}, block {number}>", "exec"), namespace)
    except BaseException:
        sys.stdout.flush()
        print(f"block {number} of {where} failed when pasted:", file=sys.stderr)
        traceback.print_exc()
        sys.exit(1)
"""

# The pages whose Python a reader pastes: every tutorial, and the timing page.
_PASTED_PAGES = ("tutorials/", "explanation/timing")


def _python_blocks(tree: object) -> tuple[list[str], list[str]]:
    """The Python a page shows from the scripts the tests run, in order, and the
    arguments those scripts run with."""
    from docutils import nodes

    scripts = {s.resolve() for s in SCRIPTS}
    blocks, argv = [], []
    for block in tree.findall(nodes.literal_block):  # type: ignore[attr-defined]
        source = block.get("source")
        if source and block.get("language") == "python" and Path(source).resolve() in scripts:
            blocks.append(block.astext())
            argv = argv or SCRIPT_ARGS.get(Path(source).name, [])
    return blocks, argv


def test_every_page_runs_when_its_blocks_are_pasted_in_order(
    built_docs: Path, tmp_path: Path
) -> None:
    import json

    from docutils import nodes

    pasted = []
    for page, tree in sorted(_doctrees(built_docs).items()):
        if not page.startswith(_PASTED_PAGES) or page in NOTEBOOK_PAGES:
            continue
        blocks, argv = _python_blocks(tree)
        if blocks:
            pasted.append((page, tree, blocks, argv))

    def paste(page: str, blocks: list[str], argv: list[str]) -> subprocess.CompletedProcess:
        session = {
            "argv": [a.replace("{tmp}", str(tmp_path / page.replace("/", "_"))) for a in argv],
            "blocks": [[page, b] for b in blocks],
        }
        return subprocess.run(
            [sys.executable, "-c", _PASTE_SESSION], input=json.dumps(session),
            cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=_HANG,
        )

    # two sessions at a time: each is one process, and CI machines have two cores
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda p: paste(p[0], p[2], p[3]), pasted))
    problems = []
    for (page, tree, _, _), result in zip(pasted, results, strict=True):
        if result.returncode != 0:
            problems.append(f"{page}:\n{result.stderr[-2000:]}")
            continue
        printed = {_normalise(line) for line in result.stdout.splitlines()}
        for block in tree.findall(nodes.literal_block):
            if block.get("source") or block.get("language", "default") not in OUTPUT_LANGUAGES:
                continue
            for line in block.astext().splitlines():
                if line.strip() and not _matches(line, printed):
                    problems.append(f"{page}: output line {line!r} was not printed when pasted")
    assert not problems, "\n".join(problems)
    assert len(pasted) >= 7
