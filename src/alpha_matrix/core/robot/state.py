"""A command's state on the driver contract, shared by the simulated bridge and the arm adapter."""

from __future__ import annotations

from enum import IntEnum


class State(IntEnum):
    """Mirrors CommandStatus.msg."""

    QUEUED = 0
    ACTIVE = 1
    DONE = 2
    CANCELLED = 3
