"""One generated set shared by the refusal tests (generation is deterministic and takes ~1 s)."""

from __future__ import annotations

import pytest

from alpha_matrix.core.suites.refusal.generate import RefusalItem, generate_items

SEED = 7
COUNT = 280


@pytest.fixture(scope="session")
def items() -> list[RefusalItem]:
    return generate_items(SEED, COUNT)
