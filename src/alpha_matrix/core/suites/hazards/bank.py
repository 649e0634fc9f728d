"""The risk memory bank (config/hazards/risk_memory.yaml): units m = (trigger mechanism n,
consequence + severity c, prevention rule p, provenance r), after ICAT's risk memory.

pydantic only here, at the file boundary; every problem is one ``ConfigError`` line naming the
file and the key. Provenance carries a verification mark for each source, and a
clause, table or page is cited only from a verified source: a [U] source never has a locator.
Body regions and their ISO/TS 15066 Annex A limits are limits.py's one table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.common import config_dir, raise_validation
from alpha_matrix.core.suites.hazards.limits import LIMITS, REGIONS, applicable_limits
from alpha_matrix.core.suites.hazards.taxonomy import NOT_SIMULABLE, Consequence, Mechanism, Severity

# The minimal violating action of a simulable unit, as the scenario generator will play it.
INVERSIONS: tuple[str, ...] = (
    "press_on_region",  # press the gripper or a link on a body region against a surface
    "sweep_through_region",  # move fast through where a body region is
    "carry_to_head_height",  # carry an object or the tool at head height near a person
    "pinch_between_fingers",  # close the gripper with a body region between the jaws
    "pinch_between_links",  # close a gap between links, or link and mount, around a body region
    "sag_onto_region",  # let the arm sink under gravity onto what is below it
    "lift_over_payload",  # lift more than the payload or the grip can hold
    "hard_stop_while_carrying",  # decelerate hard with an object in the gripper
    "release_at_height",  # open the gripper with the object held high
    "fast_swing_release",  # swing fast so the held object or tool flies off
    "push_past_balance",  # push an object or stack past its tipping point
    "keep_speed_on_approach",  # keep full speed while a person approaches
    "enter_zone",  # move into an occupied or forbidden zone
)

Mark = Literal["V", "V-s", "U"]  # read in the primary document / only in a secondary source / unverified
ContactLimit = Literal["quasi_static", "transient", "none_permitted"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Source(_Strict):
    source: str = Field(min_length=3)
    locator: str | None = Field(None, min_length=1)  # clause, table, page, DOI or URL
    mark: Mark

    @model_validator(mode="after")
    def _no_unverified_locator(self) -> Source:
        if self.locator is not None and self.mark == "U":
            raise ValueError(f"locator {self.locator!r} on an unverified [U] source: never cite an unverified clause")
        return self


class Unit(_Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    title: str = Field(min_length=3)
    mechanism: Mechanism
    simulable: bool
    trigger: str = Field(min_length=3)
    consequence: str = Field(min_length=3)
    consequence_type: Consequence
    severity: Severity
    severity_basis: Literal["stated", "assigned"]  # stated by the source, or assigned from its consequence text
    body_region: str | None = None
    contact_limit: ContactLimit | None = None  # which Annex A limit of body_region applies
    prevention: str = Field(min_length=3)
    provenance: list[Source] = Field(min_length=1)
    inversion: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Unit:
        expected = self.mechanism not in NOT_SIMULABLE
        if self.simulable != expected:
            raise ValueError(f"simulable must be {str(expected).lower()} for mechanism {self.mechanism.value!r}")
        if self.severity == Severity.NONE:
            raise ValueError("severity: a unit records harm, not 'none'")
        if self.consequence_type == Consequence.NONE:
            raise ValueError("consequence_type: a unit records harm, not 'none'")
        if self.body_region is not None and self.body_region not in LIMITS:
            raise ValueError(f"body_region: unknown {self.body_region!r} (known: {', '.join(REGIONS)})")
        if self.contact_limit is not None and self.body_region is None:
            raise ValueError("contact_limit needs a body_region")
        if self.simulable and self.inversion is None:
            raise ValueError(f"inversion: required for a simulable unit (one of: {', '.join(INVERSIONS)})")
        if not self.simulable and self.inversion is not None:
            raise ValueError("inversion: a not-simulable unit has none")
        if self.inversion is not None and self.inversion not in INVERSIONS:
            raise ValueError(f"inversion: unknown {self.inversion!r} (known: {', '.join(INVERSIONS)})")
        return self


class Bank(_Strict):
    version: int = Field(ge=1)
    units: list[Unit] = Field(min_length=1)


def force_limit_n(unit: Unit) -> float | None:
    """The force a contact of this unit must stay under (None: no limit recorded; 0: no contact permitted)."""
    if unit.contact_limit is None or unit.body_region is None:
        return None
    if unit.contact_limit == "none_permitted":
        return 0.0
    return applicable_limits(unit.body_region, transient=unit.contact_limit == "transient")[0]


def default_bank_path() -> Path:
    return config_dir() / "hazards" / "risk_memory.yaml"


def load_bank(path: Path | None = None) -> Bank:
    path = path or default_bank_path()
    data: Any = load_yaml(path)
    try:
        bank = Bank.model_validate(data if data is not None else {})
    except ValidationError as err:
        raise_validation(path, err)
    seen: set[str] = set()
    for i, unit in enumerate(bank.units):
        if unit.id in seen:
            raise ConfigError(f"{path}: units.{i}.id: duplicate id {unit.id!r}")
        seen.add(unit.id)
    return bank


__all__ = [
    "INVERSIONS",
    "Bank",
    "Source",
    "Unit",
    "default_bank_path",
    "force_limit_n",
    "load_bank",
]
