"""The build cache: keyed on what the compiler read, the compiler and every flag; private;
warnings reach the user; the source-text rule."""

from __future__ import annotations

import os
import stat
import warnings
from pathlib import Path

import numpy as np
import pytest

import pyupmem as pim

KERNEL = (
    '#include <defs.h>\n#include "inc/p.h"\n__host int x = VALUE;\nint main(void) { return 0; }\n'
)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("PYUPMEM_CACHE_DIR", str(folder))
    return folder


def _value(program: pim.Program) -> int:
    with pim.DpuSet(1) as dpu:
        dpu.load(program)
        dpu.launch()
        return int(dpu.read("x"))


def test_a_header_in_a_subfolder_rebuilds(cache: Path, tmp_path: Path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "p.h").write_text("#define VALUE 1\n")
    source = tmp_path / "k.c"
    source.write_text(KERNEL)
    first = pim.build_program(source, nr_tasklets=1)
    assert _value(first) == 1
    assert pim.build_program(source, nr_tasklets=1).path == first.path  # nothing changed
    (tmp_path / "inc" / "p.h").write_text("#define VALUE 2\n")
    second = pim.build_program(source, nr_tasklets=1)
    assert second.path != first.path and _value(second) == 2
    (tmp_path / "inc" / "p.h").write_text("#define VALUE 1\n")
    assert pim.build_program(source, nr_tasklets=1).path == first.path


def test_a_header_through_extra_args_include_rebuilds(cache: Path, tmp_path: Path) -> None:
    headers = tmp_path / "elsewhere" / "deep"
    (headers / "inc").mkdir(parents=True)
    (headers / "inc" / "p.h").write_text("#define VALUE 7\n")
    text = KERNEL
    first = pim.build_program(text, nr_tasklets=1, extra_args=[f"-I{headers}"])
    assert _value(first) == 7
    (headers / "inc" / "p.h").write_text("#define VALUE 8\n")
    assert _value(pim.build_program(text, nr_tasklets=1, extra_args=[f"-I{headers}"])) == 8


def test_a_header_included_by_a_header_rebuilds(cache: Path, tmp_path: Path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "p.h").write_text('#include "q.h"\n')
    (tmp_path / "inc" / "q.h").write_text("#define VALUE 3\n")
    source = tmp_path / "k.c"
    source.write_text(KERNEL)
    assert _value(pim.build_program(source, nr_tasklets=1)) == 3
    (tmp_path / "inc" / "q.h").write_text("#define VALUE 4\n")
    assert _value(pim.build_program(source, nr_tasklets=1)) == 4


def test_the_compiler_environment_is_part_of_the_key(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "#include <defs.h>\n__host int x = 5;\nint main(void) { return 0; }\n"
    counted = pim.build_program(text, nr_tasklets=1)
    monkeypatch.setenv("PYUPMEM_EMU_COST", "0")
    uncounted = pim.build_program(text, nr_tasklets=1)
    assert uncounted.path != counted.path


def test_several_sources_record_each_ones_headers(cache: Path, tmp_path: Path) -> None:
    (tmp_path / "a.h").write_text("#define A 1\n")
    (tmp_path / "main.c").write_text(
        "#include <defs.h>\nextern int get(void);\n__host int x;\n"
        "int main(void) { x = get(); return 0; }\n"
    )
    (tmp_path / "other.c").write_text('#include "a.h"\nint get(void) { return A; }\n')
    sources = [tmp_path / "main.c", tmp_path / "other.c"]
    assert _value(pim.build_program(sources, nr_tasklets=1)) == 1
    (tmp_path / "a.h").write_text("#define A 11\n")
    assert _value(pim.build_program(sources, nr_tasklets=1)) == 11


def test_a_cache_folder_others_can_write_is_refused(cache: Path) -> None:
    cache.mkdir(mode=0o700)
    os.chmod(cache, 0o777)
    with pytest.raises(pim.CacheFolderError, match="can be written by others") as info:
        pim.build_program("int main(void) { return 0; }", nr_tasklets=1)
    assert isinstance(info.value, PermissionError)
    assert "chmod go-w" in str(info.value)


def test_cache_files_are_private(cache: Path) -> None:
    program = pim.build_program("int main(void) { return 0; }", nr_tasklets=1)
    for path in [program.path, *cache.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode & 0o077 == 0, (path, oct(mode))


def test_warnings_reach_the_user_once_per_build(cache: Path) -> None:
    text = "#include <defs.h>\n__host int x;\nint main(void) { int unset; x = unset; return 0; }\n"
    with pytest.warns(pim.CompileWarning, match="uninitialized") as caught:
        program = pim.build_program(text, nr_tasklets=1, opt_level=0, extra_args=["-Wall"])
    assert len(caught) == 1
    assert "uninitialized" in program.build_log
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = pim.build_program(text, nr_tasklets=1, opt_level=0, extra_args=["-Wall"])
    assert again.path == program.path and "uninitialized" in again.build_log


def test_source_text_without_a_newline_is_source(cache: Path) -> None:
    assert pim.build.builder.is_source_text("int main(void){return 0;}")
    assert not pim.build.builder.is_source_text("kernel.c")
    program = pim.build_program("int main(void){return 0;}", nr_tasklets=1)
    assert program.path.is_file()
    with pytest.raises(pim.SourceNotFoundError, match="holds a newline") as info:
        pim.build_program("missing_kernel.c")
    assert isinstance(info.value, FileNotFoundError)


def test_programs_carry_debug_information_by_default(cache: Path) -> None:
    text = "#include <defs.h>\n__host float w[3];\nint main(void) { return 0; }\n"
    with pim.DpuSet(1) as dpu:
        assert dpu.load(pim.build_program(text, nr_tasklets=1))["w"].dtype == np.float32
        assert dpu.load(pim.build_program(text, nr_tasklets=1, debug=False))["w"].dtype is None


def test_a_source_text_is_one_build_from_any_folder_unless_extra_args_read_it(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    (one / "value.h").write_text("#define VALUE 1\n")
    (two / "value.h").write_text("#define VALUE 2\n")
    plain_text = "#include <defs.h>\n__host int x = 41;\nint main(void) { return 0; }\n"
    reading_text = plain_text.replace("= 41", "= 40 + VALUE").replace(
        "#include <defs.h>", '#include <defs.h>\n#include "value.h"'
    )
    built = {}
    for folder in (one, two):
        monkeypatch.chdir(folder)
        plain = pim.build_program(plain_text, nr_tasklets=1)  # reads nothing from the folder
        reading = pim.build_program(reading_text, nr_tasklets=1, extra_args=["-I."])
        built[folder] = plain.path, reading.path, _value(reading)
    assert built[one][0] == built[two][0]  # a fresh checkout shares the first's build
    assert built[one][1] != built[two][1]  # -I. reads each folder's value.h
    assert (built[one][2], built[two][2]) == (41, 42)
