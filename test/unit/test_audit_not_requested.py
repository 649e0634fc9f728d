"""The audit leaves out episodes a run never asked for (a driver's history from before the run)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from alpha_matrix.cli.audit import _not_requested
from alpha_matrix.core.run_plan import record_request


@dataclass
class _Audit:
    episode_id: str


def test_episodes_not_requested_are_noted_not_audited(tmp_path: Path) -> None:
    record_request(tmp_path, "sha256:x", {}, ["oracle-0000", "oracle-0001"])
    audits = [_Audit("check_driver-1"), _Audit("oracle-0000"), _Audit("oracle-0001"), _Audit("check_driver-2")]
    kept, notes = _not_requested(audits, tmp_path)
    assert [a.episode_id for a in kept] == ["oracle-0000", "oracle-0001"]
    assert len(notes) == 1 and notes[0].startswith("note: check_driver-1, check_driver-2: in the bag but not requested")


def test_without_a_request_list_every_episode_stays(tmp_path: Path) -> None:
    audits = [_Audit("check_driver-1"), _Audit("oracle-0000")]
    assert _not_requested(audits, tmp_path) == (audits, [])
    assert _not_requested(audits, None) == (audits, [])
