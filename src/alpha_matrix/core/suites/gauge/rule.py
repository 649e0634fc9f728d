"""The readable rule: what must be visible for a person (or a reader) to read the gauge.

Stated over what the generator knows, never over the image:

  readable  <=>  every point of the indicator's end is seen with contrast >= ``CONTRAST_MIN``
                 (the needle's tip region, or the liquid surface with liquid and glass either
                 side of it), and
                 at least ``MIN_LABELS`` labelled ticks are seen with contrast >= ``CONTRAST_MIN``,
                 and
                 2 % of the span moves the indicator by >= ``RES_MIN_PX`` pixels of the image.

A point is *seen* when no body stands between the camera and it; its *contrast* is the ink's
difference to its background in 8-bit image levels after everything between the face and the
sensor (fog, a shattered patch, shadow, glare, the light, motion blur across the mark, a coarser
sensor). ``CONTRAST_MIN`` is ten times the sensor noise. The figures come from ``visibility.py``;
this module only judges them, so the rule can be tested on constructed cases.
"""

from __future__ import annotations

from dataclasses import dataclass

CONTRAST_MIN = 30.0  # 8-bit levels: 10 x the sensor noise sigma (Conditions.noise)
MIN_LABELS = 2
RES_MIN_PX = 1.0


@dataclass(frozen=True)
class Point:
    """One face point as the camera sees it."""

    contrast: float  # 8-bit levels; 0 when the point is hidden
    occluded: bool = False

    @property
    def seen(self) -> bool:
        return not self.occluded and self.contrast >= CONTRAST_MIN


@dataclass(frozen=True)
class Visibility:
    tip: tuple[Point, ...]
    labels: tuple[Point, ...]
    px_per_2pct: float  # image px the indicator moves for 2 % of the span


@dataclass(frozen=True)
class Verdict:
    readable: bool
    reason: str  # why not; "" when readable

    def __bool__(self) -> bool:
        return self.readable


def judge(vis: Visibility) -> Verdict:
    """Apply the rule; the first failing clause is the reason."""
    hidden = [p for p in vis.tip if not p.seen]
    if any(p.occluded for p in hidden):
        return Verdict(False, "indicator occluded")
    if hidden or not vis.tip:
        return Verdict(False, "indicator contrast below bound")
    if sum(p.seen for p in vis.labels) < MIN_LABELS:
        return Verdict(False, f"fewer than {MIN_LABELS} labelled ticks visible")
    if vis.px_per_2pct < RES_MIN_PX:
        return Verdict(False, "resolution too low")
    return Verdict(True, "")
