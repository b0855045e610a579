"""Command-line pieces for variants: ``--variant``/``--regions`` and ``sudokulab generate``."""

from __future__ import annotations

import argparse
import dataclasses

from .models import Entry, ParseError
from .models.variants import read_regions, with_variant


def add_variant_options(p: argparse.ArgumentParser) -> None:
    """``--variant x,hyper`` and ``--regions FILE``: rules added to plain grids."""
    p.add_argument(
        "--variant",
        metavar="LIST",
        help="add variant rules to every puzzle: x (diagonals), hyper (windoku), or x,hyper "
        "(killer and jigsaw need a document or --regions)",
    )
    p.add_argument(
        "--regions",
        metavar="FILE",
        help="jigsaw: a file of n rows of region labels replacing the boxes",
    )


def apply_variant_options(entries: list[Entry], args: argparse.Namespace) -> list[Entry]:
    """The entries with ``--variant`` and ``--regions`` applied; ParseError when they do not fit."""
    names = [n.strip() for n in (args.variant or "").split(",") if n.strip()]
    regions = None
    if args.regions:
        try:
            with open(args.regions, encoding="utf-8") as f:
                regions = read_regions(f.read(), args.regions)
        except OSError as err:
            raise ParseError(f"cannot read the file: {err.strerror or err}", args.regions) from None
        except ValueError as err:
            raise ParseError(str(err)) from None
    if not names and regions is None:
        return entries
    out = []
    for entry in entries:
        try:
            puzzle = with_variant(entry.puzzle, names, regions)
        except ValueError as err:
            where = args.regions if regions is not None and "region" in str(err) else "--variant"
            raise ParseError(str(err), where) from None
        out.append(dataclasses.replace(entry, puzzle=puzzle))
    return out
