"""The tutorial notebooks run in a real IPython kernel (nbclient), and the outputs they
store, which the documentation shows, are the ones they print.

Regenerate a notebook's stored outputs after changing it::

    cd docs/tutorials && ../../.venv/bin/jupyter-execute --inplace notebook.ipynb

(or with nbclient and ``record_timing=False``, which leaves no timestamps in the file).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

TUTORIALS = Path(__file__).resolve().parent.parent / "docs" / "tutorials"
NOTEBOOKS = sorted(TUTORIALS.glob("*.ipynb"))


def _text(output: dict) -> str:
    """What an output shows: a stream's text, a result's plain text, an error's lines."""
    if output["output_type"] == "stream":
        return output["text"]
    if output["output_type"] == "error":
        return "\n".join(output["traceback"])
    return output.get("data", {}).get("text/plain", "")


def _normalise(text: str) -> str:
    # A cached build prints nothing different, but paths and timings may: mask them.
    text = re.sub(r"/\S+/", "/.../", text)
    return re.sub(r"\d+\.\d+ s\b", "N s", text)


@pytest.fixture(scope="module")
def executed() -> dict[Path, object]:
    """Each notebook, executed from its own folder in a fresh kernel."""
    result = {}
    with pytest.MonkeyPatch.context() as patch:  # the kernel inherits this environment
        patch.setenv("PYUPMEM_EMU_QUIET", "1")
        patch.delenv("PYUPMEM_BACKEND", raising=False)  # written for the default choice
        for path in NOTEBOOKS:
            notebook = nbformat.read(path, as_version=4)
            client = nbclient.NotebookClient(
                notebook, timeout=300, kernel_name="python3",
                resources={"metadata": {"path": str(path.parent)}},
            )
            client.execute()  # raises CellExecutionError on an error in an untagged cell
            result[path] = notebook
    return result


def test_there_is_a_notebook_tutorial() -> None:
    assert TUTORIALS / "notebook.ipynb" in NOTEBOOKS
    assert "notebook" in (TUTORIALS / "index.md").read_text()  # in the toctree


def test_the_vector_addition_is_right(executed: dict[Path, object]) -> None:
    notebook = executed[TUTORIALS / "notebook.ipynb"]
    shown = "\n".join(_text(o) for cell in notebook.cells if cell.cell_type == "code"
                      for o in cell.outputs)
    assert "Program vecadd with 8 tasklets" in shown
    assert "(8, 4096) int32 equal to numpy: True" in shown
    assert "the DPU compiler warned" in shown and "BLOCK is not set" in shown
    assert "%%dpu broken: the DPU compiler failed" in shown and "cell:2:" in shown
    assert "Traceback" not in shown


def test_only_tagged_cells_fail(executed: dict[Path, object]) -> None:
    for path, notebook in executed.items():
        for cell in notebook.cells:
            if cell.cell_type != "code":
                continue
            failed = any(o["output_type"] == "error" for o in cell.outputs)
            tagged = "raises-exception" in cell.metadata.get("tags", [])
            assert failed == tagged, f"{path.name}: {cell.source[:60]!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_outputs_are_what_the_notebook_prints(
    path: Path, executed: dict[Path, object]
) -> None:
    stored = nbformat.read(path, as_version=4)
    ran = executed[path]
    assert len(stored.cells) == len(ran.cells)
    for before, after in zip(stored.cells, ran.cells, strict=True):
        if before.cell_type != "code":
            continue
        old = [_normalise(_text(o)) for o in before.outputs]
        new = [_normalise(_text(o)) for o in after.outputs]
        assert old == new, (
            f"{path.name}: the cell {before.source[:60]!r} stores outputs it no longer prints; "
            "regenerate them (see this test module's docstring)"
        )
