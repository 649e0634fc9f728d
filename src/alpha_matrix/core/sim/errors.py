"""Errors of the simulated world, raised to its callers (the bridge node turns them into replies)."""

from __future__ import annotations

from alpha_matrix.core.errors import AlphaMatrixError


class WorldError(AlphaMatrixError, RuntimeError):
    """A command the world refuses (protective stop active, bad argument)."""
