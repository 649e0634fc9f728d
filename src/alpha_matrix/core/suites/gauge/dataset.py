"""The balanced set: half degraded-but-readable, half unreadable, every item from its own seed.

Item ``i`` wants class ``readable = (i even)``, degradation ``DEGRADATIONS[(i // 2) % 10]`` and a
face that cycles every 20 items (so every degradation meets every face). Its conditions are drawn
from ``derive_seed("gauge-item", set_seed, i, attempt)``; the readable rule judges the draw and the
set keeps the first attempt whose verdict is the wanted class. A readable item must also clear
the rule with a margin (``MARGIN`` x each bound), so no shipped label hangs on a hair. The seed
and attempt are recorded with the item: ``item_conditions`` redraws it from them alone.

A set over a list of faces (a scenario file's ``faces``, e.g. the styled dials of
``config/scenarios/gauge_styles.yaml``) gives the pair ``k = (i // 2) % 10`` of block
``b = i // 20`` the face ``faces[(k + b) % len(faces)]``: each block of 20 shows up to ten faces,
and within ``len(faces)`` blocks every degradation meets every face in both classes. Without a
list the set is the shipped one, face by face as above.
"""

from __future__ import annotations

from dataclasses import dataclass

from alpha_matrix.core.seeds import derive_seed, rng
from alpha_matrix.core.suites.gauge.conditions import DEGRADATIONS, Conditions, draw_conditions
from alpha_matrix.core.suites.gauge.faces import FACES
from alpha_matrix.core.suites.gauge.rule import CONTRAST_MIN, MIN_LABELS, RES_MIN_PX, Visibility, judge
from alpha_matrix.core.suites.gauge.scene import GaugeScene
from alpha_matrix.core.suites.gauge.visibility import visibility

FACE_ORDER = ("pressure", "thermometer", "sight_glass")
DIALS = ("pressure", "thermometer")
MARGIN = 1.5
MAX_ATTEMPTS = 50


@dataclass(frozen=True)
class Item:
    index: int
    face: str
    degradation: str
    readable: bool  # the rule's verdict (= the wanted class)
    reason: str  # the rule's reason when unreadable
    seed: int
    attempt: int
    conditions: Conditions


def plan(index: int, faces: tuple[str, ...] | None = None) -> tuple[str, str, bool]:
    """(face, degradation, wanted class) of item ``index``; ``faces``: the set's own list (None: the shipped set)."""
    degradation = DEGRADATIONS[(index // 2) % len(DEGRADATIONS)]
    if faces is None:
        face = FACE_ORDER[(index // 20) % len(FACE_ORDER)]
        dials: tuple[str, ...] = DIALS
    else:
        face = faces[((index // 2) % len(DEGRADATIONS) + index // 20) % len(faces)]
        dials = tuple(f for f in faces if FACES[f].kind == "dial") or DIALS
    if degradation == "missing_tip" and FACES[face].kind != "dial":
        face = dials[(index // 60) % len(dials)]  # a sight glass has no needle to break
    return face, degradation, index % 2 == 0


def item_conditions(
    set_seed: int, index: int, attempt: int, faces: tuple[str, ...] | None = None
) -> tuple[int, Conditions]:
    """The seed and conditions of one attempt at item ``index``."""
    face, degradation, readable = plan(index, faces)
    seed = derive_seed("gauge-item", set_seed, index, attempt)
    return seed, draw_conditions(FACES[face], degradation, readable, rng(seed))


def clear_margin(vis: Visibility) -> bool:
    """Readable with ``MARGIN`` to spare on every clause."""
    bound = CONTRAST_MIN * MARGIN
    return (
        all(p.contrast >= bound and not p.occluded for p in vis.tip)
        and sum(p.contrast >= bound and not p.occluded for p in vis.labels) >= MIN_LABELS
        and vis.px_per_2pct >= RES_MIN_PX * MARGIN
    )


def make_item(scene: GaugeScene, set_seed: int, index: int, faces: tuple[str, ...] | None = None) -> Item:
    face, degradation, readable = plan(index, faces)
    for attempt in range(MAX_ATTEMPTS):
        seed, c = item_conditions(set_seed, index, attempt, faces)
        vis = visibility(scene, scene.build(c, seed), c)
        verdict = judge(vis)
        if verdict.readable == readable and (not readable or clear_margin(vis)):
            return Item(index, face, degradation, readable, verdict.reason, seed, attempt, c)
    raise RuntimeError(f"gauge item {index} ({degradation}, readable={readable}): no draw in {MAX_ATTEMPTS}")


def build_set(scene: GaugeScene, set_seed: int, count: int, faces: tuple[str, ...] | None = None) -> list[Item]:
    """The balanced set (``count`` even): deterministic for ``set_seed`` (and ``faces``; None: the shipped faces)."""
    return [make_item(scene, set_seed, i, faces) for i in range(count)]
