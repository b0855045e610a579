"""What a bench run does: its plan (sets, specs, knobs), its tasks, and what it skips."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..backends import BackendSpec, get_backend, unsupported
from ..models import Puzzle, build_model
from .sets import catalog


@dataclass(frozen=True)
class Task:
    """One puzzle for one spec: where it comes from and which repeat it is."""

    set: str
    idx: int
    puzzle: Puzzle
    repeat: int


@dataclass
class BenchPlan:
    """What a run does; stored with the run so that it can be resumed."""

    sets: list[str]
    specs: list[str]
    timeout: float | None = 10.0
    repeats: int = 1
    unique: bool = False
    sample: int | None = None
    seed: int = 0
    data_dirs: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The plan as plain data."""
        return dict(self.__dict__)


def skip_reason(spec: BackendSpec, set_name: str, puzzles: Sequence[Puzzle]) -> str:
    """Why a spec does not run on a set ("" when it does).

    A backend that lacks a constraint kind the set uses (cages on the native engine), or
    a pair the catalog excludes (``skip``: plain backtracking on 16x16) is skipped and
    reported as such, not run into errors or timeouts.
    """
    backend = get_backend(spec.backend)
    for puzzle in puzzles:
        lacking = unsupported(backend, build_model(puzzle))
        if lacking:
            return lacking
    info = catalog().get(set_name)
    return dict(info.skip).get(str(spec), "") if info is not None else ""
