"""A plain progress bar on a terminal (one line per 10 % when output is not a terminal)."""

from __future__ import annotations

from typing import TextIO

WIDTH = 30


class ProgressBar:
    def __init__(self, out: TextIO, label: str) -> None:
        self._out = out
        self._label = label
        self._tty = out.isatty()
        self._last_decile = -1

    def __call__(self, done: int, total: int, item: str) -> None:
        total = max(total, 1)
        share = done / total
        if self._tty:
            filled = int(WIDTH * share)
            bar = "#" * filled + "." * (WIDTH - filled)
            self._out.write(f"\r{self._label} [{bar}] {done}/{total} {item[:40]:<40}")
            if done >= total:
                self._out.write("\n")
        else:
            decile = int(share * 10)
            if decile != self._last_decile or done >= total:
                self._last_decile = decile
                self._out.write(f"{self._label}: {done}/{total} {item}\n")
        self._out.flush()
