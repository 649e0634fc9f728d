"""Episode outcome: did the block end in the zone within the step budget."""

from __future__ import annotations

import math
from dataclasses import dataclass

Vec3 = tuple[float, float, float]

SUCCESS_RADIUS = 0.05  # m, block centre to zone centre
MAX_EPISODE_STEPS = 1260  # physics steps per episode (5.25 s at 240 Hz), settling included
SETTLE_STEPS = 120  # steps held after reset before the first observation
ZONE = (0.6, 0.35, 0.65)  # place zone centre, world frame, m


@dataclass(frozen=True)
class Outcome:
    success: bool
    placement_error: float  # m, 3-D block centre to zone centre
    steps_used: int
    reason: str  # "" on success, else one line


def evaluate_outcome(
    block_position: Vec3,
    zone: Vec3,
    steps_used: int,
    max_steps: int = MAX_EPISODE_STEPS,
    radius: float = SUCCESS_RADIUS,
) -> Outcome:
    """Score one episode.

    ``placement_error`` is the full 3-D distance from the block centre to the zone centre:
    the zone centre's z (0.65) is the resting height of a cube centre on the table, so a block
    still held in the air, dropped on its side or lying on the floor cannot pass on xy alone.
    ``steps_used`` is what the plan needed including settling; above ``max_steps`` the episode
    was cut short and fails whatever the block position.
    """
    err = math.dist(block_position, zone)
    if not math.isfinite(err):
        return Outcome(False, err, steps_used, "block position is not finite")
    if steps_used > max_steps:
        return Outcome(False, err, steps_used, f"step budget exceeded ({steps_used} > {max_steps})")
    if err > radius:
        return Outcome(False, err, steps_used, f"block {err:.2f} m from zone centre")
    return Outcome(True, err, steps_used, "")
