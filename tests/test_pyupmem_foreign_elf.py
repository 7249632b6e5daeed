"""A DPU binary built by the SDK's compiler (ELF machine EM_DPU, 245) is refused on the
emulator with an error that says what it is and how to rebuild it: from Python (the
exception) and from the C library (DPU_ERR_ELF_INVALID_FILE, with the reason on stderr)."""

import ctypes
import struct

import pytest

from pyupmem import DpuSet, build_program
from pyupmem.build.elf_target import EM_DPU, elf_machine, foreign_binary_problem
from pyupmem.driver import libdpu as C
from pyupmem.driver.backend import find_backend
from pyupmem.errors import DpuProgramError


def sdk_dpu_header(machine: int = EM_DPU) -> bytes:
    """An Elf32 little-endian executable header as the SDK's linker writes it."""
    ident = b"\x7fELF" + bytes([1, 1, 1]) + bytes(9)  # ELFCLASS32, LSB, EV_CURRENT
    return ident + struct.pack("<HHIIIIIHHHHHH", 2, machine, 1, 0x80000000, 52, 0, 0, 52,
                               32, 0, 40, 0, 0)


def test_em_dpu_is_the_sdk_compilers_machine_number():
    assert EM_DPU == 0xF5
    assert elf_machine(sdk_dpu_header()) == 245
    assert elf_machine(b"not an elf file at all") is None


@pytest.mark.parametrize("as_bytes", [False, True])
def test_load_of_an_sdk_binary_says_what_it_is_and_how_to_rebuild(tmp_path, as_bytes):
    path = tmp_path / "kernel.dpu"
    path.write_bytes(sdk_dpu_header() + bytes(200))
    with DpuSet(1, backend="emulator") as dpus, pytest.raises(DpuProgramError) as caught:
        dpus.load(path.read_bytes() if as_bytes else path)
    error = caught.value
    assert error.name == "DPU_ERR_ELF_INVALID_FILE"
    text = str(error)
    assert "UPMEM SDK's compiler" in text and "EM_DPU" in text
    assert "build_program" in text and "python -m pyupmem env" in text
    assert ("the binary in memory" if as_bytes else str(path)) in text


def test_an_emulator_binary_still_loads_and_other_junk_gets_no_sdk_story(tmp_path):
    source = tmp_path / "k.c"
    source.write_text("#include <defs.h>\n__host int x;\nint main(void) { return 0; }\n")
    program = build_program(source, nr_tasklets=1)
    with DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        junk = tmp_path / "junk"
        junk.write_bytes(b"\x7fELF" + bytes(60))
        with pytest.raises(DpuProgramError) as caught:
            dpus.load(junk)
    assert "SDK" not in str(caught.value)
    assert foreign_binary_problem(sdk_dpu_header(62), "emulator", "x") is None


def test_the_sdk_backend_is_told_of_an_emulator_binary(tmp_path):
    source = tmp_path / "k.c"
    source.write_text("int main(void) { return 0; }\n")
    header = build_program(source, nr_tasklets=1).path.read_bytes()[:64]
    problem = foreign_binary_problem(header, "sdk", "k")
    assert problem is not None and "built for the pyupmem emulator" in problem
    assert foreign_binary_problem(sdk_dpu_header(), "sdk", "k") is None


def test_the_c_library_keeps_the_status_and_explains_on_stderr(tmp_path, capfd, monkeypatch):
    monkeypatch.delenv("PYUPMEM_EMU_QUIET", raising=False)
    path = tmp_path / "kernel.dpu"
    path.write_bytes(sdk_dpu_header() + bytes(200))
    lib = find_backend("emulator").lib
    dpus = C.dpu_set_t()
    assert lib.dpu_alloc(1, None, ctypes.byref(dpus)) == 0  # type: ignore[attr-defined]
    try:
        status = lib.dpu_load(dpus, str(path).encode(), None)  # type: ignore[attr-defined]
    finally:
        lib.dpu_free(dpus)  # type: ignore[attr-defined]
    assert status == C.DPU_ERR_ELF_INVALID_FILE
    err = capfd.readouterr().err
    assert "built by the UPMEM SDK's compiler" in err and "dpu-upmem-dpurte-clang" in err
