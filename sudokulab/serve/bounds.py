"""The bounds on one request's work (a module of its own: the command line reads the
defaults without loading the application)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bounds:
    """What one request may ask for: the server refuses more with a 4xx and one line."""

    max_size: int = 16  # the largest grid (n x n)
    max_steps: int = 5000  # steps of a trace (or of a logic run) sent to the page
    timeout: float = 5.0  # seconds of search per trace, per backend checked, per puzzle made
    max_text: int = 4096  # characters of puzzle text
    max_backends: int = 12  # backends in one check
    max_certificate: int = 256 * 1024  # bytes of a certificate's CNF and proof texts sent
