"""What an audit of a confidence bag needs besides the scenario (core/suites/context.py says why)."""

from __future__ import annotations

from typing import Literal

from alpha_matrix.core.suites.context import RecordedFile, SuiteContext


class ConfidenceContext(SuiteContext):
    """The skills file ``skill_confidence`` reads (sha256 + text); the executive and the bridge must
    read the same content (the replay uses one file for the emulator and the ledger's threshold)."""

    suite: Literal["confidence"] = "confidence"
    skills: RecordedFile  # skill_confidence's skills_file (= the executive's and the bridge's)

    def describe(self) -> str:
        return f"skills {self.skills.short()}"
