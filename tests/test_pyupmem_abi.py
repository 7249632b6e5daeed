"""The ctypes layer against the emulator's ``dpu.h``: struct layouts, enum values,
function names, arities and argument sizes, all as the C compiler sees them."""

from __future__ import annotations

import ctypes
import re
import subprocess
from pathlib import Path

import pytest

from pyupmem import emu
from pyupmem.driver import libdpu as C

HEADER = Path(emu.__file__).resolve().parent / "include" / "host" / "dpu.h"

# (struct, C name, fields): a field "list.nr_ranks" is a member of the anonymous union.
LAYOUTS = [
    (C.dpu_set_t, "struct dpu_set_t", ["kind", "list", "list.nr_ranks", "list.ranks", "dpu"]),
    (C.dpu_symbol_t, "struct dpu_symbol_t", ["address", "size"]),
    (C.dpu_incbin_t, "struct dpu_incbin_t", ["buffer", "size", "path"]),
    (
        C.dpu_set_rank_iterator_t,
        "struct dpu_set_rank_iterator_t",
        ["set", "count", "next_idx", "has_next", "next"],
    ),
    (
        C.dpu_set_dpu_iterator_t,
        "struct dpu_set_dpu_iterator_t",
        ["rank_iterator", "count", "next_idx", "has_next", "next"],
    ),
]


def _compile_and_run(tmp_path: Path, body: str) -> str:
    source = tmp_path / "probe.c"
    source.write_text(
        "#include <stddef.h>\n#include <stdio.h>\n#include <dpu.h>\n"
        f"int main(void) {{\n{body}\nreturn 0;\n}}\n"
    )
    binary = tmp_path / "probe"
    subprocess.run(
        ["cc", "-std=gnu11", "-I", str(HEADER.parent), "-o", str(binary), str(source)],
        check=True,
        capture_output=True,
        text=True,
    )
    return subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout


def _ctypes_offset(struct: type[ctypes.Structure], path: str) -> tuple[int, int]:
    offset = 0
    current: type = struct
    for part in path.split("."):
        if part in ("list", "dpu") and current is C.dpu_set_t:
            union_offset = C.dpu_set_t.u.offset
            descriptor = getattr(C.dpu_set_union_t, part)
            offset += union_offset + descriptor.offset
            size = descriptor.size
            current = dict(C.dpu_set_union_t._fields_)[part]
            continue
        descriptor = getattr(current, part)
        offset += descriptor.offset
        size = descriptor.size
        current = dict(current._fields_)[part]
    return offset, size


def test_struct_layouts_match_the_c_compiler(tmp_path: Path) -> None:
    lines = []
    for _, c_name, fields in LAYOUTS:
        lines.append(f'printf("{c_name} %zu %zu\\n", sizeof({c_name}), _Alignof({c_name}));')
        for field in fields:
            member = f"(({c_name} *)0)->{field}"
            lines.append(
                f'printf("{c_name}.{field} %zu %zu\\n", offsetof({c_name}, {field}), '
                f"sizeof({member}));"
            )
    output = _compile_and_run(tmp_path, "\n".join(lines))
    facts = {}
    for line in output.splitlines():
        *name, a, b = line.split()
        facts[" ".join(name)] = (int(a), int(b))
    for struct, c_name, fields in LAYOUTS:
        assert (ctypes.sizeof(struct), ctypes.alignment(struct)) == facts[c_name], c_name
        for field in fields:
            assert _ctypes_offset(struct, field) == facts[f"{c_name}.{field}"], (c_name, field)


def test_abi_document_sizes() -> None:
    assert ctypes.sizeof(C.dpu_set_t) == 24
    assert ctypes.sizeof(C.dpu_symbol_t) == 8
    assert ctypes.sizeof(C.dpu_incbin_t) == 24
    assert ctypes.sizeof(C.dpu_set_rank_iterator_t) == 48
    assert ctypes.sizeof(C.dpu_set_dpu_iterator_t) == 88


def _enum_values(tmp_path: Path, names: list[str]) -> dict[str, int]:
    body = "\n".join(f'printf("{n} %u\\n", (unsigned)({n}));' for n in names)
    output = _compile_and_run(tmp_path, body)
    return {name: int(value) for name, value in (line.split() for line in output.splitlines())}


def test_enum_values_and_constants_match(tmp_path: Path) -> None:
    names = [name for _, name, _ in C.ERRORS] + [
        "DPU_ERR_ASYNC_JOBS",
        "DPU_SET_RANKS",
        "DPU_SET_DPU",
        "DPU_ASYNCHRONOUS",
        "DPU_SYNCHRONOUS",
        "DPU_XFER_TO_DPU",
        "DPU_XFER_FROM_DPU",
        "DPU_XFER_DEFAULT",
        "DPU_XFER_NO_RESET",
        "DPU_XFER_ASYNC",
        "DPU_XFER_PARALLEL",
        "DPU_CALLBACK_DEFAULT",
        "DPU_CALLBACK_ASYNC",
        "DPU_CALLBACK_NONBLOCKING",
        "DPU_CALLBACK_SINGLE_CALL",
        "DPU_CALLBACK_PARALLEL",
        "DPU_ALLOCATE_ALL",
    ]
    values = _enum_values(tmp_path, names)
    for name in names:
        assert getattr(C, name) == values[name], name
    assert C.DPU_MRAM_HEAP_POINTER_NAME == "__sys_used_mram_end"


def _prototypes() -> dict[str, tuple[str, list[str]]]:
    text = HEADER.read_text()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"^\s*#.*?(?<!\\)$", "", text, flags=re.M | re.S)
    text = " ".join(text.split())
    found = {}
    for match in re.finditer(
        r"((?:const )?(?:struct )?\w+ \**)\s*(dpu_\w+)\(((?:[^()]|\([^()]*\))*)\);", text
    ):
        restype, name, params = match.group(1).strip(), match.group(2), match.group(3)
        parts, depth, current = [], 0, ""
        for char in params:
            if char == "," and depth == 0:
                parts.append(current.strip())
                current = ""
                continue
            depth += char == "("
            depth -= char == ")"
            current += char
        if current.strip() and current.strip() != "void":
            parts.append(current.strip())
        found[name] = (restype, parts)
    return found


def _param_type(declaration: str) -> str:
    if "(*" in declaration:
        return "void *"  # a function pointer: a pointer
    return re.sub(r"\b\w+$", "", declaration).strip()


def _ctypes_size(ctype: object) -> int:
    if ctype is None:
        return 0
    return ctypes.sizeof(ctype)  # type: ignore[arg-type]


def _ctypes_pointee_size(ctype: object) -> int | None:
    if ctype is ctypes.c_char_p:
        return 1
    pointee = getattr(ctype, "_type_", None)
    if isinstance(pointee, type) and issubclass(pointee, ctypes._SimpleCData | ctypes.Structure):
        return ctypes.sizeof(pointee)
    return None


def test_every_function_is_declared_with_its_c_signature(tmp_path: Path) -> None:
    prototypes = _prototypes()
    declared = C.FUNCTIONS | C.EXTENSIONS
    assert set(prototypes) == set(declared), set(prototypes) ^ set(declared)
    lines = []
    for name, (restype, params) in prototypes.items():
        size = "0" if restype == "void" else f"sizeof({restype})"
        lines.append(f'printf("{name} ret %zu\\n", (size_t){size});')
        for index, param in enumerate(params):
            ctype = _param_type(param)
            lines.append(f'printf("{name} {index} %zu\\n", sizeof({ctype}));')
            opaque = "void" in ctype or "dpu_program_t" in ctype or "FILE" in ctype
            if ctype.endswith("*") and not opaque:
                lines.append(f'printf("{name} {index}* %zu\\n", sizeof(*({ctype})0));')
    output = _compile_and_run(tmp_path, "\n".join(lines))
    sizes = {}
    for line in output.splitlines():
        name, what, value = line.split()
        sizes[(name, what)] = int(value)
    for name, (restype, argtypes) in declared.items():
        _, params = prototypes[name]
        assert len(argtypes) == len(params), name
        assert _ctypes_size(restype) == sizes[(name, "ret")], name
        for index, argtype in enumerate(argtypes):
            assert ctypes.sizeof(argtype) == sizes[(name, str(index))], (name, index)
            pointee = sizes.get((name, f"{index}*"))
            if pointee is not None and _ctypes_pointee_size(argtype) is not None:
                assert _ctypes_pointee_size(argtype) == pointee, (name, index)


def test_library_exports_every_function() -> None:
    from pyupmem.driver.backend import find_backend

    backend = find_backend("emulator")
    assert backend.lib.missing == []
    assert backend.lib.extensions == [
        "dpu_emu_sync_timeout",
        "dpu_emu_launch_cycles",
        "dpu_emu_clock_mhz",
        "dpu_emu_stop",
        "dpu_emu_phase_seconds",
        "dpu_emu_transfer_seconds",
        "dpu_emu_kernel_seconds",
        "dpu_emu_launch_overhead_seconds",
        "dpu_emu_tasklet_times",
        "dpu_emu_trace",
        "dpu_emu_trace_events",
        "dpu_emu_profile_error",
        "dpu_emu_report_profile_errors",
    ]
    for name, (restype, argtypes) in (C.FUNCTIONS | C.EXTENSIONS).items():
        function = getattr(backend.lib, name)
        assert function.restype is restype
        assert tuple(function.argtypes) == tuple(argtypes)


def test_error_strings_are_read_and_freed_once() -> None:
    from pyupmem.driver.backend import find_backend

    backend = find_backend("emulator")
    assert backend.lib.frees_error_strings
    for code, _, message in C.ERRORS:
        assert backend.lib.error_string(code) == message
    # Cached: a second read neither calls the library nor frees again.
    assert backend.lib.error_string(C.DPU_ERR_DPU_FAULT) == "dpu is in fault"


def test_sdk_binding_never_frees_error_strings() -> None:
    lib = C.LibDpu.open(str(emu.build().libdpu))
    assert not lib.frees_error_strings
    assert lib.error_string(4) == "dpu allocation error"


@pytest.mark.parametrize(
    "address, memory", [(0, "WRAM"), (0x08000010, "MRAM"), (0x80000000, "IRAM")]
)
def test_memory_of(address: int, memory: str) -> None:
    assert C.memory_of(address) == memory


def test_iterators_visit_every_dpu_and_rank() -> None:
    from pyupmem.driver.backend import find_backend

    backend = find_backend("emulator")
    lib = backend.lib
    dpu_set = C.dpu_set_t()
    backend.check(lib.dpu_alloc(130, b"", ctypes.byref(dpu_set)), "dpu_alloc")
    try:
        dpus = list(C.iter_dpus(lib, dpu_set))
        ranks = list(C.iter_ranks(lib, dpu_set))
        assert len(dpus) == 130
        assert all(d.kind == C.DPU_SET_DPU for d in dpus)
        assert len({d.dpu for d in dpus}) == 130
        assert len(ranks) == 3
        counts = []
        for rank in ranks:
            n = ctypes.c_uint32()
            backend.check(lib.dpu_get_nr_dpus(rank, ctypes.byref(n)), "dpu_get_nr_dpus")
            counts.append(n.value)
            assert rank.kind == C.DPU_SET_RANKS and rank.list.nr_ranks == 1
        assert sum(counts) == 130
        # Iterating one DPU yields it once.
        assert [d.dpu for d in C.iter_dpus(lib, dpus[5])] == [dpus[5].dpu]
    finally:
        lib.dpu_free(dpu_set)
