import json
import math

import numpy as np
import pytest

from alpha_matrix.core import seeds
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.matrix.fault_log import (
    FaultLog,
    FaultOrderError,
    Injection,
    canonical_faults,
    checked_fault_order,
    fault_order_key,
)
from alpha_matrix.core.matrix.faults import (
    FAULTS,
    SLIP_FORCE,
    DelayBuffer,
    SlipLatch,
    corrupt_plan_text,
    corruption_probability,
    corruption_record,
    fault_parameter,
    fault_stream,
    grip_refused,
    ik_offset,
    offset_record,
    position_error,
    radial_offset,
    sensor_delay,
    slip_probability,
    validate_intensity,
)
from alpha_matrix.core.planning.guards import parse_plan_text
from alpha_matrix.core.planning.oracle import oracle_plan
from alpha_matrix.core.planning.plan import PlanError, plan_to_text
from alpha_matrix.core.records import FaultRecord
from alpha_matrix.core.sim.world_config import WorldConfig

LEVELS = (0.0, 0.33, 0.66, 1.0)
PLAN_TEXT = plan_to_text(oracle_plan("red", (0.5, -0.1, 0.651), (0.6, 0.35, 0.65)))


class CountingRng:
    """Wraps a Generator and counts every draw method call."""

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self.calls = 0

    def __getattr__(self, name):
        attr = getattr(self._rng, name)
        if not callable(attr):
            return attr

        def wrapped(*args, **kwargs):
            self.calls += 1
            return attr(*args, **kwargs)

        return wrapped


# Formulas -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fn", "base", "slope"),
    [
        (sensor_delay, 0.10, 1.40),
        (slip_probability, 0.10, 0.85),
        (ik_offset, 0.03, 0.27),
        (corruption_probability, 0.20, 0.80),
    ],
)
@pytest.mark.parametrize("level", LEVELS)
def test_formula(fn, base, slope, level):
    assert fn(level) == pytest.approx(base + slope * level, abs=1e-12)


def test_formula_known_values():
    assert sensor_delay(0.33) == pytest.approx(0.562)
    assert sensor_delay(1.0) == pytest.approx(1.5)
    assert slip_probability(0.66) == pytest.approx(0.661)
    assert ik_offset(0.66) == pytest.approx(0.2082)
    assert corruption_probability(0.33) == pytest.approx(0.464)
    assert corruption_probability(1.0) == pytest.approx(1.0)
    assert fault_parameter("F3", 1.0) == pytest.approx(0.30)


@pytest.mark.parametrize("fn", [sensor_delay, slip_probability, ik_offset, corruption_probability])
@pytest.mark.parametrize("bad", [-0.01, 1.01, float("nan"), float("inf"), "x", None, True])
def test_intensity_out_of_range_is_one_line_error(fn, bad):
    with pytest.raises(ValueError) as err:
        fn(bad)
    assert isinstance(err.value, AlphaMatrixError)
    assert "\n" not in str(err.value) and "intensity" in str(err.value)


def test_validate_intensity_accepts_bounds_and_numeric_text():
    assert validate_intensity(0) == 0.0
    assert validate_intensity(1) == 1.0
    assert validate_intensity("0.66") == 0.66


def test_unknown_fault_name():
    with pytest.raises(ValueError, match="unknown fault 'F9'"):
        fault_parameter("F9", 0.5)
    with pytest.raises(ValueError, match="unknown fault"):
        fault_stream(42, 0, "f1")


# Streams --------------------------------------------------------------------------------------


def test_stream_is_the_sha256_stream_of_seed_episode_fault():
    a = fault_stream(42, 7, "F2").random(4)
    b = seeds.rng(42, 7, "F2").random(4)
    assert np.array_equal(a, b)


def test_streams_are_independent_and_reproducible():
    alone = fault_stream(42, 3, "F1").random(8)
    f1, f2 = fault_stream(42, 3, "F1"), fault_stream(42, 3, "F2")
    mixed = []
    for _ in range(8):
        f2.random(3)  # F2 drawing in between never shifts F1
        mixed.append(f1.random())
    assert np.array_equal(alone, mixed)
    assert np.array_equal(alone, fault_stream(42, 3, "F1").random(8))
    assert not np.array_equal(alone, fault_stream(42, 4, "F1").random(8))
    assert not np.array_equal(alone, fault_stream(42, 3, "F2").random(8))
    assert not np.array_equal(alone, fault_stream(43, 3, "F1").random(8))
    assert len({fault_stream(42, 0, f).random() for f in FAULTS}) == len(FAULTS)


# F1 -------------------------------------------------------------------------------------------

DT = 1.0 / 240.0


def _filled(capacity: float, steps: int) -> DelayBuffer:
    buf = DelayBuffer(capacity)
    for k in range(steps + 1):
        buf.push(k * DT, k)
    return buf


def test_delay_buffer_exact_lag():
    buf = _filled(1.5, 1000)
    t_now = 1000 * DT
    for lag_steps in (0, 1, 24, 134, 360):
        obs, lag = buf.delayed(t_now, lag_steps * DT)
        assert obs == 1000 - lag_steps
        assert lag == pytest.approx(lag_steps * DT, abs=1e-12)
        assert not DelayBuffer.saturated(lag_steps * DT, lag)


def test_delay_buffer_lag_between_samples_rounds_to_the_older_snapshot():
    buf = _filled(1.5, 1000)
    obs, lag = buf.delayed(1000 * DT, 0.1 + 0.5 * DT)  # between 24 and 25 steps back
    assert obs == 1000 - 25
    assert lag >= 0.1 + 0.5 * DT


def test_delay_buffer_saturation_is_reported():
    buf = _filled(1.5, 48)  # 0.2 s of history
    obs, lag = buf.delayed(48 * DT, 0.562)
    assert obs == 0
    assert lag == pytest.approx(0.2)
    assert DelayBuffer.saturated(0.562, lag)
    rec = DelayBuffer.record(48, 0.562, lag, 0.03)
    assert isinstance(rec, Injection) and rec.fault == "F1" and rec.step == 48
    assert rec.requested == {"tau": 0.562}
    assert rec.delivered["saturated"] == 1.0 and rec.delivered["lag"] == pytest.approx(0.2)


def test_delay_buffer_keeps_only_capacity_plus_one_older():
    buf = _filled(0.5, 1000)
    assert buf.history_s >= 0.5 - 1e-9
    assert len(buf) == 121  # 0.5 s at 240 Hz, both ends
    _, lag = buf.delayed(1000 * DT, 1.5)  # more than the capacity: saturated at the capacity
    assert lag == pytest.approx(0.5)


def test_delay_buffer_bad_use():
    buf = DelayBuffer(1.0)
    with pytest.raises(ValueError, match="no observation"):
        buf.delayed(0.0, 0.1)
    buf.push(1.0, "a")
    with pytest.raises(ValueError, match="older"):
        buf.push(0.5, "b")
    with pytest.raises(ValueError, match="non-negative"):
        buf.delayed(1.0, -0.1)
    with pytest.raises(ValueError, match="capacity"):
        DelayBuffer(0.0)
    buf.push(1.0, "c")  # same time replaces
    assert buf.delayed(1.0, 0.0) == ("c", 0.0)


def test_position_error():
    err = position_error(
        {"red": (0.5, 0.0, 0.65), "blue": (0.4, 0.1, 0.65)}, {"red": (0.5, 0.03, 0.61), "blue": (0.4, 0.1, 0.65)}
    )
    assert err == {"blue": 0.0, "red": pytest.approx(0.05)}
    with pytest.raises(ValueError, match="different objects"):
        position_error({"red": (0, 0, 0)}, {"green": (0, 0, 0)})


# F2 -------------------------------------------------------------------------------------------


def test_slip_latch_draws_exactly_once_per_lift():
    rng = CountingRng(fault_stream(42, 0, "F2"))
    latch = SlipLatch(0.5, rng)
    first = latch.on_lift(400)
    for step in range(401, 520):
        assert latch.on_lift(step) is first
    assert rng.calls == 1 and latch.draws == 1
    assert latch.draw_step == 400
    latch.release()
    latch.on_lift(900)
    assert rng.calls == 2
    latch.reset(CountingRng(fault_stream(42, 1, "F2")))
    assert latch.draws == 0 and latch.slipped is None
    latch.on_lift(10)
    latch.on_lift(11)
    assert latch.draws == 1 and rng.calls == 2


def test_slip_latch_decision_matches_the_stream():
    for ep in range(20):
        u = fault_stream(42, ep, "F2").random()
        latch = SlipLatch(0.661, fault_stream(42, ep, "F2"))
        assert latch.on_lift(400) is (u < 0.661)
        assert latch.draw == u


def test_slip_latch_extremes_and_record():
    assert not SlipLatch(0.0, fault_stream(1, 0, "F2")).on_lift(0)
    latch = SlipLatch(1.0, fault_stream(1, 0, "F2"))
    assert latch.on_lift(300)
    rec = latch.record()
    assert rec.fault == "F2" and rec.step == 300
    assert rec.requested == {"p": 1.0}
    assert rec.delivered["slipped"] == 1.0 and rec.delivered["force"] == SLIP_FORCE
    assert SLIP_FORCE < 0.33
    with pytest.raises(RuntimeError):
        SlipLatch(0.5, fault_stream(1, 0, "F2")).record()
    with pytest.raises(ValueError):
        SlipLatch(1.5, fault_stream(1, 0, "F2"))


# F3 -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", [(0.5, -0.1, 0.646), (0.6, 0.35, 0.657), (0.1, 0.4, 0.8), (-0.3, -0.2, 0.7)])
@pytest.mark.parametrize("delta", [ik_offset(i) for i in LEVELS])
def test_radial_offset_geometry(target, delta):
    base = WorldConfig().panda_base
    out = radial_offset(target, base, delta)
    assert math.dist(out, target) == pytest.approx(delta)
    assert out[2] == target[2]  # horizontal
    r_in = math.hypot(target[0] - base[0], target[1] - base[1])
    r_out = math.hypot(out[0] - base[0], out[1] - base[1])
    assert r_out == pytest.approx(r_in + delta)  # outward, along the radial


def test_radial_offset_above_the_base_goes_plus_x():
    assert radial_offset((0.1, 0.0, 1.0), (0.1, 0.0, 0.625), 0.1) == pytest.approx((0.2, 0.0, 1.0))


def test_offset_record():
    target = (0.5, -0.1, 0.646)
    out = radial_offset(target, WorldConfig().panda_base, 0.12)
    rec = offset_record(120, target, out, 0.12)
    assert rec.requested == {"delta": 0.12}
    assert rec.delivered["offset"] == pytest.approx(0.12)


# F4 -------------------------------------------------------------------------------------------


def test_plan_text_is_valid_before_corruption():
    parse_plan_text(PLAN_TEXT)


def test_p0_never_corrupts():
    rng = fault_stream(42, 0, "F4")
    for _ in range(200):
        text, info = corrupt_plan_text(PLAN_TEXT, rng, 0.0)
        assert text == PLAN_TEXT and info["corrupted"] is False and info["kind"] == "none"


@pytest.mark.parametrize(
    "text",
    [
        PLAN_TEXT,
        json.dumps(json.loads(PLAN_TEXT), indent=2) + "\n\n",  # pretty, trailing whitespace
        '{"object": "red", "steps": [',  # already not JSON: truncate only
        "[]",  # JSON without required keys: truncate
    ],
)
def test_p1_always_corrupts_and_the_plan_is_rejected(text):
    rng = fault_stream(42, 0, "F4")
    kinds = set()
    for _ in range(300):
        out, info = corrupt_plan_text(text, rng, 1.0)
        assert info["corrupted"] is True and out != text
        kinds.add(info["kind"])
        with pytest.raises(PlanError):
            parse_plan_text(out)
    if text.lstrip().startswith("{") and text.rstrip().endswith("}"):
        assert kinds == {"delete_key", "truncate"}
    else:
        assert kinds == {"truncate"}


def test_delete_key_removes_one_required_key():
    rng = fault_stream(42, 1, "F4")
    details = set()
    for _ in range(400):
        out, info = corrupt_plan_text(PLAN_TEXT, rng, 1.0)
        if info["kind"] != "delete_key":
            assert info["detail"].startswith("cut at ")
            continue
        details.add(info["detail"])
        path = info["detail"].split(".")
        data = json.loads(out)
        if len(path) == 1:
            assert path[0] in ("object", "steps") and path[0] not in data
        else:
            assert path[0] == "steps" and path[2] in ("action", "target")
            assert path[2] not in data["steps"][int(path[1])]
    assert {"object", "steps", "steps.0.action", "steps.0.target", "steps.2.action"} <= details
    assert "steps.2.target" not in details  # GRIP has no target to delete


def test_corruption_is_deterministic_per_stream():
    a = [corrupt_plan_text(PLAN_TEXT, fault_stream(42, ep, "F4"), 0.728) for ep in range(30)]
    b = [corrupt_plan_text(PLAN_TEXT, fault_stream(42, ep, "F4"), 0.728) for ep in range(30)]
    assert a == b


@pytest.mark.parametrize("p", [corruption_probability(i) for i in (0.0, 0.33, 0.66)] + [0.05, 0.5])
def test_empirical_corruption_rate(p):
    rng = fault_stream(42, 0, "F4")
    n = 2000
    k = sum(corrupt_plan_text(PLAN_TEXT, rng, p)[1]["corrupted"] for _ in range(n))
    assert abs(k - n * p) <= 3 * math.sqrt(n * p * (1 - p))


def test_corruption_record_and_bad_p():
    _, info = corrupt_plan_text(PLAN_TEXT, fault_stream(42, 0, "F4"), 1.0)
    rec = corruption_record(info)
    assert rec.fault == "F4" and rec.step == 0
    assert rec.requested == {"p": 1.0}
    assert rec.delivered["corrupted"] == 1.0 and rec.delivered["kind"] == info["kind"]
    (out,) = canonical_faults([rec])
    assert FaultRecord.model_validate_json(out.model_dump_json()) == out and out.seq == 0
    with pytest.raises(ValueError):
        corrupt_plan_text(PLAN_TEXT, fault_stream(42, 0, "F4"), 1.2)


# Order of an episode's injections ----------------------------------------------------------------

F1_AT_420 = DelayBuffer.record(420, 0.562, 0.5, 0.001)
F3_A = offset_record(0, (0.5, -0.1, 0.646), (0.6, -0.1, 0.646), 0.12)
F3_B = offset_record(0, (0.6, 0.35, 0.657), (0.7, 0.35, 0.657), 0.12)


def _slip(p: float = 1.0) -> Injection:
    latch = SlipLatch(p, fault_stream(1, 0, "F2"))
    latch.on_lift(0)
    return latch.record()


def test_canonical_order_does_not_depend_on_arrival_order():
    """The CI flake: F2 (stamped 0) before or after F1 at step 420 depending on thread timing."""
    injections = [F1_AT_420, _slip(), F3_A, F3_B, F3_A]  # an identical pair ties on the whole key
    orders = [injections, injections[::-1], injections[2:] + injections[:2]]
    results = [canonical_faults(order) for order in orders]
    assert results[0] == results[1] == results[2]
    assert [f.seq for f in results[0]] == [0, 1, 2, 3, 4]
    assert [fault_order_key(f) for f in results[0]] == sorted(fault_order_key(f) for f in injections)
    assert [(f.step, f.fault) for f in results[0]][-1] == (420, "F1")


def test_order_key_is_step_then_fault_then_content():
    a = Injection("F3", 5, {"delta": 0.1}, {"offset": 0.2})
    assert fault_order_key(a) < fault_order_key(Injection("F1", 6, {}, {}))  # step first
    assert fault_order_key(Injection("F1", 5, {"z": 1.0}, {})) < fault_order_key(a)  # then the fault
    assert fault_order_key(a) < fault_order_key(Injection("F3", 5, {"delta": 0.1}, {"offset": 0.3}))
    # Dict insertion order is not content: keys are sorted.
    swapped = Injection("F3", 5, {"delta": 0.1}, {"dy": 1.0, "dx": 2.0})
    assert fault_order_key(swapped) == fault_order_key(Injection("F3", 5, {"delta": 0.1}, {"dx": 2.0, "dy": 1.0}))


def test_checked_order_sorts_and_refuses_a_bad_seq():
    records = canonical_faults([F1_AT_420, F3_A, F3_B])
    assert checked_fault_order(records[::-1]) == records
    assert checked_fault_order([]) == []
    with pytest.raises(FaultOrderError, match="canonical order"):
        checked_fault_order([r.model_copy(update={"seq": 2 - r.seq}) for r in records])
    with pytest.raises(FaultOrderError):
        checked_fault_order(records[1:])  # a gap: seq 1, 2
    assert isinstance(FaultOrderError("x"), AlphaMatrixError)


def test_fault_log_stamps_a_slip_with_its_command_end_in_either_order():
    for status_first in (False, True):
        log = FaultLog()
        log.add(F1_AT_420)
        if status_first:
            log.command_ended(7, 361)
        log.add_at_end_of(7, _slip())
        assert log.awaited == ([] if status_first else [7])
        if not status_first:
            with pytest.raises(FaultOrderError, match=r"robot command\(s\) \[7\]"):
                log.report()
            log.command_ended(7, 361)
        log.command_ended(8, 999)  # another command: no injection waits for it
        records = log.report()
        assert [(f.fault, f.step, f.seq) for f in records] == [("F2", 361, 0), ("F1", 420, 1)]


def test_grip_refused_is_marked_not_hidden():
    rec = grip_refused(_slip())
    assert rec.step == 0 and rec.delivered["force"] == "refused" and rec.delivered["slipped"] == 1.0
