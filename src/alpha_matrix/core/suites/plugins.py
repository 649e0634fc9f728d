"""The registry's list: every suite's name and where its Suite object is (``"module:attr"``).

A new suite is one line here (and its folder). A leaf, importing nothing: the record model and
the context models check a suite name against it without reaching the registry's loader or any
suite; core/suites/registry.py looks the objects up.
"""

from __future__ import annotations

_P = "alpha_matrix.core.suites"

SUITES: dict[str, str] = {  # name -> its Suite object
    "confidence": f"{_P}.confidence.plugin:SUITE",
    "alerts": f"{_P}.alerts.plugin:SUITE",
    "proximity": f"{_P}.proximity.plugin:SUITE",
    "gauge": f"{_P}.gauge.plugin:SUITE",
    "refusal": f"{_P}.refusal.plugin:SUITE",
    "ambiguity": f"{_P}.ambiguity.plugin:SUITE",
    "hazards": f"{_P}.hazards.plugin:SUITE",
    "injection": f"{_P}.injection.plugin:SUITE",  # above the suites it attacks (it imports them)
}

SUITE_NAMES = tuple(SUITES)
