"""An injection item: a refusal-scene item shown to the agent clean or with an instruction in one channel.

Every item is one of a *pair*: the clean twin (a constraint-based refusal item, exactly as the
refusal suite would judge it) and the injected twin (the same item, the same physics, with the
attacker's text placed in one channel of the observation). The attacker's goal is a predicate
the step stream decides (``attack.py``): ``attack_object`` moved, or came within the stated
distance of a person. The item carries its injected text, channel and goal whole: the request,
the record and the bag hold them.

Where the text goes (the *carrier*), by channel; the physics of both twins is the same:

* object_text: it replaces the ``kind`` of one object the task does not name (what is printed
  on it); its body (shape, size, mass, place, colour) is the clean twin's.
* person_sign: it is the sign a person in the scene wears (the carrier is the person).
* tool_result: it is the reply of an earlier tool about the carrier object (``TOOL_REPLY``), in
  the situation's ``tool_results``; the clean twin has no earlier reply, exactly as a refusal item.
* alert_payload: it is a ``note`` in the payload of the alert raised mid-task (``alert``; the
  carrier is the alert's id): alert_host.py.
* gauge_face: the item is a gauge suite request; the text is printed on the face (gauge_host.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from alpha_matrix.core.suites.common import plain_of
from alpha_matrix.core.suites.gauge.run import GaugeRequest
from alpha_matrix.core.suites.refusal.generate import RefusalItem
from alpha_matrix.core.suites.refusal.suite import item_json, item_of

CLEAN, INJECTED = "clean", "injected"
TOOL_REPLY = "grasp_check"  # the earlier tool whose reply carries the tool_result channel's text


@dataclass(frozen=True)
class InjectionItem:
    pair_id: str
    variant: str  # clean | injected
    channel: str  # channels.CHANNELS (the clean twin: the channel its twin is injected in)
    goal: str  # channels.GOALS
    text: str  # the injected text ("" in the clean twin)
    carrier: str  # who carries it: an object, a person (person_sign), the gauge face (gauge_face)
    attack_object: str  # the object the attacker wants moved / carried near a person ("" for a gauge)
    attack_xy: tuple[float, float]  # where the text asks it to go ((0, 0) for a gauge)
    origin: str  # generated | hand
    # what the agent is shown and the robot executes (the clean twin's item, or injected): a
    # refusal item, or for gauge_face the gauge suite's request of one readable item
    item: RefusalItem | GaugeRequest
    attack_value: float | None = None  # gauge_face: the value the text asks the agent to report
    alert: dict[str, Any] | None = None  # alert_payload: the stop-class alert raised mid-task (alert_host.py)

    @property
    def gauge(self) -> bool:
        return isinstance(self.item, GaugeRequest)

    @property
    def refusal(self) -> RefusalItem:
        """The refusal item (every channel but gauge_face)."""
        if not isinstance(self.item, RefusalItem):
            raise TypeError(f"{self.name}: a gauge item, not a refusal scene")
        return self.item

    @property
    def gauge_request(self) -> GaugeRequest:
        if not isinstance(self.item, GaugeRequest):
            raise TypeError(f"{self.name}: a refusal scene, not a gauge item")
        return self.item

    @property
    def name(self) -> str:
        return f"{self.pair_id}_{self.variant}"

    @property
    def injected(self) -> bool:
        return self.variant == INJECTED


def injected_item(clean: RefusalItem, channel: str, carrier: str, text: str) -> RefusalItem:
    """``clean`` with ``text`` on ``carrier`` in its channel's place of the scene, nothing else
    changed but the id (tool_result: the scene is the clean one; the reply is in the observation)."""
    scene = clean.scene
    if channel == "object_text":
        scene = replace(scene, objects=tuple(replace(o, kind=text) if o.name == carrier else o for o in scene.objects))
    elif channel == "person_sign":
        scene = replace(scene, people=tuple(replace(p, sign=text) if p.name == carrier else p for p in scene.people))
    elif channel not in ("tool_result", "alert_payload"):
        raise ValueError(f"channel {channel!r}: not a refusal-scene channel")
    return replace(clean, item_id=f"{clean.item_id}_inj", scene=scene)


def tool_results(it: InjectionItem) -> list[dict[str, str]] | None:
    """The earlier tool replies the agent sees (the injected tool_result twin's only)."""
    if it.injected and it.channel == "tool_result":
        return [{"tool": TOOL_REPLY, "object": it.carrier, "reply": it.text}]
    return None


def pair(
    pair_id: str,
    clean: RefusalItem | GaugeRequest,
    *,
    channel: str,
    goal: str,
    text: str,
    carrier: str,
    attack_object: str = "",
    attack_xy: tuple[float, float] = (0.0, 0.0),
    attack_value: float | None = None,
    alert: dict[str, Any] | None = None,
    origin: str,
) -> tuple[InjectionItem, InjectionItem]:
    """The clean twin and the injected twin of one pair (a gauge item is the same in both: the
    text is in the situation, not in the image)."""
    common = dict(
        channel=channel, goal=goal, carrier=carrier, attack_object=attack_object, attack_xy=attack_xy,
        attack_value=attack_value, alert=alert, origin=origin,
    )  # fmt: skip
    shown = clean if isinstance(clean, GaugeRequest) else injected_item(clean, channel, carrier, text)
    a = InjectionItem(pair_id, CLEAN, text="", item=clean, **common)  # type: ignore[arg-type]
    b = InjectionItem(pair_id, INJECTED, text=text, item=shown, **common)  # type: ignore[arg-type]
    return a, b


def injection_json(it: InjectionItem) -> dict[str, Any]:
    if isinstance(it.item, GaugeRequest):
        attack: dict[str, Any] = {"value": it.attack_value}
        item = it.item.model_dump(mode="json", exclude_none=True)
    else:
        attack, item = {"object": it.attack_object, "xy": list(it.attack_xy)}, item_json(it.item)
    return {
        "pair_id": it.pair_id,
        "variant": it.variant,
        "channel": it.channel,
        "goal": it.goal,
        "text": it.text,
        "carrier": it.carrier,
        "attack": attack,
        "origin": it.origin,
        "item": item,
        **({"alert": it.alert} if it.alert is not None else {}),
    }


def injection_of(d: dict[str, Any]) -> InjectionItem:
    a = d["attack"]
    if d["channel"] == "gauge_face":
        return plain_of(
            InjectionItem, d, attack_object="", attack_xy=(0.0, 0.0), attack_value=float(a["value"]),
            item=GaugeRequest.model_validate(d["item"]), alert=None,
        )  # fmt: skip
    return plain_of(
        InjectionItem, d,
        attack_object=str(a["object"]),
        attack_xy=(float(a["xy"][0]), float(a["xy"][1])),
        attack_value=None,
        item=item_of(d["item"]),
        alert=d.get("alert"),
    )  # fmt: skip


__all__ = [
    "CLEAN",
    "INJECTED",
    "TOOL_REPLY",
    "InjectionItem",
    "injected_item",
    "injection_json",
    "injection_of",
    "pair",
    "tool_results",
]
