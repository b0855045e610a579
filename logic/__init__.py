"""Human techniques: a logic solver that explains every step, and a rating.

The solver climbs a fixed ladder of techniques (singles, locked candidates, subsets,
fish, wings, colouring, chains), applying the simplest one that makes progress, and
records each step with what it rests on and what it changes (:mod:`.ladder`). Each
technique is one function over candidates and units (:mod:`.singles`,
:mod:`.intersections`, :mod:`.subsets`, :mod:`.fish`, :mod:`.wings`, :mod:`.chains`),
on any geometry: extra units and jigsaw regions included; fish use rows and columns.
:mod:`.words` tells a step in words; :mod:`.rating` grades a puzzle from its steps.
"""

from .board import Board, shape_of
from .ladder import GRADES, LADDER, Run, Technique, score, solve_logic
from .step import Step

__all__ = [
    "GRADES",
    "LADDER",
    "Board",
    "Run",
    "Step",
    "Technique",
    "score",
    "shape_of",
    "solve_logic",
]
