"""``"module:attr"`` references, imported when used: optional or heavy dependencies (the embedded
model, HTTP clients, the simulator) load only for the commands and nodes that need them."""

from __future__ import annotations

import importlib
from typing import Any


def load(ref: str) -> Any:
    """The attribute ``ref`` names (``"package.module:attr"``), importing its module now."""
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)
