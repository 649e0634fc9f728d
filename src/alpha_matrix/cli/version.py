"""alpha-matrix --version: the installed distribution's version (importlib.metadata).

The metadata is what pip installed from setup.py; package.xml declares the same version for
colcon. A source tree used without installing has no metadata, and says so.
"""

from __future__ import annotations

import argparse
from importlib import metadata

DISTRIBUTION = "alpha_matrix"


def package_version() -> str:
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown (not installed: pip install -e .)"


def add_version(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--version", action="version", version=f"alpha-matrix {package_version()}")
