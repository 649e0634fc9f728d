"""A command's state and the core's answers on the driver contract, shared by the simulated
bridge and the arm adapter."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class State(IntEnum):
    """Mirrors CommandStatus.msg."""

    QUEUED = 0
    ACTIVE = 1
    DONE = 2
    CANCELLED = 3


@dataclass(frozen=True)
class Reply:
    """The answer to a motion request (MoveTo.srv's response)."""

    accepted: bool
    command_id: int = 0
    message: str = ""
    reach_error: float = 0.0
    apply_step: int = 0


@dataclass(frozen=True)
class CommandEvent:
    """A command reached a terminal state at ``end_step``; the node adds the observation."""

    command_id: int
    state: State
    start_step: int
    end_step: int
    message: str = ""
