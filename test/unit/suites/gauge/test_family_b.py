"""The second gauge family (core/suites/gauge/family_b.py): deterministic, balanced, every kind drawn."""

from __future__ import annotations

import numpy as np
import pytest

from alpha_matrix.core.suites.gauge.family_b import (
    READABLE_DEGRADATIONS,
    STYLES,
    UNREADABLE_DEGRADATIONS,
    FamilyBItem,
    build_family_b,
    make_item,
)


@pytest.fixture(scope="module")
def items() -> list[FamilyBItem]:
    return build_family_b(7, 80)


def test_same_seed_and_index_give_the_same_bytes(items: list[FamilyBItem]) -> None:
    for i in (0, 5, 22):
        again = make_item(7, i)
        assert again.image.tobytes() == items[i].image.tobytes()
        assert (again.value, again.readable, again.degradation) == (
            items[i].value,
            items[i].readable,
            items[i].degradation,
        )


def test_other_indices_and_seeds_differ(items: list[FamilyBItem]) -> None:
    assert items[0].image.tobytes() != items[2].image.tobytes()
    assert make_item(8, 0).image.tobytes() != items[0].image.tobytes()


def test_images_are_rgb_uint8_of_the_stated_size(items: list[FamilyBItem]) -> None:
    for it in items:
        assert it.image.dtype == np.uint8 and it.image.ndim == 3 and it.image.shape[2] == 3
        assert 240 <= it.image.shape[0] <= 400 and 240 <= it.image.shape[1] <= 400


def test_even_readable_odd_unreadable_over_40(items: list[FamilyBItem]) -> None:
    first = items[:40]
    assert sum(it.readable for it in first) == 20
    assert all(it.readable == (it.index % 2 == 0) for it in first)
    assert all((it.reason == "") == it.readable for it in first)


def test_values_lie_within_the_range(items: list[FamilyBItem]) -> None:
    for it in items:
        assert it.lo < it.hi
        assert it.lo <= it.value <= it.hi


def test_every_style_and_degradation_appears_in_80(items: list[FamilyBItem]) -> None:
    assert {it.style for it in items} == set(STYLES)
    assert {it.degradation for it in items} == set(READABLE_DEGRADATIONS) | set(UNREADABLE_DEGRADATIONS)
    assert {it.degradation for it in items if it.readable} == set(READABLE_DEGRADATIONS)
    assert {it.degradation for it in items if not it.readable} == set(UNREADABLE_DEGRADATIONS)
    assert {it.clockwise for it in items} == {True, False}
