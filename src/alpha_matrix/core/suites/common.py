"""Helpers every suite's file loaders share: where the package config is, pydantic errors as one
line, and an item read back from its recorded JSON."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from pydantic import ValidationError

from alpha_matrix.core.errors import ConfigError


def config_dir() -> Path:
    """The package's config/ (lazy: core.graph is only needed when a default file is read)."""
    from alpha_matrix.core.graph import default_config_dir

    return default_config_dir()


def raise_validation(path: Path, err: ValidationError) -> NoReturn:
    """The first pydantic error as one ConfigError line: 'file: key.path: message'."""
    first = err.errors()[0]
    key = ".".join(str(p) for p in first["loc"]) or "(top level)"
    msg = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
    raise ConfigError(f"{path}: {key}: {msg}") from None


T = TypeVar("T")
_PLAIN = {"str": str, "int": int, "float": float, "bool": bool}


def plain_of(cls: type[T], d: dict[str, Any], **given: Any) -> T:
    """A dataclass ``cls`` from its recorded JSON ``d``: every field not ``given`` is its plain
    type (str, int, float, bool) converted from ``d``; the others (nested, tuples) are ``given``."""
    fields = {f.name: f.type for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    plain = {k: _PLAIN[t if isinstance(t, str) else t.__name__](d[k]) for k, t in fields.items() if k not in given}
    return cls(**plain, **given)


def plain_json(obj: Any, omit: tuple[str, ...] = (), **given: Any) -> dict[str, Any]:
    """A dataclass's recorded JSON: its fields in their order (but ``omit``), each ``given`` one as
    given (nested, tuples), the others as they are (plain values); ``plain_of`` reads it back."""
    fields = [f.name for f in dataclasses.fields(obj) if f.name not in omit]
    return {k: given[k] if k in given else getattr(obj, k) for k in fields}


__all__ = ["config_dir", "plain_json", "plain_of", "raise_validation"]
