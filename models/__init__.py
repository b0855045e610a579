"""Geometry, puzzles, the model builder and text formats: everything but solving."""

from .entries import Entry, ParseError
from .formats import (
    format_candidates,
    format_grid,
    format_line,
    parse_puzzle,
    read_file,
    read_text,
)
from .geometry import BOX_SHAPES, SIZES, Geometry, Unit, geometry, make_geometry
from .model import AllDifferent, Constraint, Model, Sum, build_model
from .puzzle import Cage, Clash, Grid, Puzzle, fault, is_solution

__all__ = [
    "BOX_SHAPES",
    "SIZES",
    "AllDifferent",
    "Cage",
    "Clash",
    "Constraint",
    "Entry",
    "Geometry",
    "Grid",
    "Model",
    "ParseError",
    "Puzzle",
    "Sum",
    "Unit",
    "build_model",
    "fault",
    "format_candidates",
    "format_grid",
    "format_line",
    "geometry",
    "is_solution",
    "make_geometry",
    "parse_puzzle",
    "read_file",
    "read_text",
]
