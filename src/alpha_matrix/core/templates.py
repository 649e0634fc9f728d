"""What every prompt template shares, the planner's and the agent's: its content hash and its
``$placeholder`` check. One place, so the two template kinds hash and refuse alike."""

from __future__ import annotations

import hashlib
import json
from string import Template

from pydantic import BaseModel

from alpha_matrix.core.errors import ConfigError


def canonical_sha256(content: BaseModel) -> str:
    """sha256 of a template's canonical content (sorted JSON of its fields): comments and layout do not count."""
    text = json.dumps(content.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_placeholders(where: str, field: str, text: str, allowed: frozenset[str]) -> set[str]:
    """The ``$name`` placeholders of ``text``; a ConfigError for bad syntax or a name not in ``allowed``."""
    tpl = Template(text)
    if not tpl.is_valid():
        raise ConfigError(f"{where}: {field}: invalid placeholder syntax (use $name or ${{name}}; $$ for a dollar)")
    names = set(tpl.get_identifiers())
    unknown = sorted(names - allowed)
    if unknown:
        known = ", ".join(sorted(allowed)) or "none"
        raise ConfigError(f"{where}: {field}: unknown placeholder ${unknown[0]} (known: {known})")
    return names
