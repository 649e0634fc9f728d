"""The README's recipes, run as written: every command of each block, in a fresh directory.

Only what a test cannot have is replaced, and each replacement is checked to be there: the
Ollama daemon by the transport double (its address for the recipe's ``OLLAMA_HOST``), and the
driver's domain by this test's own ROS domain. The robot is the recipe's own stand-in, the
simulated driver started as a separate process. A README whose commands drift from the command
line fails here.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from alpha_matrix.launcher import graph_env
from conftest import next_domain_id, wait_until

README = Path(__file__).resolve().parents[2] / "README.md"
VENV = Path(sys.prefix)


def recipe(name: str) -> str:
    """The bash block under ``<!-- recipe: NAME -->``."""
    m = re.search(rf"<!-- recipe: {name} -->\n```bash\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert m, f"README.md has no recipe {name!r}"
    return m.group(1)


def replaced(script: str, old: str, new: str) -> str:
    assert old in script, f"the recipe no longer contains {old!r}: update this test with the README"
    return script.replace(old, new)


def run_recipe(script: str, cwd: Path, env: dict[str, str], timeout: float = 600) -> str:
    """Run the block with bash -e in ``cwd`` (a ``.venv`` link to this venv there) and return its
    output; whatever it left running in the background (the driver) is stopped with its process
    group. Output goes to a file: a background process keeps a pipe open after bash exits."""
    link = cwd / ".venv"
    if not link.exists():
        link.symlink_to(VENV)
    log = cwd / f"recipe-{len(list(cwd.glob('recipe-*.log')))}.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            ["bash", "-e", "-c", script], cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            proc.wait(timeout=timeout)
        finally:
            for sig in (signal.SIGINT, signal.SIGKILL):  # the background driver: a clean stop, then sure
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    break
                wait_until(lambda: not _group_alive(proc.pid), 10, "the recipe's processes to stop")
            proc.wait()
    text = log.read_text()
    assert proc.returncode == 0, text[-4000:]
    return text


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.long
def test_own_model_recipe(tmp_path: Path, ollama_server) -> None:  # noqa: ANN001 - fixture
    script = recipe("own-model")
    model = re.search(r"--arms oracle,llm:(\S+)", script).group(1)  # type: ignore[union-attr]
    ollama_server.state.tags = [{"model": model, "digest": "sha256:" + "cd" * 32}]
    script = replaced(script, "export OLLAMA_HOST=http://127.0.0.1:11434", f"export OLLAMA_HOST={ollama_server.host}")
    out = run_recipe(script, tmp_path, graph_env(next_domain_id()))
    rows = (tmp_path / "runs" / "my-model" / "episodes.jsonl").read_text().splitlines()
    arms = Counter(json.loads(r)["arm"] for r in rows)
    assert arms == {"oracle": 4, f"llm:{model}": 4}, arms
    asked = {body["model"] for method, path, body in ollama_server.state.requests if path == "/api/chat"}
    assert asked == {model}, asked  # the planner and the suite's agent both asked the recipe's model
    assert (tmp_path / "runs" / "my-model-alerts" / "episodes.jsonl").stat().st_size > 0
    assert (tmp_path / "runs" / "my-model" / "report.html").exists()
    assert "backend auto" not in out  # the recipe names its backend


@pytest.mark.long
def test_driver_recipe_then_audit_recipe(tmp_path: Path) -> None:
    domain = next_domain_id()
    script = replaced(recipe("own-driver"), "export ROS_DOMAIN_ID=7 ", f"export ROS_DOMAIN_ID={domain} ")
    out = run_recipe(script, tmp_path, graph_env())
    assert "passed, 0 failed" in out and "success: 3/3" in out, out[-3000:]
    assert "[sim_bridge] " not in out  # the run left the driver alone (its own lines read "[sim_bridge]: ")
    audit = run_recipe(recipe("audit-a-bag"), tmp_path, graph_env(domain))
    assert re.search(r"on-my-driver\s.*oracle 3/3", audit), audit
    assert "3/3 episodes match" in audit
    assert "/robot/step_batch" in audit  # bag info


@pytest.mark.long
def test_ros2_control_arm_recipe(tmp_path: Path) -> None:
    """The graph through ros2_control_arm.launch.py against the simulated standard arm: the upstream
    `ros2 launch`, the arm adapter on FollowJointTrajectory/GripperCommand, the bag audited clean."""
    domain = next_domain_id()
    script = replaced(recipe("ros2-control-arm"), "export ROS_DOMAIN_ID=7 ", f"export ROS_DOMAIN_ID={domain} ")
    out = run_recipe(script, tmp_path, graph_env())
    assert "success: 3/3" in out and "3/3 episodes match" in out, out[-3000:]
    rows = [json.loads(r) for r in (tmp_path / "runs" / "on-my-arm" / "episodes.jsonl").read_text().splitlines()]
    assert [r["provenance"]["driver"] for r in rows] == ["arm_adapter"] * 3
    assert all(r["outcome"]["step_budget"] == 2400 for r in rows)
