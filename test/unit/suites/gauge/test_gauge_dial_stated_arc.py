"""A face file's stated arc (``DialSpec.arc_start_deg``/``arc_end_deg``) on dials drawn here
(dials_drawn_here.py): stating it never reads less than leaving it out (the scale is read from the
ticks as if not stated, the statement checks it; the value is read between the ticks seen, not
linearly from the stated degrees, which are the face's, not the rectified view's), and a statement
the ticks contradict is no reading."""

from __future__ import annotations

import numpy as np
import pytest
from dials_drawn_here import Drawn, draw

from alpha_matrix.core.suites.gauge.dial import DialSpec, read_dial

HALF_SCALE = {"lo": 0.0, "hi": 160.0, "sweep": 180.0, "majors": 8, "minors": 4, "numerals_at": 0.66}
# a 180 deg scale whose numerals sit close inside its ticks: their ring is read first, then the ticks'
NO_ROUND_200 = Drawn(lo=0.0, hi=9.0, majors=6, value=6.1, sweep=200.0)  # 1.5 a major: no round scale, its
# ends in doubt without a statement


def _nominal(d: Drawn) -> tuple[float, float]:
    """The face's arc as its file states it: symmetric about 12 o'clock (``turn`` is the view's roll)."""
    return 90.0 + d.sweep / 2.0, 90.0 - d.sweep / 2.0


def _read(d: Drawn, img: np.ndarray | None = None, **spec: object) -> tuple[float | None, str]:
    r = read_dial(draw(d) if img is None else img, DialSpec(d.lo, d.hi, "bar", **spec))  # type: ignore[arg-type]
    return r.value, r.reason


def _within(value: float | None, d: Drawn) -> bool:
    return value is not None and abs(value - d.value) <= 0.02 * (d.hi - d.lo)


@pytest.mark.parametrize(
    ("d", "drag"),
    [
        (Drawn(value=37.0, **HALF_SCALE), False),  # type: ignore[arg-type]
        (Drawn(value=3.2, drag=10.0, drag_len=0.9, drag_width=5, majors=5), True),
        (Drawn(value=4.4, sweep=180.0, turn=5.0), False),
    ],
    ids=["numerals-ring-read-first", "end-tick-under-a-drag-pointer", "180-rolled-5-deg"],
)
def test_a_stated_arc_reads_every_dial_read_without_it(d: Drawn, drag: bool) -> None:
    """Read without the statement, read with it too, within 2 %: the numerals' ring read first (its
    reason with the arc stated was none the next ring is read on), an end tick under a drag pointer
    (the ring under it counted as covered only when no arc was stated), a view rolled 5 deg off the
    face's upright (the stated degrees read linearly put the value 2.8 % of the span off)."""
    plain, why = _read(d, drag_pointer=drag)
    assert _within(plain, d), (plain, why)
    start, end = _nominal(d)
    value, reason = _read(d, drag_pointer=drag, arc_start_deg=start, arc_end_deg=end)
    assert _within(value, d), (value, reason)


@pytest.mark.parametrize(
    ("d", "start", "end"),
    [
        (Drawn(value=6.3), 255.0, -15.0),  # the right sweep, turned 30 deg
        (Drawn(value=6.3), 210.0, -30.0),  # a 240 deg sweep stated on a 270 deg scale
        (Drawn(value=6.3, sweep=250.0, turn=20.0), 225.0, -45.0),  # a turned 250 deg scale stated as 270 at 12
        (Drawn(value=4.4, sweep=180.0), 190.0, 10.0),  # a 180 deg scale stated 10 deg turned
        (NO_ROUND_200, 210.0, 10.0),  # ends in doubt without a statement, stated 20 deg turned (read 9.6 % off)
    ],
    ids=["270-turned-30", "240-on-270", "turned-250-as-270", "180-turned-10", "200-no-round-turned-20"],
)
def test_a_stated_arc_the_ticks_contradict_is_no_reading(d: Drawn, start: float, end: float) -> None:
    """A face file wrong about the arc: the scale the ticks give is not the stated one, so the
    reader abstains (it read a value from the stated degrees before, when the ticks' sweep matched)."""
    value, reason = _read(d, arc_start_deg=start, arc_end_deg=end)
    assert value is None, (value, reason)


def test_ticks_whose_ends_are_in_doubt_are_read_between_where_the_stated_arc_puts_them() -> None:
    """A 200 deg scale of 1.5 a major (no round scale: its ends are in doubt without a statement):
    stated, its ticks are the arc when they lie where stated (within the view's roll), and the
    value is read between them (a statement turned off them: see the test above)."""
    d = NO_ROUND_200
    assert _read(d)[0] is None
    value, reason = _read(d, arc_start_deg=190.0, arc_end_deg=-10.0)
    assert _within(value, d), (value, reason)
