"""What a bench run does: its plan (sets, specs, knobs), its chunks of work, and what it
skips.

A set's puzzles come as :class:`SetBlock` s (runs of one shape, as arrays); the work of
one spec is cut into :class:`Chunk` s, each a piece of one block for one repeat: the unit
an executor runs and the store commits in one transaction.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..backends import BackendSpec, get_backend, unsupported
from ..catalog import catalog
from ..models import Puzzle, build_model
from ..models.grids import Grids


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


@dataclass(frozen=True, eq=False)
class SetBlock:
    """Puzzles of one shape from a set: each one's index in the set, and their givens."""

    indices: np.ndarray
    grids: Grids

    def __len__(self) -> int:
        return len(self.grids)


@dataclass(frozen=True, eq=False)
class Chunk:
    """Puzzles of one shape from one set, for one repeat: a unit of work of one spec."""

    set: str
    indices: np.ndarray  # each puzzle's index in the set
    grids: Grids
    repeat: int

    def __len__(self) -> int:
        return len(self.grids)


def as_blocks(loaded: Sequence[SetBlock] | Sequence[tuple[int, Puzzle]]) -> list[SetBlock]:
    """A set as blocks: blocks as given, or (index, puzzle) pairs packed into blocks (each
    run of one geometry and cages is one block)."""
    if all(isinstance(item, SetBlock) for item in loaded):
        return list(loaded)  # type: ignore[arg-type]
    blocks: list[SetBlock] = []
    run: list[tuple[int, Puzzle]] = []
    for idx, puzzle in loaded:  # type: ignore[misc]
        if run and (puzzle.geometry, puzzle.cages) != (run[0][1].geometry, run[0][1].cages):
            blocks.append(_block(run))
            run = []
        run.append((idx, puzzle))
    if run:
        blocks.append(_block(run))
    return blocks


def _block(run: Sequence[tuple[int, Puzzle]]) -> SetBlock:
    indices = np.array([idx for idx, _ in run], dtype=np.int64)
    return SetBlock(indices, Grids.of([puzzle for _, puzzle in run]))


def read_set(
    name: str,
    extra_dirs: Sequence[str | os.PathLike[str]] = (),
    sample: int | None = None,
    seed: int = 0,
) -> list[SetBlock]:
    """A set's puzzles as blocks, read fast (:func:`~sudokulab.models.stream.read_blocks`);
    the indices and the sample are those of :func:`~sudokulab.catalog.load`.

    The bench needs no known solutions, so a catalog set's are not read. The first line
    that is not a puzzle raises its :class:`~sudokulab.models.ParseError`, as ``load`` does.
    """
    from ..catalog import locate, sample_indices
    from ..models.entries import ParseError
    from ..models.stream import read_blocks

    runs: list[list[Grids]] = []  # blocks of one shape in a row, joined below
    for block in read_blocks(locate(name, extra_dirs)):
        if isinstance(block, ParseError):
            raise block
        grids = block.grids
        last = runs[-1][0] if runs else None
        if last is not None and (last.geometry, last.cages) == (grids.geometry, grids.cages):
            runs[-1].append(grids)
        else:
            runs.append([grids])
    blocks, start = [], 0
    for run in runs:
        givens = run[0].givens if len(run) == 1 else np.concatenate([g.givens for g in run])
        indices = np.arange(start, start + len(givens), dtype=np.int64)
        blocks.append(SetBlock(indices, Grids(run[0].geometry, givens, run[0].cages)))
        start += len(givens)
    if sample is None:
        return blocks
    keep = np.asarray(sample_indices(start, sample, seed), dtype=np.int64)
    out = []
    for block in blocks:
        rows = np.flatnonzero(np.isin(block.indices, keep))
        if len(rows):
            out.append(SetBlock(block.indices[rows], block.grids.take(rows)))
    return out


def stored_indices(
    done: Iterable[tuple[str, int, str, int]],
) -> dict[tuple[str, str, int], list[int]]:
    """The (set, idx, backend, repeat) keys of stored rows, as the indices stored per
    (set, backend, repeat)."""
    out: dict[tuple[str, str, int], list[int]] = {}
    for name, idx, label, repeat in done:
        out.setdefault((name, label, repeat), []).append(idx)
    return out


def pending(
    name: str,
    blocks: Iterable[SetBlock],
    label: str,
    repeats: int,
    stored: dict[tuple[str, str, int], list[int]],
) -> list[Chunk]:
    """The work left of one spec on one set: per block and repeat, the puzzles whose row
    is not stored yet (``stored``: see :func:`stored_indices`), as one unsplit chunk."""
    out = []
    for block in blocks:
        for repeat in range(repeats):
            rows: np.ndarray | slice = slice(None)
            if (name, label, repeat) in stored:
                rows = np.flatnonzero(~np.isin(block.indices, stored[name, label, repeat]))
                if not len(rows):
                    continue
            out.append(Chunk(name, block.indices[rows], block.grids.take(rows), repeat))
    return out


def split(chunks: Iterable[Chunk], size: int) -> list[Chunk]:
    """The chunks cut into pieces of at most ``size`` puzzles."""
    if size < 1:
        raise ValueError(f"a chunk needs at least 1 puzzle, not {size}")
    out = []
    for chunk in chunks:
        if len(chunk) <= size:
            out.append(chunk)
            continue
        for start in range(0, len(chunk), size):
            rows = slice(start, start + size)
            out.append(Chunk(chunk.set, chunk.indices[rows], chunk.grids.take(rows), chunk.repeat))
    return out


def skip_reason(spec: BackendSpec, set_name: str, puzzles: Sequence[Puzzle]) -> str:
    """Why a spec does not run on a set ("" when it does).

    A backend that lacks a constraint kind the set uses (cages on the native engine), or
    a pair the catalog excludes (``skip``: plain backtracking on 16x16) is skipped and
    reported as such, not run into errors or timeouts. A model's constraint kinds depend
    on its shape only, so one puzzle per shape is enough.
    """
    backend = get_backend(spec.backend)
    shapes = {(p.geometry, p.cages): p for p in puzzles}
    for puzzle in shapes.values():
        lacking = unsupported(backend, build_model(puzzle))
        if lacking:
            return lacking
    info = catalog().get(set_name)
    return dict(info.skip).get(str(spec), "") if info is not None else ""
