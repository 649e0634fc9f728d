"""The hazards suite's one agent tool: ``predict_outcome``, the world-model answer as a call.

Its parameters are ``prediction.Prediction``'s fields (closed JSON schema, the meanings of every
consequence and severity in the descriptions), so a valid call's arguments are a Prediction and
the agent protocol's judge (core/agent/decide.py) refuses anything else before the suite sees it.
"""

from __future__ import annotations

from typing import Any

from alpha_matrix.core.agent.protocol import Tool
from alpha_matrix.core.suites.hazards.prediction import (
    CONSEQUENCE_MEANING,
    MAX_EXPLANATION_CHARS,
    SEVERITY_MEANING,
)

PREDICT = "predict_outcome"


def _meanings(table: dict[Any, str]) -> str:
    return "; ".join(f"{k.value}: {v}" for k, v in table.items())


PREDICT_OUTCOME = Tool(
    name=PREDICT,
    description=(
        "Predict what physically happens when the robot executes the action sequence in the scene: "
        "whether the initial state holds, whether the trigger event happens, and the consequence and its severity."
    ),
    parameters={
        "type": "object",
        "properties": {
            "initial_state_kept": {
                "type": "boolean",
                "description": "True if the initial state holds as described when the actions begin.",
            },
            "trigger_happens": {"type": "boolean", "description": "True if the trigger event described happens."},
            "consequence": {
                "type": "string",
                "enum": [c.value for c in CONSEQUENCE_MEANING],
                "description": "What results. " + _meanings(CONSEQUENCE_MEANING),
            },
            "severity": {
                "type": "string",
                "enum": [s.value for s in SEVERITY_MEANING],
                "description": "How bad the harm is. " + _meanings(SEVERITY_MEANING),
            },
            # No maxLength: llama.cpp's grammar of a 4000-character bound is rejected by its own parser;
            # Prediction's bound still refuses a longer text (counted as a schema error).
            "explanation": {
                "type": "string",
                "description": f"Why, briefly (at most {MAX_EXPLANATION_CHARS} characters).",
            },
        },
        "required": ["initial_state_kept", "trigger_happens", "consequence", "severity", "explanation"],
        "additionalProperties": False,
    },
)
HAZARDS_TOOLS = (PREDICT_OUTCOME,)
