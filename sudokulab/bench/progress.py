"""Progress of long work: a bar on a terminal, plain periodic lines otherwise."""

from __future__ import annotations

import sys
import time
from typing import Any

#: Seconds between two plain progress lines when the stream is not a terminal.
EVERY = 5.0


class Progress:
    """Counts finished items of ``total``: a tqdm bar on a terminal, else a line
    ``WHAT: 40/95 done (LABEL)`` every :data:`EVERY` seconds and at the end (logs, CI)."""

    def __init__(self, total: int, what: str = "bench", stream: Any = None) -> None:
        self.stream = stream or sys.stderr
        self.what = what
        self.total, self.count, self.last = total, 0, time.monotonic()
        self.bar = None
        if self.stream.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="puzzle", file=self.stream, leave=False)

    def update(self, label: str, n: int = 1) -> None:
        """``n`` more items done (a chunk's rows); ``label`` says what is running (a
        backend spec)."""
        self.count += n
        if self.bar is not None:
            self.bar.set_description(label, refresh=False)
            self.bar.update(n)
        elif time.monotonic() - self.last >= EVERY or self.count == self.total:
            self.last = time.monotonic()
            print(
                f"{self.what}: {self.count}/{self.total} done ({label})",
                file=self.stream,
                flush=True,
            )

    def close(self) -> None:
        """Remove the bar."""
        if self.bar is not None:
            self.bar.close()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
