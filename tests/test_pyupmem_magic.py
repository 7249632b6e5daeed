"""The ``%%dpu`` cell magic in a real IPython shell: it binds a Program built from the
cell, shows the build log on warnings, fails without a traceback on errors, and keeps
IPython an optional dependency."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

import pyupmem as pim
from pyupmem.build.magic import DpuCellError, parse_line

IPython = pytest.importorskip("IPython")

KERNEL = (
    "#include <defs.h>\n__host int x = VALUE;\n"
    "int main(void) { if (me() == 0) x += NR_TASKLETS; return 0; }\n"
)


@pytest.fixture(scope="module")
def shell():
    from IPython.testing.globalipapp import start_ipython

    ip = start_ipython()
    ip.run_line_magic("load_ext", "pyupmem")
    return ip


def _run(shell, line: str, body: str):
    return shell.run_cell(f"%%dpu {line}\n{body}")


def _value(program: pim.Program) -> int:
    with pim.DpuSet(1) as dpu:
        dpu.load(program)
        dpu.launch()
        return int(dpu.read("x"))


def test_the_cell_becomes_a_program_bound_to_name(shell, capsys) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = _run(shell, "adder --tasklets 3 -DVALUE=40", KERNEL)
    assert result.success
    program = shell.user_ns["adder"]
    assert isinstance(program, pim.Program) and program.nr_tasklets == 3
    assert program.path.name == "adder"
    assert _value(program) == 43
    assert capsys.readouterr().err == ""  # a clean build shows nothing


def test_warnings_show_the_build_log(shell, capsys) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # shown as the log, not as a CompileWarning
        result = _run(shell, "warned -DVALUE=1", '#warning "look here"\n' + KERNEL)
    assert result.success and isinstance(shell.user_ns["warned"], pim.Program)
    err = capsys.readouterr().err
    assert "%%dpu warned: the DPU compiler warned (the build log):" in err
    assert "look here" in err and "#warning" in err
    _run(shell, "warned -DVALUE=1", '#warning "look here"\n' + KERNEL)  # cached: shown again
    assert "look here" in capsys.readouterr().err


def test_a_failed_build_shows_the_compiler_and_no_traceback(shell, capsys) -> None:
    assert _run(shell, "kept -DVALUE=2", KERNEL).success
    before = shell.user_ns["kept"]
    capsys.readouterr()
    result = _run(shell, "kept", "int main(void) { return undeclared_thing; }\n")
    assert not result.success and isinstance(result.error_in_exec, DpuCellError)
    shown = capsys.readouterr()
    text = shown.out + shown.err
    assert "%%dpu kept: the DPU compiler failed" in text and "kept is unchanged" in text
    assert "undeclared_thing" in text and "cell:1:" in text  # the cell's own line number
    assert "source0.c" not in text  # not the cache's file name
    assert "Traceback" not in text and "File " not in text
    assert shell.user_ns["kept"] is before


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("", "the following arguments are required: name"),
        ("1st", "'1st' is not a Python variable name"),
        ("class", "'class' is not a Python variable name"),
        ("k --tasklets many", "invalid int value: 'many'"),
        ("k extra", "unexpected extra"),
        ("k -D=3", "'3' is not a macro name"),
        ("k -D", "expected one argument"),
        ("k 'unclosed", "cannot read the line"),
    ],
)
def test_a_wrong_line_says_what_and_shows_the_usage(line: str, message: str) -> None:
    with pytest.raises(DpuCellError, match="%%dpu") as caught:
        parse_line(line)
    assert message in str(caught.value)


def test_line_options_reach_the_compiler() -> None:
    options = parse_line("k -DA -DB=2 -I /tmp -Wall -O3 --tasklets 5")
    assert options.defines == {"A": None, "B": "2"} and options.include_dirs == ("/tmp",)
    assert options.compiler_options == ("-Wall", "-O3") and options.nr_tasklets == 5


def test_an_empty_cell_and_a_bad_tasklet_count_fail_clearly(shell, capsys) -> None:
    result = _run(shell, "nothing", "\n")
    assert not result.success and "the cell is empty" in capsys.readouterr().out
    result = _run(shell, "many --tasklets 99 -DVALUE=0", KERNEL)
    out = capsys.readouterr().out
    assert not result.success and "nr_tasklets must be in 1..24" in out
    assert "Traceback" not in out


def test_pyupmem_imports_without_ipython() -> None:
    code = (
        "import sys; sys.modules['IPython'] = None\n"  # any import of IPython would fail
        "import pyupmem, pyupmem.build.magic\n"
        "print(pyupmem.load_ipython_extension.__module__)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "pyupmem.build.magic"
