"""Bags recorded by earlier versions of the code still audit clean against their records."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BAGS = Path(__file__).resolve().parents[1] / "bags"


@pytest.mark.parametrize("run_id", ["matrix-pre-layout", "alerts-pre-layout"])
def test_an_old_bag_audits_clean(run_id: str, tmp_path: Path) -> None:
    run_dir = shutil.copytree(BAGS / "runs" / run_id, tmp_path / run_id)  # the audit logs into its run directory
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "alpha_matrix.cli",
            "audit",
            str(BAGS / "bags" / run_id),
            "--run-dir",
            str(run_dir),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2/2 episodes match" in done.stdout
    assert "interrupted" not in done.stdout
    assert '"verdict":"clean"' in (run_dir / "audits.jsonl").read_text()
