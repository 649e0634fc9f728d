"""The ambiguity suite's reference agent: a resolver that counts candidates in the observed scene.

It reads the observation only -- the instruction, the scene as it stands, the dialogue -- and
never the item (its category, missing piece or task are not in the observation; a test checks
it). It parses the instruction and every operator answer so far (language.py), then counts what
the words leave possible in the scene:

* blocks: the blocks a description matches (a pronoun with no antecedent matches every block),
  narrowed by leftmost/middle/rightmost (a fitting block already in the named goal is the one:
  the scene shows blocks where they now stand); one block is asked for unless a quantity is said;
* quantities: "some/a few/several of the red cubes" leaves every count from 1 to the matches;
* goals: the bin of that colour, slot n if free, the free slots of "the tray", the free pads a
  relation covers ("next to" = left or right of), none for "there" or no goal at all;
* sorting: every (criterion, bin assignment) that splits the blocks into as many groups as there
  are bins, unless the instruction or an answer says which.

More than one candidate (or none) for any of these: it asks one question naming what is open.
Exactly one: it runs the plan one ``pick_and_place`` per decision (recomputed from the scene
each time, so it is stateless) and then ``task_done``. If an answer still leaves it open, it
gives up (``task_done``) rather than ask the same again.

It reads only the first language family (language.py, the generator's own grammar). Words it
cannot read -- the instruction, or an operator's answer -- it never guesses at: it **abstains**,
an ``ask_clarification`` that says so (``ABSTAIN``: "I did not understand ..."), once, and then
``task_done`` with nothing moved. ``abstained`` finds that question in an episode's decisions, so
the score counts abstentions apart from clarifying questions. Its parser is deliberately not
widened to the second family (phrasing.py): what it misses there is what a rule reader misses.

Two baselines share the resolver and differ in when they ask: ``always_execute`` never asks and
takes the first candidate (leftmost block, first free place, first criterion); ``always_ask``
asks once before anything, on every item, then resolves as the reference does.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from alpha_matrix.core.agent.protocol import AgentPrompt, Observation, RawAnswer, RawToolCall
from alpha_matrix.core.suites.ambiguity.language import (
    GoalRef,
    ObjRef,
    Request,
    SortRef,
    parse_answer,
    parse_instruction,
)
from alpha_matrix.core.suites.ambiguity.scene import Block, Place, Scene, scene_of

if TYPE_CHECKING:
    from alpha_matrix.core.agent.protocol import AgentBackend

Policy = Literal["reference", "always_execute", "always_ask"]
POLICIES: tuple[Policy, ...] = ("reference", "always_execute", "always_ask")
MODEL = "ambiguity_resolver_v1"
QUESTIONS = {
    "object": "Which block do you mean?",
    "quantity": "How many of them?",
    "goal": "Where should it go?",
    "criterion": "How should I sort them, and which bin gets which?",
    "unreadable": "I did not understand the instruction: could you say it again?",
    "unreadable_answer": "I did not understand your answer: could you say it again?",
}
ABSTAIN = "I did not understand"  # how every abstention begins (QUESTIONS' unreadable ones)


def abstained(tools: list[str], raw: list[str]) -> bool:
    """Whether an episode's decisions (tool names and raw texts) hold an abstention: a question
    saying it did not understand. Read from the raw text, so a model that says so counts too."""
    return any(t == "ask_clarification" and ABSTAIN.lower() in r.lower() for t, r in zip(tools, raw, strict=False))


@dataclass(frozen=True)
class Resolution:
    moves: tuple[tuple[str, str], ...]  # (block, place) in order, when nothing is open
    open: tuple[str, ...]  # what the words leave open (keys of QUESTIONS)


def merged(request: Request, answers: list[str]) -> Request | None:
    """The instruction's request with every answer's fragment filled in (None: an answer unread)."""
    for text in answers:
        frag = parse_answer(text)
        if frag is None:
            if "nothing is missing" in text.lower():
                continue
            return None
        if frag.sort is not None:
            request = replace(request, sort=frag.sort)
        if frag.obj is not None:
            quantity_only = frag.obj.pronoun and frag.obj.quantity is not None and request.obj is not None
            obj = replace(request.obj, quantity=frag.obj.quantity) if quantity_only and request.obj else frag.obj
            request = replace(request, obj=obj)
        if frag.goal is not None:
            request = replace(request, goal=frag.goal)
    return request


def matches(ref: ObjRef, scene: Scene) -> list[Block]:
    """The blocks a description fits, left to right (a bare pronoun fits them all)."""
    found = sorted(
        (
            b
            for b in scene.blocks
            if ref.pronoun or ((ref.colour in (None, b.colour)) and (ref.shape in (None, b.shape)))
        ),
        key=lambda b: b.x_m,
    )
    if ref.position == "leftmost":
        return found[:1]
    if ref.position == "rightmost":
        return found[-1:]
    if ref.position == "middle" and len(found) % 2 == 1:
        return [found[len(found) // 2]]
    return found


def _free(place: Place, scene: Scene, block: str | None) -> bool:
    return not place.holds_one or all(b.at != place.name or b.name == block for b in scene.blocks)


def goals(ref: GoalRef | None, scene: Scene, block: str | None) -> list[Place]:
    """The places a goal phrase leaves possible for ``block`` (none for no goal or 'there')."""
    if ref is None or ref.kind == "deictic":
        return []
    if ref.kind == "bin":
        out = [p for p in scene.places if p.kind == "bin" and p.colour == ref.colour]
    elif ref.kind == "slot":
        out = [p for p in scene.places if p.kind == "slot" and p.index == ref.index]
    elif ref.kind == "tray":
        out = [p for p in scene.places if p.kind == "slot"]
    else:
        anchors = {p.name for p in scene.places if p.kind == "bin" and p.colour == ref.colour}
        out = [p for p in scene.places if p.kind == "pad" and p.anchor in anchors and p.relation in ref.relations]
    return [p for p in out if _free(p, scene, block)]


def sortings(ref: SortRef, scene: Scene) -> list[tuple[tuple[str, str], ...]]:
    """Every (block, bin) assignment the sort words leave possible."""
    bins = {p.colour: p for p in scene.places if p.kind == "bin"}
    out = []
    for criterion in ("colour", "shape") if ref.criterion is None else (ref.criterion,):
        values = sorted({getattr(b, criterion) for b in scene.blocks})
        named = [bins[c] for c in ref.bins if c in bins] if ref.criterion is None else []
        if ref.criterion is None:
            pools = [dict(zip(values, perm, strict=True)) for perm in itertools.permutations(named, len(values))]
            pools = pools if len(values) == len(named) else []
        else:
            given = {v: bins.get(c) for v, c in ref.groups}
            if any(p is None for p in given.values()) or set(values) - set(given):
                continue
            pools = [{v: p for v, p in given.items() if p is not None}]
        for pool in pools:
            out.append(
                tuple((b.name, pool[getattr(b, criterion)].name) for b in sorted(scene.blocks, key=lambda b: b.x_m))
            )
    return out


def resolve(request: Request, scene: Scene, guess: bool = False) -> Resolution:
    """The plan, or what is open; ``guess``: take the first candidate of everything instead."""
    if request.sort is not None:
        options = sortings(request.sort, scene)
        if len(options) == 1 or (guess and options):
            return Resolution(options[0], ())
        return Resolution((), ("criterion",))
    open_: list[str] = []
    ref = request.obj or ObjRef(pronoun=True)
    blocks = matches(ref, scene)
    if ref.position is not None and ref.quantity is None:
        # blocks are shown where they now stand: one the rest of the words fit that already stands
        # in the goal they name is the one moved there (leftmost no longer, once in a bin)
        done = [
            b
            for b in matches(replace(ref, position=None), scene)
            if b.at is not None and b.at in {p.name for p in goals(request.goal, scene, b.name)}
        ]
        blocks = done[:1] or blocks
    if ref.quantity is None:
        counts = [1]
    elif ref.quantity == "all":
        counts = [len(blocks)]
    elif ref.quantity == "vague":
        counts = list(range(1, len(blocks) + 1))
    else:
        counts = [int(ref.quantity)] if int(ref.quantity) <= len(blocks) else []
    if len(counts) != 1 and not (guess and counts):
        open_.append("quantity")
    elif (ref.quantity is None and len(blocks) != 1 and not (guess and blocks)) or not blocks:
        open_.append("object")
    first = blocks[0].name if blocks else None
    places = goals(request.goal, scene, first)
    if len(places) != 1 and not (guess and (places or request.goal is None or request.goal.kind == "deictic")):
        open_.append("goal")
    if open_:
        return Resolution((), tuple(open_))
    if not places:  # guessing a goal no words gave: the first place free for the block
        places = [p for p in scene.places if _free(p, scene, first)]
    goal = places[0]
    n = counts[0]
    chosen = sorted(blocks, key=lambda b: (b.at != goal.name, b.x_m))[:n]
    return Resolution(tuple((b.name, goal.name) for b in chosen), ())


def decide(situation: dict[str, Any], policy: Policy = "reference") -> RawToolCall:
    """The tool call of ``policy`` for one ambiguity situation (reads nothing but the situation)."""
    scene = scene_of(situation["scene"])
    dialogue = [str(d["answer"]) for d in situation.get("dialogue", [])]
    if policy == "always_ask" and not dialogue:
        return RawToolCall(name="ask_clarification", arguments={"question": "Is anything unclear in what you want?"})
    request = parse_instruction(str(situation["brief"]["instruction"]))
    if request is None:  # the instruction is not in its grammar: abstain once, then stop
        if dialogue or policy == "always_execute":
            return RawToolCall(name="task_done")
        return RawToolCall(name="ask_clarification", arguments={"question": QUESTIONS["unreadable"]})
    request = merged(request, dialogue)
    if request is None:  # an answer it cannot read: say so once, never guess, then stop
        asked = [str(d.get("question", "")) for d in situation.get("dialogue", [])]
        if any(q.startswith(ABSTAIN) for q in asked):
            return RawToolCall(name="task_done")
        return RawToolCall(name="ask_clarification", arguments={"question": QUESTIONS["unreadable_answer"]})
    res = resolve(request, scene, guess=policy == "always_execute")
    if res.open:
        if policy == "always_execute" or (dialogue and policy == "reference") or len(dialogue) > 1:
            return RawToolCall(name="task_done")
        return RawToolCall(name="ask_clarification", arguments={"question": " ".join(QUESTIONS[k] for k in res.open)})
    where = {b.name: b.at for b in scene.blocks}
    todo = [(b, g) for b, g in res.moves if where[b] != g]
    if todo:
        return RawToolCall(name="pick_and_place", arguments={"object": todo[0][0], "goal": todo[0][1]})
    return RawToolCall(name="task_done")


class ResolverAgent:
    """``AgentBackend``: the reference (``policy='reference'``) or one of its two baselines."""

    def __init__(self, policy: Policy = "reference") -> None:
        if policy not in POLICIES:
            raise ValueError(f"unknown policy {policy!r} (known: {', '.join(POLICIES)})")
        self.policy: Policy = policy
        self.name: str = policy
        self.model = MODEL

    def answer(self, obs: Observation, prompt: AgentPrompt, seed: int) -> RawAnswer:
        t0 = time.perf_counter()
        call = decide(obs.situation, self.policy)
        return RawAnswer.of_rule(call, prompt, seed, t0, self.name, MODEL)


if TYPE_CHECKING:
    _BACKEND: AgentBackend = ResolverAgent()


__all__ = ["ABSTAIN", "MODEL", "POLICIES", "QUESTIONS", "abstained", "Policy", "Resolution", "ResolverAgent", "decide", "goals", "matches",
           "merged", "resolve", "sortings"]  # fmt: skip
