"""What a bench run does: its plan (sets, specs, knobs), its chunks of work, and what it
skips.

A set's puzzles come as a stream of :class:`SetBlock` s (runs of one shape, as arrays,
a chunk of the file at a time); the work of one spec is cut into :class:`Chunk` s, each a
piece of one block for one repeat: the unit an executor runs and the store commits in one
transaction. Nothing holds a whole set: a first pass (:func:`survey`) counts it and
keeps one puzzle per shape, then each spec reads it again as it goes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..backends import BackendSpec, get_backend, unsupported
from ..catalog import catalog
from ..models import ParseError, Puzzle, build_model
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
    #: Whether each negative claim is proved and checked (each puzzle then goes alone
    #: through :func:`sudokulab.solve`); the rows keep the proofs' figures.
    certify: bool = False

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


def as_blocks(loaded: Iterable[SetBlock | tuple[int, Puzzle]]) -> list[SetBlock]:
    """A set as blocks: blocks as given, or (index, puzzle) pairs packed into blocks (each
    run of one geometry and cages is one block)."""
    return [b for b in iter_blocks(loaded) if isinstance(b, SetBlock)]


def iter_blocks(
    loaded: Iterable[SetBlock | tuple[int, Puzzle] | ParseError],
) -> Iterator[SetBlock | ParseError]:
    """A set as a stream of blocks, in order: blocks and errors as given, (index, puzzle)
    pairs packed into blocks (each run of one geometry and cages, up to
    :data:`PAIRS_PER_BLOCK` puzzles, is one block)."""
    run: list[tuple[int, Puzzle]] = []
    for item in loaded:
        if isinstance(item, SetBlock | ParseError):
            if run:
                yield _block(run)
                run = []
            yield item
            continue
        idx, puzzle = item
        if run and (
            (puzzle.geometry, puzzle.cages, puzzle.rules)
            != (run[0][1].geometry, run[0][1].cages, run[0][1].rules)
            or len(run) >= PAIRS_PER_BLOCK
        ):
            yield _block(run)
            run = []
        run.append((idx, puzzle))
    if run:
        yield _block(run)


#: Puzzles per block when a set comes as (index, puzzle) pairs.
PAIRS_PER_BLOCK = 1 << 12


def _block(run: Sequence[tuple[int, Puzzle]]) -> SetBlock:
    indices = np.array([idx for idx, _ in run], dtype=np.int64)
    return SetBlock(indices, Grids.of([puzzle for _, puzzle in run]))


def set_blocks(
    name: str,
    extra_dirs: Sequence[str | os.PathLike[str]] = (),
    sample: int | None = None,
    seed: int = 0,
) -> Iterator[SetBlock | ParseError]:
    """A set's puzzles as a stream of blocks, read a chunk of the file at a time
    (:func:`~sudokulab.models.stream.read_blocks`), with each bad line's
    :class:`~sudokulab.models.ParseError` in its place; the indices count the good
    puzzles, as :func:`~sudokulab.catalog.load` does (a sample reads the file twice:
    to count, then to keep the sample's puzzles).

    The bench needs no known solutions, so a catalog set's are not read.
    """
    from ..catalog import locate, sample_indices
    from ..models.stream import read_blocks

    path = locate(name, extra_dirs)
    keep = None
    if sample is not None:
        count = sum(len(b) for b in read_blocks(path) if not isinstance(b, ParseError))
        keep = np.asarray(sample_indices(count, sample, seed), dtype=np.int64)
    start = 0
    for block in read_blocks(path):
        if isinstance(block, ParseError):
            yield block
            continue
        indices = np.arange(start, start + len(block), dtype=np.int64)
        start += len(block)
        if keep is None:
            yield SetBlock(indices, block.grids)
            continue
        rows = np.flatnonzero(np.isin(indices, keep))
        if len(rows):
            yield SetBlock(indices[rows], block.grids.take(rows))


def read_set(
    name: str,
    extra_dirs: Sequence[str | os.PathLike[str]] = (),
    sample: int | None = None,
    seed: int = 0,
) -> list[SetBlock]:
    """A set's puzzles as blocks, whole (:func:`set_blocks`, consecutive blocks of one
    shape joined); the first line that is not a puzzle raises its
    :class:`~sudokulab.models.ParseError`, as ``load`` does."""
    runs: list[list[SetBlock]] = []  # blocks of one shape in a row, joined below
    for block in set_blocks(name, extra_dirs, sample, seed):
        if isinstance(block, ParseError):
            raise block
        grids = block.grids
        last = runs[-1][0].grids if runs else None
        if last is not None and last.shape == grids.shape:
            runs[-1].append(block)
        else:
            runs.append([block])
    return [
        run[0]
        if len(run) == 1
        else SetBlock(
            np.concatenate([b.indices for b in run]),
            Grids(
                run[0].grids.geometry,
                np.concatenate([b.grids.givens for b in run]),
                run[0].grids.cages,
                None
                if run[0].grids.candidates is None
                else np.concatenate([b.grids.candidates for b in run]),
                run[0].grids.rules,
            ),
        )
        for run in runs
    ]


@dataclass(frozen=True)
class Survey:
    """What a first pass over a set found: its puzzles, one puzzle of each shape (what
    :func:`skip_reason` needs), and its bad lines."""

    name: str
    puzzles: int
    shapes: tuple[Puzzle, ...]
    errors: int


def survey(
    name: str,
    loaded: Iterable[SetBlock | tuple[int, Puzzle] | ParseError],
    on_error: Callable[[ParseError], None] | None = None,
) -> Survey:
    """Read a set once without keeping it: count its puzzles and bad lines (each handed to
    ``on_error``), and keep one puzzle of each shape."""
    puzzles = errors = 0
    shapes: dict[Any, Puzzle] = {}
    for block in iter_blocks(loaded):
        if isinstance(block, ParseError):
            errors += 1
            if on_error is not None:
                on_error(block)
            continue
        puzzles += len(block)
        grids = block.grids
        if grids.shape not in shapes:
            shapes[grids.shape] = grids.puzzle(0)
    return Survey(name, puzzles, tuple(shapes.values()), errors)


def set_chunks(
    name: str,
    blocks: Iterable[SetBlock | ParseError],
    repeats: int | range,
    size: int,
    stored: Callable[[SetBlock, int], np.ndarray] | None = None,
) -> Iterator[Chunk]:
    """The work left of one spec on one set, as a stream: per block and repeat (``repeats``
    of them from 0, or those of a range), the puzzles whose row is not stored yet
    (``stored(block, repeat)``: the block's indices already stored), in chunks of at most
    ``size`` puzzles. Errors are left out."""
    if size < 1:
        raise ValueError(f"a chunk needs at least 1 puzzle, not {size}")
    rounds = range(repeats) if isinstance(repeats, int) else repeats
    for block in blocks:
        if isinstance(block, ParseError):
            continue
        for repeat in rounds:
            rows: np.ndarray | slice = slice(None)
            indices, grids = block.indices, block.grids
            if stored is not None:
                done = stored(block, repeat)
                if len(done):
                    rows = np.flatnonzero(~np.isin(block.indices, done))
                    if not len(rows):
                        continue
                    indices, grids = indices[rows], grids.take(rows)
            for start in range(0, len(indices), size):
                piece = slice(start, start + size)
                yield Chunk(name, indices[piece], grids.take(piece), repeat)


def skip_reason(spec: BackendSpec, set_name: str, puzzles: Sequence[Puzzle]) -> str:
    """Why a spec does not run on a set ("" when it does).

    A backend that lacks a constraint kind the set uses (cages on the native engine), or
    a pair the catalog excludes (``skip``: plain backtracking on 16x16) is skipped and
    reported as such, not run into errors or timeouts, and so is one that does not take
    pencil marks on a set that has them. A model's constraint kinds depend on its shape
    only, so one puzzle per shape (and kind: plain or pencil marks) is enough.
    """
    backend = get_backend(spec.backend)
    shapes = {(p.geometry, p.cages, p.candidates is not None, p.rules): p for p in puzzles}
    for puzzle in shapes.values():
        lacking = unsupported(backend, build_model(puzzle), spec.options)
        if lacking:
            return lacking
    info = catalog().get(set_name)
    return dict(info.skip).get(str(spec), "") if info is not None else ""
