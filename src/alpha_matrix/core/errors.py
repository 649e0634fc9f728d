"""Errors the CLI turns into one line and a non-zero exit (never a traceback)."""

from __future__ import annotations


class AlphaMatrixError(Exception):
    """Base of every error meant for the user. ``str(err)`` is the one line to print."""


class ConfigError(AlphaMatrixError):
    """A configuration file or option is invalid."""


class GraphError(AlphaMatrixError):
    """The node graph could not start or stopped unexpectedly."""


class RecordError(AlphaMatrixError):
    """An episode record or run directory is inconsistent."""
