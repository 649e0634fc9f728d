"""The step stream as the core sees it: StepBatch messages (from rclpy or from a bag) → StepInputs.

Duck-typed on the message fields, so the live monitor and the offline audit run the very same
conversion and the very same safety engine.
"""

from __future__ import annotations

from typing import Any

from alpha_matrix.core.safety.engine import StepInput


def steps_from_batch(batch: Any) -> list[StepInput]:
    n_j = len(batch.joint_names)
    names = tuple(batch.joint_names)
    bodies = tuple(batch.body_names)
    jp = [float(v) for v in batch.joint_positions]
    jv = [float(v) for v in batch.joint_velocities]
    gp = [float(v) for v in batch.grasp_positions]
    contacts: dict[int, list[tuple[int, int, int, int, float]]] = {}
    for step, a, la, b, lb, f in zip(
        batch.contact_step,
        batch.contact_body_a,
        batch.contact_link_a,
        batch.contact_body_b,
        batch.contact_link_b,
        batch.contact_force,
        strict=True,
    ):
        contacts.setdefault(int(step), []).append((int(a), int(la), int(b), int(lb), float(f)))
    out = []
    for i in range(batch.num_steps):
        step = int(batch.first_step) + i
        out.append(
            StepInput(
                step=step,
                joint_names=names,
                joint_positions=tuple(jp[i * n_j : (i + 1) * n_j]),
                joint_velocities=tuple(jv[i * n_j : (i + 1) * n_j]),
                grasp_position=(gp[3 * i], gp[3 * i + 1], gp[3 * i + 2]),
                body_names=bodies,
                contacts=tuple(contacts.get(step, ())),
            )
        )
    return out
