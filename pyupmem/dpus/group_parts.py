"""What every part of :class:`~pyupmem.dpus.group.DpuGroup` may use of the group.

The group's operations are written by job in mixins (transfers, block transfers, control,
reports); each derives from ``_GroupPart``, which declares for the type checker
the attributes and helpers that :class:`~pyupmem.dpus.group.DpuGroup` provides. At run
time it is an empty class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from pyupmem.build.program import Program, Symbol
    from pyupmem.dpus.asynchrony import Finish
    from pyupmem.dpus.dpuset import DpuSet
    from pyupmem.dpus.loaded_program import LoadedProgram
    from pyupmem.dpus.views import Dpu
    from pyupmem.driver import libdpu as C
    from pyupmem.estimate.model import KernelEstimate


class _GroupPart:
    """A base class of the group's mixins only (see the module's docstring)."""

    if TYPE_CHECKING:  # provided by DpuGroup
        _owner: DpuSet
        _c: C.dpu_set_t
        _count: int
        _key: tuple[str, int]  # ("dpu", i) for a single DPU

        def _lib(self, settle: bool = True) -> C.LibDpu: ...
        def _check(self, status: int, call: str, detail: str = "") -> None: ...
        def _enqueue(
            self, action: Callable[[], object], what: str, finish: Finish | None = None
        ) -> None: ...
        def _queue_busy(self) -> bool: ...
        def _rank_indices(self) -> list[int]: ...
        def _rank_parts(self) -> list[Any]: ...
        def _indices(self) -> Sequence[int]: ...
        def _dpu_structs(self) -> list[C.dpu_set_t]: ...
        def _program_state(self) -> LoadedProgram | None: ...
        def _require_single(self, call: str, method: str, instead: str) -> None: ...
        def _resolve(self, symbol: str | Symbol, call: str) -> Symbol | None: ...
        def _refuse_unreported_fault(self, call: str) -> None: ...
        def __iter__(self) -> Iterator[Dpu]: ...
        def load(self, program: Program | bytes) -> LoadedProgram: ...
        def estimate(self) -> KernelEstimate: ...
