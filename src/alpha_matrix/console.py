"""What the plain launcher prints: one ``[node]`` prefix per line, and a progress bar on a terminal.

rclpy's default line repeats the node and a Unix time after the launcher's own prefix; the nodes
started here log ``{severity} {message}`` instead (unless the user set their own format), and the
severity word becomes a label only where it says something (``warning:``, ``error:``). Job nodes
print ``[k/n] ...`` per episode or scenario: where a terminal is attached, that also drives a
tqdm bar; in a CI log (no terminal) lines stay plain.
"""

from __future__ import annotations

import re
import sys
import threading
from typing import IO

from tqdm import tqdm

from alpha_matrix.core.quiet import native_output

FORMAT_ENV = "RCUTILS_CONSOLE_OUTPUT_FORMAT"
NODE_FORMAT = "{severity} {message}"
_LABELS = {"INFO": "", "DEBUG": "debug: ", "WARN": "warning: ", "ERROR": "error: ", "FATAL": "fatal: "}
_BANNERS = ("pybullet build time:",)  # printed by pybullet's C code at import, to every process's stdout
PROGRESS = re.compile(r"^\[(\d+)/(\d+)\] ")


def clean(line: str) -> str | None:
    """A node's output line as shown (without its newline); None for a banner that says nothing."""
    text = line.rstrip("\n")
    if text.startswith(_BANNERS):
        return None
    word, sep, rest = text.partition(" ")
    return _LABELS[word] + rest if sep and word in _LABELS else text


def import_pybullet_quietly() -> None:
    """Import pybullet with its C banner kept out of this command's output (a one-line error stays
    one line): captured around the import (core/quiet.py; the banner may wait in a C stdio buffer
    on a pipe, flushed inside the capture). Nothing else runs meanwhile (the import, in the main
    thread, before any node)."""
    if "pybullet" in sys.modules:
        return
    with native_output("import pybullet"):
        import pybullet  # noqa: F401 - the import is the point


def progress(text: str) -> tuple[int, int] | None:
    """``(k, n)`` of a job's ``[k/n] ...`` line, else None."""
    m = PROGRESS.match(text)
    return (int(m.group(1)), int(m.group(2))) if m else None


class Console:
    """One output stream shared by every launcher of a run (``--workers`` graphs side by side)."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.lock = threading.Lock()
        isatty = getattr(out, "isatty", None)
        self.tty = bool(isatty and isatty())
        self.bars: dict[str, tqdm] = {}

    def write(self, text: str) -> None:
        """``text`` ends with a newline; on a terminal it goes above the bars."""
        with self.lock:
            if self.bars:
                tqdm.write(text.rstrip("\n"), file=self.out)
            else:
                self.out.write(text)
            self.out.flush()

    def advance(self, key: str, k: int, n: int) -> None:
        """The job ``key`` reported item k of n: its bar (a terminal only) shows it."""
        if not self.tty:
            return
        with self.lock:
            bar = self.bars.get(key)
            if bar is None or bar.total != n:
                if bar is not None:
                    bar.close()
                bar = self.bars[key] = tqdm(total=n, desc=key, file=self.out, leave=False, dynamic_ncols=True)
            bar.update(k - bar.n)  # k counts from an earlier run's records too, when resumed
            bar.refresh()  # every item shows, however fast they come

    def close(self) -> None:
        with self.lock:
            for bar in self.bars.values():
                bar.close()
            self.bars.clear()
