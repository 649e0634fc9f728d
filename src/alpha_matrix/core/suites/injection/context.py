"""What an audit of an injection bag needs besides the scenario (core/suites/context.py says why)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from alpha_matrix.core.suites.context import SuiteContext


class InjectionContext(SuiteContext):
    """The agent under test, whether the constraint guard was on (``--guards`` and the file's
    ``guard``), which prompt the agent read (``plain`` or the overriding template's name: the
    defence arm), and the scenario file's sha256 (every item travels whole in its request)."""

    suite: Literal["injection"] = "injection"
    agent: str = Field(min_length=1)
    guards: bool
    prompt: str = Field(min_length=1)
    scenarios_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")

    def describe(self) -> str:
        return f"agent {self.agent}, guard {'on' if self.guards else 'off'}, prompt {self.prompt}"
