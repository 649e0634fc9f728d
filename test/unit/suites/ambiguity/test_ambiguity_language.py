"""The instruction grammar: what the generator writes, the reference reads back; the rest is None."""

from __future__ import annotations

import pytest

from alpha_matrix.core.suites.ambiguity.language import (
    GoalRef,
    ObjRef,
    SortRef,
    goal_text,
    obj_text,
    parse_answer,
    parse_goal,
    parse_instruction,
    parse_object,
    sort_text,
)


@pytest.mark.parametrize(
    "ref",
    [
        ObjRef(colour="red", shape="cube"),
        ObjRef(colour="red", shape="cube", position="leftmost"),
        ObjRef(shape="ball"),
        ObjRef(colour="green", noun="object"),
        ObjRef(colour="blue", shape="cylinder", quantity=2),
        ObjRef(colour="blue", shape="cylinder", quantity="all"),
        ObjRef(colour="blue", shape="cylinder", quantity="vague"),
    ],
)
def test_objects_round_trip(ref: ObjRef) -> None:
    text = obj_text(ref if ref.quantity != "vague" else ObjRef(colour="blue", shape="cylinder", quantity="some"))
    assert parse_object(text) == ref


@pytest.mark.parametrize(
    "ref",
    [
        GoalRef("bin", colour="white"),
        GoalRef("slot", index=3),
        GoalRef("tray"),
        GoalRef("pads", colour="grey", relations=("behind",), phrase="behind"),
        GoalRef("pads", colour="grey", relations=("left of", "right of"), phrase="next to"),
    ],
)
def test_goals_round_trip(ref: GoalRef) -> None:
    assert parse_goal(goal_text(ref)) == ref


def test_pronoun_in_a_two_clause_instruction_has_its_referent() -> None:
    req = parse_instruction("Pick up the red cube and put it into the white bin.")
    assert (
        req is not None and req.obj == ObjRef(colour="red", shape="cube") and req.goal == GoalRef("bin", colour="white")
    )


def test_pronoun_alone_and_there_leave_both_open() -> None:
    req = parse_instruction("Put that over there.")
    assert req is not None and req.obj == ObjRef(pronoun=True) and req.goal == GoalRef("deictic")


def test_sorting_with_and_without_criterion() -> None:
    groups = (("cube", "white"), ("ball", "black"))
    said = parse_instruction(f"Sort the blocks {sort_text(SortRef('shape', groups))}.")
    assert said is not None and said.sort == SortRef("shape", groups)
    open_ = parse_instruction("Sort the blocks into the white bin and the black bin.")
    assert open_ is not None and open_.sort == SortRef(None, bins=("white", "black"))


def test_answers_are_fragments() -> None:
    assert parse_answer("Two of them.").obj == ObjRef(pronoun=True, quantity=2)  # type: ignore[union-attr]
    both = parse_answer("The blue cube, into slot 2 of the tray.")
    assert (
        both is not None and both.obj == ObjRef(colour="blue", shape="cube") and both.goal == GoalRef("slot", index=2)
    )
    assert parse_answer("Into the brown bin.").goal == GoalRef("bin", colour="brown")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "text", ["Juggle the red cube.", "Put the red cube into the white box.", "Put the mauve cube there.", ""]
)
def test_outside_the_grammar_is_none(text: str) -> None:
    assert parse_instruction(text) is None
