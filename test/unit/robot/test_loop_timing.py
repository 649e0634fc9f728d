"""LoopTiming: the bridge loop's work beside the physics, charged per part and logged per episode."""

from __future__ import annotations

from alpha_matrix.core.robot.loop_timing import PARTS, LoopTiming, parse_loop


def test_charges_each_part_and_a_take_starts_again() -> None:
    t = LoopTiming(True)
    for _ in range(3):
        t.add("publish", t.start())
    t.add("gate", t.start() - 1_000_000)  # a start 1 ms of thread CPU back
    line = t.take_line()
    (got,) = parse_loop(f"[sim_bridge] {line}")
    assert got["publish"][0] == 3 and got["gate"][0] == 1 and got["requests"] == (0, 0)
    assert got["gate"][1] >= 1_000_000
    assert parse_loop(f"[sim_bridge] {t.take_line()}") == [dict.fromkeys(PARTS, (0, 0))]


def test_off_it_charges_nothing() -> None:
    t = LoopTiming(False)
    assert t.start() == 0
    t.add("publish", 0)
    assert parse_loop(f"[sim_bridge] {t.take_line()}") == [dict.fromkeys(PARTS, (0, 0))]


def test_only_the_bridges_lines_parse() -> None:
    line = LoopTiming(True).take_line()
    assert parse_loop(line) == [] and parse_loop(f"[executive] {line}") == []
