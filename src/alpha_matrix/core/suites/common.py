"""Helpers every suite's file loaders share: where the package config is, and pydantic errors as one line."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

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


__all__ = ["config_dir", "raise_validation"]
