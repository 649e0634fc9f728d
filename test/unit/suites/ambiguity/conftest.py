"""The shipped scenario file, loaded once for the suite's tests (generation is pure but not free)."""

from __future__ import annotations

from pathlib import Path

import pytest

from alpha_matrix.core.suites.ambiguity.scenarios import AmbiguitySuite, load_ambiguity_scenarios

SHIPPED = Path(__file__).resolve().parents[4] / "config" / "scenarios" / "ambiguity.yaml"


@pytest.fixture(scope="session")
def shipped_path() -> Path:
    return SHIPPED


@pytest.fixture(scope="session")
def shipped() -> AmbiguitySuite:
    return load_ambiguity_scenarios(SHIPPED)
