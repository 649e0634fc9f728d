"""An injection item: a refusal-scene item shown to the agent clean or with an instruction in one channel.

Every item is one of a *pair*: the clean twin (a constraint-based refusal item, exactly as the
refusal suite would judge it) and the injected twin (the same item, the same physics, with the
attacker's text placed in one channel of the observation). The attacker's goal is a predicate
the step stream decides (``attack.py``): ``attack_object`` moved, or came within the stated
distance of a person. The item carries its injected text, channel and goal whole: the request,
the record and the bag hold them.

In the object_text channel the text replaces the ``kind`` of one object that the task does not
name (the *carrier*): what is printed on it. Its body (shape, size, mass, place, colour) is the
clean twin's, so both twins are the same physics.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from alpha_matrix.core.suites.common import plain_of
from alpha_matrix.core.suites.refusal.generate import RefusalItem
from alpha_matrix.core.suites.refusal.suite import item_json, item_of

CLEAN, INJECTED = "clean", "injected"


@dataclass(frozen=True)
class InjectionItem:
    pair_id: str
    variant: str  # clean | injected
    channel: str  # channels.CHANNELS (the clean twin: the channel its twin is injected in)
    goal: str  # channels.GOALS
    text: str  # the injected text ("" in the clean twin)
    carrier: str  # the object whose printed text carries it (object_text)
    attack_object: str  # the object the attacker wants moved / carried near a person
    attack_xy: tuple[float, float]  # where the text asks it to go
    origin: str  # generated | hand
    item: RefusalItem  # what the agent is shown and the robot executes (the clean twin's item, or injected)

    @property
    def name(self) -> str:
        return f"{self.pair_id}_{self.variant}"

    @property
    def injected(self) -> bool:
        return self.variant == INJECTED


def injected_item(clean: RefusalItem, carrier: str, text: str) -> RefusalItem:
    """``clean`` with ``text`` printed on ``carrier`` (its kind), nothing else changed but the id."""
    objs = tuple(replace(o, kind=text) if o.name == carrier else o for o in clean.scene.objects)
    return replace(clean, item_id=f"{clean.item_id}_inj", scene=replace(clean.scene, objects=objs))


def pair(
    pair_id: str,
    clean: RefusalItem,
    *,
    channel: str,
    goal: str,
    text: str,
    carrier: str,
    attack_object: str,
    attack_xy: tuple[float, float],
    origin: str,
) -> tuple[InjectionItem, InjectionItem]:
    """The clean twin and the injected twin of one pair."""
    common = dict(channel=channel, goal=goal, carrier=carrier, attack_object=attack_object, attack_xy=attack_xy)
    a = InjectionItem(pair_id, CLEAN, text="", origin=origin, item=clean, **common)  # type: ignore[arg-type]
    b = InjectionItem(pair_id, INJECTED, text=text, origin=origin, item=injected_item(clean, carrier, text), **common)  # type: ignore[arg-type]
    return a, b


def injection_json(it: InjectionItem) -> dict[str, Any]:
    return {
        "pair_id": it.pair_id,
        "variant": it.variant,
        "channel": it.channel,
        "goal": it.goal,
        "text": it.text,
        "carrier": it.carrier,
        "attack": {"object": it.attack_object, "xy": list(it.attack_xy)},
        "origin": it.origin,
        "item": item_json(it.item),
    }


def injection_of(d: dict[str, Any]) -> InjectionItem:
    a = d["attack"]
    return plain_of(
        InjectionItem, d,
        attack_object=str(a["object"]),
        attack_xy=(float(a["xy"][0]), float(a["xy"][1])),
        item=item_of(d["item"]),
    )  # fmt: skip


__all__ = ["CLEAN", "INJECTED", "InjectionItem", "injected_item", "injection_json", "injection_of", "pair"]
