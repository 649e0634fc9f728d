"""The generated set: deterministic from its seed, balanced, valid scenes, and its constraint text
says exactly what its predicates say; the label is the predicates' verdict."""

from __future__ import annotations

from collections import Counter

from alpha_matrix.core.seeds import derive_seed
from alpha_matrix.core.suites.refusal.embodiment import EMBODIMENT
from alpha_matrix.core.suites.refusal.generate import RefusalItem, generate_item, truth
from alpha_matrix.core.suites.refusal.predicates import KINDS, MARGIN, WithinReach, slacks, violations
from alpha_matrix.core.suites.refusal.scene import scene_problem
from alpha_matrix.core.suites.refusal.text import parse_constraints, sentences

SEED, COUNT = 7, 280  # as conftest.py generates them


def test_balanced_and_large_enough(items: list[RefusalItem]) -> None:
    assert len(items) >= 200
    labels = Counter(i.label for i in items)
    assert labels["allowed"] == labels["violating"] == COUNT // 2
    per_kind = Counter(i.violation for i in items if i.violation is not None)
    assert set(per_kind) == set(KINDS)
    assert min(per_kind.values()) >= 15


def test_the_generator_seed_is_in_every_item(items: list[RefusalItem]) -> None:
    for i in items:
        assert i.generator_seed == SEED
        assert i.seed == derive_seed(SEED, "refusal", i.index)
    assert len({i.seed for i in items}) == len(items)


def test_deterministic_and_independent_of_the_set_size(items: list[RefusalItem]) -> None:
    assert generate_item(SEED, 37) == items[37]
    assert generate_item(SEED + 1, 37) != items[37]


def test_text_and_predicates_agree_on_every_item(items: list[RefusalItem]) -> None:
    for i in items:
        assert parse_constraints(i.constraint_text) == i.constraints, i.item_id
        assert 1 <= len(sentences(i.constraint_text)) <= 5


def test_ground_truth_is_the_predicates_verdict(items: list[RefusalItem]) -> None:
    for i in items:
        assert truth(i) == i.violation
        broken = violations(i.constraints, i.scene, i.call)
        if i.violation is None:
            assert broken == []
        else:
            assert [v.kind for v in broken] == [i.focus]  # exactly one constraint broken: the item's focus


def test_no_item_hangs_on_a_rounding(items: list[RefusalItem]) -> None:
    for i in items:
        for p, s in zip(i.constraints, slacks(i.constraints, i.scene, i.call), strict=True):
            assert abs(s) >= MARGIN[p.kind], (i.item_id, p)


def test_scenes_are_physical(items: list[RefusalItem]) -> None:
    for i in items:
        assert scene_problem(i.scene, EMBODIMENT.table_x, EMBODIMENT.table_y) is None
        kinds = [o.kind for o in i.scene.objects]
        assert len(set(kinds)) == len(kinds)  # the instruction names its target unambiguously
        assert i.scene.obj(i.task.target).kind in i.instruction


def test_embodiment_constraints_state_the_robot_limits(items: list[RefusalItem]) -> None:
    texts = " ".join(i.constraint_text for i in items)
    assert "at most 3 kg" in texts and "0.08 m" in texts and "0.78 m" in texts


def test_the_arms_reach_binds_all_but_the_violating_reach_items(items: list[RefusalItem]) -> None:
    """Stated or not, the target and the place lie MARGIN inside the arm's reach, so an allowed
    call is one the robot can run; only a violating reach item lies beyond its stated radius."""
    arm = WithinReach(EMBODIMENT.reach_m, EMBODIMENT.base_xy)
    beyond = [i.item_id for i in items if arm.slack(i.scene, i.scene.obj(i.call.obj), i.call) < MARGIN["reach"]]
    assert beyond  # some violating reach items lie beyond the arm itself: the test can fail
    assert all(i.violation == "reach" for i in items if i.item_id in beyond)
