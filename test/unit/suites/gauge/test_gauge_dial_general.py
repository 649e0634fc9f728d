"""The dial reader on dials unlike the suite's, drawn here (dials_drawn_here.py): a sweep of any
size turned anywhere on the dial (its arc read from where the ticks stop), a coloured or red value
needle on its hub, a blade wide at its hub, a drag pointer shorter than the needle, a dial printed on
a square plate with no circle of its own (found from its ticks), a 180 deg scale whose numerals
sit close inside its ticks, an end tick under a drag pointer (a turned scale's too, counted in ticks), a drag pointer washed out by fog, a lone stroke in the scale's gap, a short stroke just past an
end, an end under a hand's fingers; and the cases it must abstain on: the picture cut through the dial, a
hand over the end of a scale of no standard sweep, an
end of the scale lost, something lying over the needle or its tip, a needle short of the ticks, a
plate with no needle or only a drag pointer."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from dials_drawn_here import Drawn, angle, draw

from alpha_matrix.core.suites.gauge.dial import DialSpec, read_dial
from alpha_matrix.core.suites.gauge.dial.common import N_ANG
from alpha_matrix.core.suites.gauge.dial.scale import TickScale, arc

DARK = {"dial": (20, 20, 25), "ink": (235, 235, 235)}


def _read(d: Drawn, img: np.ndarray | None = None, **spec: object) -> tuple[float | None, str]:
    r = read_dial(draw(d) if img is None else img, DialSpec(d.lo, d.hi, "bar", **spec))  # type: ignore[arg-type]
    return r.value, r.reason


def _within(value: float | None, d: Drawn, lo_is_hi: bool = False) -> bool:
    want = d.hi + d.lo - d.value if lo_is_hi else d.value
    return value is not None and abs(value - want) <= 0.02 * (d.hi - d.lo)


def _pt(d: Drawn, deg: float, frac: float) -> tuple[int, int]:
    a = math.radians(deg)
    return int(d.centre[0] + frac * d.radius * math.cos(a)), int(d.centre[1] - frac * d.radius * math.sin(a))


@pytest.mark.parametrize(
    "d",
    [
        Drawn(value=6.3, sweep=250.0, turn=20.0),
        Drawn(value=2.1, sweep=230.0, turn=-25.0, majors=5),
        Drawn(value=6.3, sweep=250.0, turn=20.0, needle=(240, 200, 40), **DARK),  # type: ignore[arg-type]
        Drawn(value=6.3, needle=(230, 190, 40), cap=(150, 150, 150)),
        Drawn(value=4.4, needle=(200, 30, 30)),
        Drawn(value=7.7, blade=12.0, cap=(190, 160, 110)),
        Drawn(value=3.2, drag=6.0, drag_len=0.6),
        Drawn(value=8.6, sweep=250.0, turn=20.0, zone=8.0),
        Drawn(value=4.4, needle=(200, 30, 30), cap_r=0.03),
        Drawn(value=7.4, needle=(200, 30, 30), cap_r=0.03, sweep=250.0, turn=20.0),
    ],
    ids=["250-turned", "230-turned-5-majors", "250-turned-light-on-dark-yellow", "yellow-needle-grey-cap",
         "red-needle-on-its-hub", "wide-blade", "short-drag-pointer", "red-zone-by-the-end",
         "red-needle-small-pivot", "red-needle-small-pivot-turned"],
)  # fmt: skip
def test_dials_unlike_the_suites_are_read(d: Drawn) -> None:
    value, reason = _read(d)
    assert _within(value, d), (value, reason, d.value)


def test_a_turned_arc_read_counter_clockwise() -> None:
    d = Drawn(value=2.5, sweep=250.0, turn=20.0)
    value, reason = _read(d, clockwise=False)
    assert _within(value, d, lo_is_hi=True), (value, reason)


def test_a_picture_cut_through_the_dial_is_no_reading() -> None:
    """The dial's top out of the frame, the needle pointing there: the warp's border is no ink."""
    d = Drawn(value=5.0, sweep=250.0, turn=20.0, centre=(330, 100))
    value, reason = _read(d)
    assert value is None, (value, reason)


def _without_numerals(d: Drawn, img: np.ndarray) -> np.ndarray:
    """The picture with the scale's numerals painted over in the face's colour (a needle near a
    numeral is cut by the paint: the tests give values midway between them)."""
    for i in range(d.majors + 1):
        cv2.circle(img, _pt(d, angle(d, d.lo + (d.hi - d.lo) * i / d.majors), d.numerals_at), 16, d.dial, -1)
    return img


def _last_major_lost(d: Drawn) -> np.ndarray:
    """Ticks one major short of the range (painted over in the face's colour), the numerals left."""
    img = draw(d)
    a0, a1 = angle(d, 9.0), angle(d, 10.0)
    for t in np.linspace(a1 - 3.0, a0 - 1.5, 40):
        cv2.line(img, _pt(d, float(t), 0.75), _pt(d, float(t), 0.99), d.dial, 6)
    return img


def _end_covered(d: Drawn, colour: tuple[int, int, int]) -> np.ndarray:
    img = draw(d)
    cv2.circle(img, _pt(d, angle(d, 9.5), 0.9), 28, colour, -1)
    return img


def test_a_scale_whose_last_major_interval_is_lost_is_read_from_its_numerals_only() -> None:
    """Ticks stop one major short of the range: nine majors for 0-10 is no round step, so the
    ticks' ends are not taken for the range's. The numerals still state the scale (read); painted
    over too, nothing does (abstain)."""
    d = Drawn(value=4.0, sweep=250.0, turn=20.0)
    r = read_dial(_last_major_lost(d), DialSpec(d.lo, d.hi, "bar"))
    assert _within(r.value, d) and r.evidence.get("arc_from_numerals") == 1.0, (r.value, r.reason)
    value, reason = _read(d, _without_numerals(d, _last_major_lost(d)))
    assert value is None, (value, reason)


@pytest.mark.parametrize(
    ("end", "value"),
    [
        (0.0, 119.4),
        (160.0, 119.4),
        (160.0, 40.0),
        pytest.param(
            0.0,
            40.0,
            marks=pytest.mark.xfail(
                strict=True,
                reason="known: the numerals' strokes read as a ring of ticks, the '0' dropped as a stray end, "
                "seven intervals taken for 240 deg (22.4 for 40)",
            ),
        ),
    ],
)
def test_a_scale_of_majors_only_with_an_end_tick_lost_is_not_read_as_a_shorter_sweep(end: float, value: float) -> None:
    """0-160 over 270 deg in eight majors, no minor ticks, one end tick lost and the dial turned so
    the seven intervals left (236 deg) sit centred at 12 o'clock, 4 deg from a 240 deg sweep: seven
    intervals divide 0-160 into no round steps, eight would, and 270 deg is nearer with the eighth.
    An end is lost, not a 240 deg scale seen whole (read as one, 3-11 % off): never a wrong value."""
    d = Drawn(lo=0.0, hi=160.0, majors=8, minors=1, value=value, turn=12.0 if end == 0.0 else -12.0)
    img = draw(d)
    for t in np.linspace(angle(d, end) - 3.0, angle(d, end) + 3.0, 13):
        cv2.line(img, _pt(d, float(t), 0.75), _pt(d, float(t), 0.99), d.dial, 4)
    got, reason = _read(d, img)
    assert got is None or _within(got, d), (got, reason)


@pytest.mark.parametrize("colour", [(200, 160, 130), (200, 30, 30)], ids=["skin", "red"])
def test_an_end_of_a_turned_scale_under_a_cover_is_read_from_its_numerals_only(colour: tuple[int, int, int]) -> None:
    """A cover over the whole ring at an end (a red one too: a red zone leaves the face showing
    over part of the ring's radii, a cover does not): the ticks leave the end in doubt; the
    numerals seen state the scale; without them, abstain."""
    d = Drawn(value=4.0, sweep=250.0, turn=20.0)
    r = read_dial(_end_covered(d, colour), DialSpec(d.lo, d.hi, "bar"))
    assert _within(r.value, d) and r.evidence.get("arc_from_numerals") == 1.0, (r.value, r.reason)
    value, reason = _read(d, _without_numerals(d, _end_covered(d, colour)))
    assert value is None, (value, reason)


def test_numerals_that_contradict_the_stated_range_are_no_scale() -> None:
    """The ticks' ends in doubt and the numerals drawn for 0-10 while the face file says 0-16:
    no scale from them, abstain (never the stated range stretched over the labels)."""
    d = Drawn(value=4.0, sweep=250.0, turn=20.0)
    r = read_dial(_end_covered(d, (200, 160, 130)), DialSpec(0.0, 16.0, "bar"))
    assert r.value is None, (r.value, r.reason)


@pytest.mark.parametrize(("value", "width"), [(6.5, 26), (3.0, 20)])
def test_a_bar_over_a_red_needle_is_no_reading(value: float, width: int) -> None:
    """A grey rod from past the rim to the hub lies along the needle: the rod looks like a neutral
    pointer, the red needle's stub by the hub says it is not."""
    d = Drawn(value=value, needle=(200, 30, 30))
    img = draw(d)
    a = angle(d, d.value)
    cv2.line(img, _pt(d, a, 0.14), _pt(d, a, 2.2), (130, 130, 120), width)
    got, reason = _read(d, img)
    assert got is None, (got, reason)


def test_a_lone_red_pointer_without_a_hub_is_still_no_reading() -> None:
    """A red needle on its hub is read; the same red line without a hub (a drag pointer whose
    needle is gone) is not."""
    d = Drawn(value=5.0, drag=8.0, main_needle=False)
    value, reason = _read(d)
    assert value is None and "pointer" in reason, (value, reason)


@pytest.mark.parametrize(
    "d",
    [
        Drawn(value=6.3, plate=True, sweep=250.0, turn=20.0),
        Drawn(value=3.7, plate=True, needle=(240, 200, 40), **DARK),  # type: ignore[arg-type]
        Drawn(value=2.2, plate=True, sweep=180.0, majors=5, minors=4),
        Drawn(value=7.7, plate=True, sweep=300.0, background=(40, 90, 60), centre=(300, 240)),
    ],
    ids=["plate-250-turned", "plate-light-on-dark", "plate-180", "plate-300"],
)
def test_a_dial_printed_on_a_plate_is_read_from_its_ticks(d: Drawn) -> None:
    """No circle of the dial's own (a square plate, no rim): the pivot is where the ticks' lines
    meet, the dial the circle of the ticks."""
    value, reason = _read(d)
    assert _within(value, d), (value, reason, d.value)


def _turned_away(img: np.ndarray, narrow: float) -> np.ndarray:
    """The picture of a panel turned about its vertical axis: its left and right edges foreshortened
    (``narrow`` of the width), the far edge shorter (a perspective, not an affine view)."""
    h, w = img.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[w * narrow / 2, 0], [w - w * narrow / 2, 0.08 * h], [w - w * narrow / 2, 0.92 * h],
                      [w * narrow / 2, h]])  # fmt: skip
    return cv2.warpPerspective(img, cv2.getPerspectiveTransform(src, dst), (w, h), borderMode=cv2.BORDER_REPLICATE)


@pytest.mark.parametrize("narrow", [0.3, 0.45])
@pytest.mark.parametrize(
    "d",
    [
        Drawn(value=3.3, plate=True),
        Drawn(value=6.8, plate=True),
        Drawn(value=8.9, plate=True, sweep=180.0, majors=5, minors=4),
    ],  # fmt: skip
    ids=["270-low", "270-high", "180-high"],
)
def test_a_plate_seen_at_an_angle_is_read_about_the_ellipse_of_its_ticks(d: Drawn, narrow: float) -> None:
    """A dial printed on a plate, the panel turned away: its ticks' circle is an ellipse in the
    picture, the perspective undone from it (read as a circle it abstained or read 5-10 % off)."""
    value, reason = _read(d, _turned_away(draw(d), narrow))
    assert _within(value, d), (value, reason, d.value)


@pytest.mark.parametrize(
    ("d", "narrow"),
    [
        (Drawn(value=4.4, plate=True, sweep=240.0), 0.25),
        (Drawn(value=1.7, plate=True, sweep=250.0, turn=20.0), 0.25),
        (Drawn(value=8.9, plate=True, sweep=180.0, majors=5, minors=4), 0.15),
        (Drawn(value=8.9, plate=True, sweep=180.0, majors=5, minors=4), 0.2),
    ],
    ids=["240", "250-turned", "180-a-little", "180-more"],
)
def test_a_plate_turned_a_little_is_read_about_the_nearly_round_ellipse_of_its_ticks(d: Drawn, narrow: float) -> None:
    """The panel turned a little: its ticks' ellipse is nearly round (kept a circle on the first
    look), which bends their gaps so that the arc's ends were in doubt, or (a 180 deg scale) moves
    the circle through its ticks off the pivot so that the needle's run fell short of them: it
    abstained; the second look reads about that ellipse."""
    value, reason = _read(d, _turned_away(draw(d), narrow))
    assert _within(value, d), (value, reason, d.value)


@pytest.mark.parametrize(
    "d",
    [Drawn(value=5.0, plate=True, main_needle=False), Drawn(value=5.0, plate=True, drag=8.0, main_needle=False)],
    ids=["no-needle", "drag-pointer-only"],
)
def test_a_plate_without_its_needle_is_no_reading(d: Drawn) -> None:
    value, reason = _read(d)
    assert value is None, (value, reason)


def test_a_plate_cut_by_the_picture_is_no_reading() -> None:
    d = Drawn(value=5.0, plate=True, sweep=250.0, turn=20.0, centre=(330, 100))
    value, reason = _read(d)
    assert value is None, (value, reason)


@pytest.mark.parametrize(
    "d",
    [
        Drawn(value=4.4, needle=(200, 30, 30), pivot=(0.0, 0.12), cap=(180, 150, 90)),
        Drawn(value=8.2, needle=(200, 30, 30), pivot=(0.0, 0.1), cap=(120, 120, 120), **DARK),  # type: ignore[arg-type]
    ],
    ids=["red-on-brass-hub", "red-on-grey-hub-dark"],
)
def test_a_needle_on_a_hub_off_the_scales_centre_is_read_where_its_tip_points(d: Drawn) -> None:
    """A needle raised above the face, seen at an angle: its hub off the scale's centre, its tip
    over the value."""
    value, reason = _read(d)
    assert _within(value, d), (value, reason, d.value)


@pytest.mark.parametrize(
    "drawn",
    [
        Drawn(value=3.0, drag=8.0, drag_len=0.9, tip=0.15),
        Drawn(value=3.0, drag=8.0, drag_len=0.9, tip=0.15, cap=(60, 60, 60), cap_r=0.1),
        Drawn(value=3.0, drag=8.0, drag_len=0.9, main_needle=False),
    ],
    ids=["broken-needle", "broken-needle-dark-cap", "no-needle"],
)
def test_a_gauge_stated_to_have_a_drag_pointer_never_reads_it(drawn: Drawn) -> None:
    """The needle broken or gone, its red drag pointer whole: with the drag pointer stated (what a
    technician sees on the gauge) the reader abstains; unstated, a broken needle's drag pointer on
    its hub is read as a red needle (the known limit the statement is for)."""
    stated = read_dial(draw(drawn), DialSpec(0.0, 10.0, "bar", drag_pointer=True))
    assert stated.value is None and stated.reason == "only the drag pointer seen, not the needle"
    if drawn.main_needle:
        unstated = read_dial(draw(drawn), DialSpec(0.0, 10.0, "bar"))
        assert unstated.value is not None and abs(unstated.value - 8.0) < 0.2


@pytest.mark.parametrize(
    "drawn",
    [Drawn(value=3.0, drag=8.0, drag_len=0.9), Drawn(value=6.5, drag=9.0, dial=(30, 30, 30), ink=(230, 230, 230),
                                                    needle=(220, 220, 220))],
    ids=["dark-needle", "light-on-dark"],
)  # fmt: skip
def test_a_stated_drag_pointer_beside_its_needle_reads_the_needle(drawn: Drawn) -> None:
    got = read_dial(draw(drawn), DialSpec(0.0, 10.0, "bar", drag_pointer=True))
    assert got.value is not None and abs(got.value - drawn.value) <= 0.2, got.reason


HALF_SCALE = {"lo": 0.0, "hi": 160.0, "sweep": 180.0, "majors": 8, "minors": 4, "numerals_at": 0.66}
# a 180 deg scale whose numerals sit close inside its ticks: the ring of their strokes is as "ticky"
# as the short scale's ticks


@pytest.mark.parametrize(
    "d",
    [
        Drawn(value=37.0, **HALF_SCALE),  # type: ignore[arg-type]
        Drawn(value=121.0, **HALF_SCALE),  # type: ignore[arg-type]
        Drawn(value=121.0, rim=False, **HALF_SCALE),  # type: ignore[arg-type]
        Drawn(value=83.0, dial=(20, 20, 25), ink=(235, 235, 235), needle=(235, 235, 235), **HALF_SCALE),  # type: ignore[arg-type]
    ],
    ids=["low", "high", "no-rim", "light-on-dark"],
)
def test_a_180_scale_with_numerals_close_inside_its_ticks_is_read(d: Drawn) -> None:
    """The numerals' ring read first gives no scale: the next ring of marks, the ticks, is read."""
    value, reason = _read(d)
    assert _within(value, d), (value, reason, d.value)


@pytest.mark.parametrize(("value", "over"), [(37.0, 130.0), (121.0, 30.0), (83.0, 50.0)])
def test_a_180_scale_with_numerals_inside_read_past_a_cover_on_its_ticks(value: float, over: float) -> None:
    """An object over part of the ticks away from the needle, and a shadow over the lower half:
    the ticks' ring is still read (most of it seen)."""
    d = Drawn(value=value, **HALF_SCALE)  # type: ignore[arg-type]
    img = draw(d)
    cv2.circle(img, _pt(d, angle(d, over), 0.85), int(0.16 * d.radius), (95, 110, 70), -1)
    img[d.centre[1] + 20 :] = (img[d.centre[1] + 20 :] * 0.6).astype(np.uint8)
    value_read, reason = _read(d, img)
    assert _within(value_read, d), (value_read, reason, d.value)


@pytest.mark.parametrize("d", [Drawn(value=37.0, tip=0.45, **HALF_SCALE), Drawn(value=121.0, tip=0.5, **HALF_SCALE)])  # type: ignore[arg-type]
def test_a_needle_short_of_the_ticks_beyond_the_numerals_is_not_read(d: Drawn) -> None:
    """A needle that reaches the numerals' ring but not the ticks beyond it: abstain."""
    value, reason = _read(d)
    assert value is None, (value, reason)


@pytest.mark.parametrize("value", [6.3, 3.0])
def test_a_needle_whose_tip_lies_under_a_patch_over_the_ring_is_no_reading(value: float) -> None:
    """A grey patch (a shattered spot, a sticker) over the ring where the needle points: the needle
    runs into it short of the ticks, its tip unseen: abstain."""
    d = Drawn(value=value)
    img = draw(d)
    cv2.circle(img, _pt(d, angle(d, value), 0.85), int(0.2 * d.radius), (150, 150, 150), -1)
    got, reason = _read(d, img)
    assert got is None, (got, reason)


@pytest.mark.parametrize(
    "d",
    [
        Drawn(value=3.2, drag=10.0, drag_len=0.9, drag_width=5, majors=5),
        Drawn(value=6.6, drag=0.0, drag_len=0.9, drag_width=5, majors=5),
    ],
    ids=["at-the-high-end", "at-the-low-end"],
)
def test_an_end_tick_under_a_drag_pointer_still_ends_the_scale(d: Drawn) -> None:
    """A drag pointer left at an end of the scale hides the end tick: the ring under it counts as
    covered, and the standard sweep the ticks seen fall one pitch short of is read."""
    r = read_dial(draw(d), DialSpec(d.lo, d.hi, "bar", drag_pointer=True))
    assert _within(r.value, d), (r.value, r.reason)


@pytest.mark.parametrize("drag", [0.0, 10.0], ids=["at-the-low-end", "at-the-high-end"])
def test_an_end_tick_under_a_drag_pointer_ends_a_turned_scale_counted_in_ticks(drag: float) -> None:
    """A scale of no standard sweep, turned on its dial, a drag pointer left over one end tick:
    the end seen is a major, the ticks seen fall one tick short of a whole number of majors and
    that tick's place lies under the pointer, so the scale ends there (counted in ticks). The
    same end tick lost with nothing over it is no end (abstain)."""
    d = Drawn(value=6.6 if drag == 0.0 else 3.2, drag=drag, drag_len=0.9, drag_width=5, majors=5, sweep=250.0,
              turn=20.0)  # fmt: skip
    r = read_dial(draw(d), DialSpec(d.lo, d.hi, "bar", drag_pointer=True))
    assert _within(r.value, d), (r.value, r.reason)
    bare = Drawn(value=4.0, majors=5, sweep=250.0, turn=20.0)
    img = draw(bare)
    for t in np.linspace(angle(bare, drag) - 1.5, angle(bare, drag) + 1.5, 10):
        cv2.line(img, _pt(bare, float(t), 0.75), _pt(bare, float(t), 0.99), bare.dial, 4)
    value, reason = _read(bare, img)
    assert value is None, (value, reason)


BLUE = (25, 35, 130)  # a navy needle: coloured, of a hue far from red's


@pytest.mark.parametrize("d", [Drawn(value=3.0, drag=8.0, drag_len=0.9, needle=BLUE),
                               Drawn(value=7.4, drag=4.0, drag_len=0.9, needle=BLUE, blade=7.0)])  # fmt: skip
def test_a_blue_needle_beside_a_stated_red_drag_pointer_is_read(d: Drawn) -> None:
    """The stated drag pointer seen, red: a navy needle (coloured, but of a hue no red takes) is
    the needle, not a second drag pointer."""
    got = read_dial(draw(d), DialSpec(d.lo, d.hi, "bar", drag_pointer=True))
    assert _within(got.value, d), (got.value, got.reason)


def test_a_blue_pointer_alone_on_a_gauge_stated_to_have_a_drag_pointer_is_no_reading() -> None:
    """No red pointer seen: the one coloured pointer may be the stated drag or set pointer."""
    d = Drawn(value=3.0, needle=BLUE)
    got = read_dial(draw(d), DialSpec(d.lo, d.hi, "bar", drag_pointer=True))
    assert got.value is None, (got.value, got.reason)


def test_a_near_black_needle_beside_a_stated_drag_pointer_is_no_faded_red() -> None:
    """A needle a shade warmer than black (20, 18, 18): its hue is noise's, not a washed-out red's;
    beside the red drag pointer it is the needle."""
    d = Drawn(value=3.0, drag=8.0, drag_len=0.9, needle=(20, 18, 18))
    got = read_dial(draw(d), DialSpec(d.lo, d.hi, "bar", drag_pointer=True))
    assert _within(got.value, d), (got.value, got.reason)


def _fogged(img: np.ndarray, keep: float) -> np.ndarray:
    """The picture behind fogged glass: ``keep`` of it, the rest a light grey haze."""
    return np.clip(keep * img.astype(np.float64) + (1.0 - keep) * 200.0, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("keep", [0.5, 0.3])
def test_a_stated_drag_pointer_washed_out_by_fog_is_told_from_the_needle(keep: float) -> None:
    """Fog washes the drag pointer's red out to a faint pink of red's hue: the grey needle beside
    it is read; with the needle gone, the faded drag pointer alone is no reading."""
    d = Drawn(value=3.0, drag=8.0, drag_len=0.9)
    got = read_dial(_fogged(draw(d), keep), DialSpec(d.lo, d.hi, "bar", drag_pointer=True))
    assert _within(got.value, d), (got.value, got.reason)
    alone = Drawn(value=3.0, drag=8.0, drag_len=0.9, main_needle=False)
    got = read_dial(_fogged(draw(alone), keep), DialSpec(d.lo, d.hi, "bar", drag_pointer=True))
    assert got.value is None, (got.value, got.reason)


@pytest.mark.parametrize("at", [290.0, 250.0])
def test_a_lone_mark_in_the_scales_gap_is_no_end_of_it(at: float) -> None:
    """A short dark stroke on the ring where a 180 deg scale has none (a sticker's edge, a label's
    stroke) splits the scale's gap: a mark with no other within three pitches is left out."""
    d = Drawn(value=37.0, **HALF_SCALE)  # type: ignore[arg-type]
    img = draw(d)
    cv2.line(img, _pt(d, at, 0.8), _pt(d, at, 0.93), (25, 25, 25), 3)
    value, reason = _read(d, img)
    assert _within(value, d), (value, reason)


def test_a_dial_without_a_rim_says_why_it_is_not_read() -> None:
    """No rim found, the dial is found from its ticks: the reason is that look's (here no needle),
    not "no dial found"."""
    d = Drawn(plate=True, rim=False, main_needle=False)
    r = read_dial(draw(d), DialSpec(d.lo, d.hi, "bar"))
    assert r.value is None and r.reason == "no pointer found"
    assert read_dial(np.full((480, 640, 3), 90, np.uint8), DialSpec(0.0, 10.0, "bar")).reason == "no dial found"


@pytest.mark.parametrize("minors", [5, 10])
def test_dense_ticks_blurred_together_are_read_against_the_faces_wider_median(minors: int) -> None:
    """Light ticks on a dark 180 deg face, blurred: over the ink's window the median is the ticks'
    own colour and only their edges are ink; against the face's wider median they are ticks again."""
    d = Drawn(lo=0.0, hi=600.0, value=470.0, sweep=180.0, majors=6, minors=minors, numerals_at=0.6,
              dial=(25, 22, 22), ink=(230, 230, 225), needle=(230, 230, 225))  # fmt: skip
    value, reason = _read(d, cv2.GaussianBlur(draw(d), (0, 0), 2.0))
    assert _within(value, d), (value, reason)


def test_a_needles_edge_between_the_ticks_it_hides_is_no_tick() -> None:
    """Two ticks hidden under a needle and its edge seen as a mark between them, off the lattice
    from both neighbours (1.4 pitches each side): without it the ticks either side are three pitches
    apart, and the scale is read between the right ticks."""
    pitch = 12.0
    pos = sorted([float(i) for i in range(21) if i not in (17, 18)] + [17.42])
    pos = [p - (0.15 if p >= 19 else 0.0) for p in pos]  # the view bends the pitch a little there
    ang = np.array([210.0 - pitch * p for p in pos]) % 360.0
    got = arc(ang, np.ones(len(ang)), DialSpec(0.0, 20.0, "bar"), np.zeros(N_ANG, bool), np.full(len(ang), 10.0))
    assert isinstance(got, TickScale), got
    for v in (17.0, 17.6, 18.0):
        assert abs(20.0 * got.frac(210.0 - pitch * v, True) - v) <= 0.02 * 20.0, v


def test_the_top_quarter_of_a_larger_scale_is_not_read_as_a_whole_90_deg_scale() -> None:
    """The marks of a 0-160 dial (270 deg, counter-clockwise) read at a small size, blurred: its top
    quarter shows every tick 15 deg apart, majors longer, and beyond it only a tick every 30 deg,
    short, the others lost. Dropped as stray marks beyond the scale's ends, those left the top
    quarter alone, centred at 12 o'clock: it was read as a whole 90 deg scale (21 % of the span
    off). No standard sweep is 90 deg: the ends stay in doubt."""
    ang = np.array([21.0, 51.5, 66.0, 80.5, 94.5, 109.0, 138.0, 168.5, 199.5, 350.0])
    lengths = np.array([17.0, 17.0, 22.0, 17.0, 22.0, 17.0, 16.0, 15.0, 16.0, 17.0])
    got = arc(ang, lengths, DialSpec(0.0, 160.0, "degC", clockwise=False), np.zeros(N_ANG, bool), lengths)
    assert got == "arc ends not clear", got


def test_a_90_deg_scale_is_read_from_its_numerals_or_its_stated_arc_not_its_ticks_alone() -> None:
    d = Drawn(sweep=90.0, value=7.0, majors=5)  # midway between numerals: the paint over them cuts no needle
    value, reason = _read(d)
    assert _within(value, d), (value, reason)  # the numerals state it
    bare = _without_numerals(d, draw(d))
    assert _read(d, bare)[0] is None
    value, reason = _read(d, bare, arc_start_deg=angle(d, d.lo), arc_end_deg=angle(d, d.hi))
    assert _within(value, d), (value, reason)


@pytest.mark.parametrize("tip", [0.44, 0.5])
@pytest.mark.parametrize("value", [4.0, 6.0])
def test_a_broken_needle_short_of_a_numeral_in_its_path_is_not_read(value: float, tip: float) -> None:
    """A needle broken off short of the numerals, one of them in its line (the value a labelled
    one): bare face lies between its end and the numeral, so the numeral is no tip of it."""
    d = Drawn(value=value, tip=tip, numerals_at=0.6)
    value_read, reason = _read(d)
    assert value_read is None and reason == "pointer tip not visible", (value_read, reason)


SKIN, FINGER_GAP = (205, 160, 130), (150, 105, 85)  # a hand's skin, and the shade between its fingers


def _hand(d: Drawn, img: np.ndarray, a_from: float, a_to: float, fingers: int) -> np.ndarray:
    """A hand's fingers over the ring between the angles: skin, with the darker gaps between the
    fingers across it (radial strips: marks where the ticks are hidden)."""
    arc_pts = np.linspace(a_from, a_to, 20)
    poly = [_pt(d, float(a), 0.65) for a in arc_pts] + [_pt(d, float(a), 1.15) for a in arc_pts[::-1]]
    cv2.fillPoly(img, [np.array(poly, np.int32)], SKIN)
    for a in np.linspace(a_from, a_to, fingers + 1)[1:-1]:
        cv2.line(img, _pt(d, float(a), 0.65), _pt(d, float(a), 1.15), FINGER_GAP, 3)
    return img


def _hand_over_end(d: Drawn, covered: tuple[float, float], past: float, fingers: int) -> np.ndarray:
    """The dial, numerals painted over (the ticks alone state the scale), a hand from the value
    ``covered[0]`` over the end ``covered[1]`` and ``past`` deg beyond it into the scale's gap."""
    beyond = angle(d, covered[1]) + (past if covered[1] == d.lo else -past)
    return _hand(d, _without_numerals(d, draw(d)), angle(d, covered[0]), beyond, fingers)


@pytest.mark.parametrize(
    ("value", "covered", "fingers"),
    [(3.5, (8.8, 10.0), 4), (2.4, (8.5, 10.0), 3), (7.5, (8.5, 10.0), 5), (6.5, (1.2, 0.0), 4)],
)
def test_an_end_under_a_hands_fingers_is_read_from_the_end_seen(
    value: float, covered: tuple[float, float], fingers: int
) -> None:
    """A hand over an end of a standard scale, the gaps between its fingers seen as a few marks
    over the ticks it hides (far fewer than the scale's pitch puts there): that stretch is a cover
    all the same, and the end seen with the standard sweep gives the arc."""
    d = Drawn(value=value)
    r = read_dial(_hand_over_end(d, covered, 25.0, fingers), DialSpec(d.lo, d.hi, "bar"))
    assert _within(r.value, d) and r.evidence.get("sparse_cover") == 1.0, (r.value, r.reason)


@pytest.mark.parametrize(("past", "fingers"), [(25.0, 1), (35.0, 1), (25.0, 3), (35.0, 4)])
def test_a_cover_past_the_end_of_a_scale_of_no_standard_sweep_is_no_reading(past: float, fingers: int) -> None:
    """A 250 deg scale turned 20 deg, a hand (plain, or its fingers seen) over its end and well past
    it: a 300 deg sweep centred 5 deg off 12 o'clock would end where the face is seen bare beyond
    the hand, so it is no reading of the ticks; nothing else establishes the arc: abstain."""
    d = Drawn(value=2.4, sweep=250.0, turn=20.0)
    got, reason = _read(d, _hand_over_end(d, (8.5, 10.0), past, fingers))
    assert got is None, (got, reason)


@pytest.mark.parametrize(
    ("d", "end", "pitches"),
    [
        (Drawn(value=3.5), 10.0, 2.0),
        (Drawn(value=3.5), 0.0, 1.6),
        (Drawn(lo=0.0, hi=600.0, value=180.0, sweep=300.0, majors=6), 600.0, 2.5),
        (Drawn(lo=0.0, hi=600.0, value=180.0, sweep=300.0, majors=6), 0.0, 2.0),
    ],
    ids=["270-hi-2", "270-lo-1.6", "300-hi-2.5", "300-lo-2"],
)
def test_a_short_mark_just_past_an_end_of_the_scale_is_no_end_of_it(d: Drawn, end: float, pitches: float) -> None:
    """A stroke no longer than a minor tick in the scale's gap, a tick or more beyond its end (an
    object's or a thumb's edge): too near to be a lone mark, it is no end of the scale (a scale ends
    on a major tick); without it the ticks are a standard sweep seen whole (numerals painted over:
    the ticks alone)."""
    pitch = d.sweep / (d.majors * d.minors)
    at = angle(d, end) + (-pitches * pitch if end == d.hi else pitches * pitch)
    img = _without_numerals(d, draw(d))
    cv2.line(img, _pt(d, at, 0.86), _pt(d, at, 0.95), d.ink, 2)
    value, reason = _read(d, img)
    assert _within(value, d), (value, reason)
