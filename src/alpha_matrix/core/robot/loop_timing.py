"""Thread CPU time of the bridge loop's work beside the physics, per episode (benchmarks).

With ``sim_bridge.time_physics`` the bridge charges each part of its loop here and logs the
episode's totals at the next reset, next to the physics timing: what the graph's overhead over
bare physics is made of, measured in every benchmark run (README, "Measured"). Off, ``start``
returns 0 and ``add`` does nothing: the default graph pays two calls per batch.
"""

from __future__ import annotations

import re
import time

PARTS = ("publish", "gate", "requests")  # batches sent; spins while the gate holds; spins that serve requests


class LoopTiming:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.calls = dict.fromkeys(PARTS, 0)
        self.ns = dict.fromkeys(PARTS, 0)

    def start(self) -> int:
        return time.thread_time_ns() if self.enabled else 0

    def add(self, part: str, t0: int) -> None:
        """Charge ``part`` with the thread CPU since ``t0`` (a ``start()``)."""
        if self.enabled:
            self.calls[part] += 1
            self.ns[part] += time.thread_time_ns() - t0

    def take_line(self) -> str:
        """The totals since the last take, as the bridge logs them (``parse_loop`` reads them back)."""
        line = "loop timing: " + ", ".join(f"{p} {self.calls[p]} calls {self.ns[p]} ns" for p in PARTS)
        self.calls, self.ns = dict.fromkeys(PARTS, 0), dict.fromkeys(PARTS, 0)
        return line


LOOP_RE = re.compile(r"\[sim_bridge\] loop timing: " + ", ".join(rf"{p} (\d+) calls (\d+) ns" for p in PARTS))


def parse_loop(text: str) -> list[dict[str, tuple[int, int]]]:
    """The bridge's loop timing lines in the launcher's output, in order: part -> (calls, ns)."""
    out = []
    for m in LOOP_RE.findall(text):
        vals = [int(v) for v in m]
        out.append({p: (vals[2 * i], vals[2 * i + 1]) for i, p in enumerate(PARTS)})
    return out
