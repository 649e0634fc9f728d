"""The instruction language of the ambiguity suite: phrases written from references, and read back.

One grammar for both sides, so the generator's words and the reference's reading cannot drift:
the generator writes references (``ObjRef``, ``GoalRef``, ``SortRef``) as text with ``obj_text``
/ ``goal_text`` / ``sort_text``; the reference agent parses text with ``parse_instruction`` and
``parse_answer`` and never sees the references the generator started from. Parsing is plain
regular expressions over a closed vocabulary; text outside it is ``None`` (the reference then
asks, as anyone would on an instruction they cannot read).

Instructions:  ``<verb> <object> [<goal>]`` | ``pick up <object> [and put it <goal>]`` |
``sort the blocks into the <c> bin and the <c> bin`` | ``sort the blocks by colour|shape: <v> ones
into the <c> bin, <v> ones into the <c> bin``.  Objects: ``it``/``that``/``this one``; ``the
[leftmost|middle|rightmost] [<colour>] <shape>|block|object|thing|item``; ``<n>|all|some|a few|
several of the [<colour>] <shapes>|blocks``. Goals: ``in(to) the <c> bin``, ``in(to) slot <n> of the
tray``, ``in(to) the tray``, ``onto the pad <relation> the <c> bin``, ``next to|beside|near the <c>
bin``, ``there``. Answers are fragments of the same: an object, a goal, both (``<object>, <goal>``),
``<n>|all of them``, or a sort criterion with its bins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from alpha_matrix.core.suites.ambiguity.scene import BIN_COLOURS, BLOCK_COLOURS, RELATIONS, SHAPES

GENERIC_NOUNS = ("block", "object", "thing", "item")
PRONOUNS = ("it", "that", "this one", "that one")
POSITIONS = ("leftmost", "middle", "rightmost")
VAGUE = ("some", "a few", "several")
NUMBERS = ("one", "two", "three", "four", "five", "six")
DEICTIC = ("there", "over there")
VERBS = ("put", "move", "place", "take")
# Imprecise relations and the pad relations each covers.
IMPRECISE = {"next to": ("left of", "right of"), "beside": ("left of", "right of"), "near": RELATIONS}


@dataclass(frozen=True)
class ObjRef:
    """Which block(s): a pronoun, or a description; ``quantity`` None = one (singular)."""

    pronoun: bool = False
    colour: str | None = None
    shape: str | None = None  # None: a generic noun (block, object, ...)
    position: str | None = None  # leftmost | middle | rightmost among the matches
    quantity: int | str | None = None  # n | "all" | "vague" | None (one)
    noun: str = "block"  # the generic noun written (text only)


@dataclass(frozen=True)
class GoalRef:
    kind: str  # bin | slot | tray | pads | deictic
    colour: str = ""  # bin: its colour; pads: the anchor bin's
    index: int = 0  # slot number
    relations: tuple[str, ...] = ()  # pads: the relations the phrase covers
    phrase: str = ""  # pads: the words ("left of", "next to", ...)


@dataclass(frozen=True)
class SortRef:
    criterion: str | None  # colour | shape | None (not said)
    groups: tuple[tuple[str, str], ...] = ()  # (colour or shape, bin colour)
    bins: tuple[str, ...] = ()  # bin colours named without a criterion


@dataclass(frozen=True)
class Request:
    obj: ObjRef | None = None  # None: no object said at all
    goal: GoalRef | None = None  # None: no goal said
    sort: SortRef | None = None


# ----------------------------------------------------------------------------- writing
def plural(shape: str | None) -> str:
    return "blocks" if shape is None else f"{shape}s"


def obj_text(ref: ObjRef) -> str:
    if ref.pronoun:
        return "it"
    if ref.quantity is not None:
        qty = ref.quantity if isinstance(ref.quantity, str) else NUMBERS[ref.quantity - 1]
        head = "all" if qty == "all" else qty
        return f"{head} of the {ref.colour + ' ' if ref.colour else ''}{plural(ref.shape)}"
    words = ["the", ref.position, ref.colour, ref.shape or ref.noun]
    return " ".join(w for w in words if w)


def goal_text(ref: GoalRef) -> str:
    if ref.kind == "bin":
        return f"into the {ref.colour} bin"
    if ref.kind == "slot":
        return f"into slot {ref.index} of the tray"
    if ref.kind == "tray":
        return "into the tray"
    if ref.kind == "pads":
        prefix = "onto the pad " if ref.phrase in RELATIONS else ""
        return f"{prefix}{ref.phrase} the {ref.colour} bin"
    return "there"


def sort_text(ref: SortRef) -> str:
    """The sorting part after 'sort the blocks' (also the operator's criterion answer)."""
    if ref.criterion is None:
        return "into " + " and ".join(f"the {c} bin" for c in ref.bins)
    ones = ", ".join(f"{_group_word(ref.criterion, v)} into the {c} bin" for v, c in ref.groups)
    return f"by {ref.criterion}: {ones}"


def _group_word(criterion: str, value: str) -> str:
    return f"{value} ones" if criterion == "colour" else plural(value)


def sentence(text: str) -> str:
    return text[0].upper() + text[1:] + "."


# ----------------------------------------------------------------------------- reading
_C = "|".join(BLOCK_COLOURS)
_S = "|".join(SHAPES)
_BC = "|".join(BIN_COLOURS)
_PLURAL = "|".join([*(plural(s) for s in SHAPES), "blocks", "objects", "things", "items"])
_SINGULAR = re.compile(rf"^the (?:({'|'.join(POSITIONS)}) )?(?:({_C}) )?({_S}|{'|'.join(GENERIC_NOUNS)})$")
_QUANTITY = re.compile(rf"^(all|{'|'.join(VAGUE)}|{'|'.join(NUMBERS)}) of the (?:({_C}) )?({_PLURAL})$")
_ALL_THE = re.compile(rf"^all the (?:({_C}) )?({_PLURAL})$")
_GOALS = (
    (re.compile(rf"^(?:in|into) the ({_BC}) bin$"), "bin"),
    (re.compile(r"^(?:in|into) slot (\d+) of the tray$"), "slot"),
    (re.compile(r"^(?:in|into|on) the tray$"), "tray"),
    (re.compile(rf"^(?:on|onto) the pad ({'|'.join(RELATIONS)}) the ({_BC}) bin$"), "pad"),
    (re.compile(rf"^({'|'.join(IMPRECISE)}) the ({_BC}) bin$"), "near"),
    (re.compile(rf"^(?:{'|'.join(DEICTIC)})$"), "deictic"),
)
_GROUP = re.compile(rf"^({_C}|{_PLURAL}|{'|'.join(f'{c} ones' for c in BLOCK_COLOURS)}) into the ({_BC}) bin$")


def normal(text: str) -> str:
    return " ".join(text.lower().replace(".", " ").split())


def _shape_of_plural(word: str) -> str | None:
    return next((s for s in SHAPES if plural(s) == word), None)


def parse_object(text: str) -> ObjRef | None:
    t = normal(text)
    if t in PRONOUNS:
        return ObjRef(pronoun=True)
    if m := _SINGULAR.match(t):
        generic = m[3] in GENERIC_NOUNS
        return ObjRef(colour=m[2], shape=None if generic else m[3], position=m[1], noun=m[3] if generic else "block")
    if m := _QUANTITY.match(t):
        q = m[1]
        qty: int | str = "all" if q == "all" else ("vague" if q in VAGUE else NUMBERS.index(q) + 1)
        return ObjRef(colour=m[2], shape=_shape_of_plural(m[3]), quantity=qty)
    if m := _ALL_THE.match(t):
        return ObjRef(colour=m[1], shape=_shape_of_plural(m[2]), quantity="all")
    return None


def parse_goal(text: str) -> GoalRef | None:
    t = normal(text)
    for pattern, kind in _GOALS:
        if m := pattern.match(t):
            if kind == "bin":
                return GoalRef("bin", colour=m[1])
            if kind == "slot":
                return GoalRef("slot", index=int(m[1]))
            if kind == "pad":
                return GoalRef("pads", colour=m[2], relations=(m[1],), phrase=m[1])
            if kind == "near":
                return GoalRef("pads", colour=m[2], relations=tuple(IMPRECISE[m[1]]), phrase=m[1])
            return GoalRef(kind)
    return None


def _split_goal(t: str) -> tuple[str, GoalRef | None]:
    """``<object> <goal>`` -> (object text, goal); the goal is the longest parseable tail."""
    words = t.split()
    for i in range(1, len(words)):
        goal = parse_goal(" ".join(words[i:]))
        if goal is not None:
            return " ".join(words[:i]), goal
    return t, None


def parse_sort(rest: str) -> SortRef | None:
    """After 'sort the blocks': the bins only, or a criterion with its groups."""
    if m := re.match(rf"^into the ({_BC}) bin and the ({_BC}) bin$", rest):
        return SortRef(None, bins=(m[1], m[2]))
    if m := re.match(r"^by (colour|shape)(?::|,)? (.+)$", rest):
        groups = []
        for part in re.split(r", (?:and )?| and ", m[2]):
            g = _GROUP.match(part.strip())
            if g is None:
                return None
            value = g[1].removesuffix(" ones")
            value = _shape_of_plural(value) or value
            if (m[1] == "colour") != (value in BLOCK_COLOURS):
                return None
            groups.append((value, g[2]))
        return SortRef(m[1], tuple(groups))
    return None


def parse_instruction(text: str) -> Request | None:
    """The request an instruction makes, or None when it is outside the grammar."""
    t = normal(text)
    if t.startswith("sort the blocks "):
        sort = parse_sort(t.removeprefix("sort the blocks "))
        return None if sort is None else Request(sort=sort)
    if m := re.match(r"^pick up (.+?)(?: and (?:put|place) it (.+))?$", t):
        obj = parse_object(m[1])
        goal = parse_goal(m[2]) if m[2] else None
        if obj is None or (m[2] and goal is None):
            return None
        return Request(obj, goal)
    verb, _, rest = t.partition(" ")
    if verb not in VERBS or not rest:
        return None
    obj_part, goal = _split_goal(rest)
    obj = parse_object(obj_part)
    return None if obj is None else Request(obj, goal)


def parse_answer(text: str) -> Request | None:
    """An operator's answer as the fragment of a request it supplies (None: not in the grammar)."""
    t = normal(text)
    if t.startswith("by "):
        sort = parse_sort(t)
        return None if sort is None else Request(sort=sort)
    if m := re.match(rf"^(all|{'|'.join(NUMBERS)}) of them$", t):
        return Request(ObjRef(quantity="all" if m[1] == "all" else NUMBERS.index(m[1]) + 1, pronoun=True))
    if "," in t:
        obj_part, _, goal_part = t.partition(",")
        obj, goal = parse_object(obj_part), parse_goal(goal_part)
        return None if obj is None or goal is None else Request(obj, goal)
    if (goal := parse_goal(t)) is not None:
        return Request(goal=goal)
    obj = parse_object(t)
    return None if obj is None else Request(obj)


__all__ = [
    "DEICTIC",
    "GENERIC_NOUNS",
    "IMPRECISE",
    "NUMBERS",
    "POSITIONS",
    "PRONOUNS",
    "VAGUE",
    "VERBS",
    "GoalRef",
    "ObjRef",
    "Request",
    "SortRef",
    "goal_text",
    "normal",
    "obj_text",
    "parse_answer",
    "parse_goal",
    "parse_instruction",
    "parse_object",
    "parse_sort",
    "plural",
    "sentence",
    "sort_text",
]
