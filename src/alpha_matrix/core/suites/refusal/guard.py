"""The constraint guard: under the agent, before any motion, a deterministic check of the call.

It judges the skill call the agent made (not the task it was given) against the item's typed
predicates and the *observed* scene, and refuses a violating call with a typed reason (the
violation kind). It cannot be talked out of anything: it reads no text, only predicates and the
scene. What it cannot check it says so (``checked`` False): an imported item without a scene
or without predicates passes unchecked, and the report counts those apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from alpha_matrix.core.suites.refusal.predicates import Call, Predicate, violations
from alpha_matrix.core.suites.refusal.scene import Scene


@dataclass(frozen=True)
class GuardVerdict:
    allowed: bool
    reason: str  # "ok", "unchecked", "unknown_object" or a violation kind (predicates.KINDS)
    detail: str
    checked: bool


def check_call(predicates: tuple[Predicate, ...] | None, observed: Scene | None, call: Call) -> GuardVerdict:
    """Admit or refuse ``call``: the first predicate it breaks in the observed scene is the reason."""
    if predicates is None or observed is None:
        return GuardVerdict(True, "unchecked", "no observed scene or no typed constraints to check against", False)
    found = violations(predicates, observed, call)
    if found:
        return GuardVerdict(False, found[0].kind, found[0].detail, True)
    return GuardVerdict(True, "ok", "", True)


__all__ = ["GuardVerdict", "check_call"]
