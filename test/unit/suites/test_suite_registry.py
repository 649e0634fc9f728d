"""The one suite switch: every suite a registry entry whose pieces resolve, names refused
in one line, marker topics that tell the bags apart, and no simulator behind the light modules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from alpha_matrix import nodes
from alpha_matrix.core.config import NodeParams
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.node_params import PARAM_MODELS
from alpha_matrix.core.suites import registry
from alpha_matrix.core.suites.common import config_dir
from alpha_matrix.core.suites.params import SuiteRunnerParams
from alpha_matrix.core.suites.suite import PIECES as LAYOUT
from alpha_matrix.core.suites.suite import Suite

PIECES = ("scenarios", "context", "summarize", "report", "progress", "audit", "agent_decisions")


def test_every_entry_is_one_suite_object_filed_under_its_own_name() -> None:
    for name in registry.SUITE_NAMES:
        s = registry.suite(name)
        assert isinstance(s, Suite) and s.name == name and registry.spec(name) is s
        assert registry.SUITES[name] == f"alpha_matrix.core.suites.{name}.plugin:SUITE"


@pytest.mark.parametrize("name", registry.SUITE_NAMES)
def test_every_piece_of_every_suite_is_where_its_layout_says(name: str) -> None:
    """A piece named wrong (module or function) fails here, not in the middle of a run."""
    s = registry.suite(name)
    for piece in [*LAYOUT, *s.pieces]:
        assert callable(s.piece(piece)), s.where(piece)
    for executable, model in s.node_params().items():  # its nodes: a parameter model each, and a node file
        assert issubclass(model, NodeParams) and executable in PARAM_MODELS, executable
        assert (Path(nodes.__file__).parent / f"{executable}.py").is_file(), executable


def test_a_piece_that_is_not_there_is_named() -> None:
    class Lost(Suite):
        name, marker_topic, audit_unit = "lost", "/lost", "decisions"
        pieces = {"report": "nowhere:report_lines", "plots": "suite:no_such_function"}

    Lost.__module__ = "alpha_matrix.core.suites.plugin"  # as if its folder were core/suites
    with pytest.raises(LookupError, match=r"suite lost: no module alpha_matrix\.core\.suites\.nowhere"):
        Lost().report([], {})
    with pytest.raises(LookupError, match=r"alpha_matrix\.core\.suites\.suite has no no_such_function"):
        Lost().plots([], Path("."))
    with pytest.raises(TypeError, match="unknown piece"):
        type("Odd", (Suite,), {"pieces": {"reprot": "report:report_lines"}})


@pytest.mark.parametrize("name", ["lidar", "", "confidence;rm", "__class__"])
def test_an_unknown_suite_is_one_line(name: str) -> None:
    with pytest.raises(ConfigError, match=r"^unknown suite .* \(known: confidence, alerts, proximity, .*ambiguity"):
        registry.spec(name)


@pytest.mark.parametrize("suite", registry.SUITE_NAMES)
def test_every_piece_is_a_method_and_every_config_file_is_a_runner_parameter(suite: str) -> None:
    s = registry.spec(suite)
    for piece in PIECES:
        assert callable(getattr(s, piece)), piece
    if s.config_file is not None:
        param, name = s.config_file
        assert param in SuiteRunnerParams.model_fields and (config_dir() / name).is_file()


@pytest.mark.parametrize("suite", registry.SUITE_NAMES)
def test_the_marker_topic_is_recorded_by_its_suite_only(suite: str) -> None:
    def recorded(name: str) -> set[str]:
        params = yaml.safe_load((config_dir() / f"params_{name}.yaml").read_text())
        return {t.split("=")[0] for t in params["recorder"]["ros__parameters"]["topics"]}

    topics = recorded(suite)
    assert registry.suite_of_topics(topics) == suite
    assert registry.suite_of_topics(topics - {"/suite/request"}) is None
    for other in registry.SUITE_NAMES:
        if other != suite:
            assert registry.spec(suite).marker_topic not in recorded(other)


@pytest.mark.parametrize("suite", registry.SUITE_NAMES)
def test_the_shipped_scenarios_encode(suite: str) -> None:
    requests = registry.scenario_requests(suite, None, None)
    assert requests and len({r.name for r in requests}) == len(requests)
    assert all(r.scenario_json.startswith("{") for r in requests)


def test_the_light_modules_reach_no_simulator() -> None:
    """The registry, records, contexts and the cores the nodes import load no pybullet or world; nor
    does loading every suite object and its situation schema (what the agent node and the record
    model ask of a suite)."""
    code = (
        "import sys\n"
        "import alpha_matrix.core.suites.registry, alpha_matrix.core.suites.records\n"
        "import alpha_matrix.core.suites.context, alpha_matrix.core.suites.audit_common\n"
        "import alpha_matrix.core.suites.proximity.run, alpha_matrix.core.suites.alerts.guard\n"
        "from alpha_matrix.core.suites.registry import SUITE_NAMES, suite\n"
        "for name in SUITE_NAMES:\n"
        "    s = suite(name)\n"
        "    s.situation_model(), s.brief_placeholders, s.marker_topic\n"
        "print(sorted(m for m in ('pybullet', 'alpha_matrix.core.sim.world') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


RAW = [[0, "{}", ""], [1, "{}", ""], [2, "", "no JSON"]]  # provenance_part: one entry per decision


@pytest.mark.parametrize(
    ("suite", "result", "decisions"),
    [
        ("confidence", {"calls": 4}, 0),  # no agent: the scripted executive decided
        ("confidence", {"agent": {"decisions": 3, "raw": RAW}}, 3),
        ("alerts", {"agent": {"raw": RAW[:1]}}, 1),
        ("proximity", {"agent": {"raw": []}}, 0),  # no frame to decide on
        ("refusal", {"agent": {"raw": RAW}}, 3),
        ("gauge", {"agent": {"decisions": 2}}, 2),
        ("gauge", {"truth": 1.0}, 0),
        ("hazards", {"agent": {"decision": "tool_call"}}, 1),
        ("hazards", {"agent": None}, 0),  # infeasible: never asked
        ("ambiguity", {"decisions": 3, "agent": {"raw": RAW}}, 3),  # one per turn
        ("ambiguity", {"agent": {"raw": RAW}}, 0),  # not run (no turn counted)
    ],
)
def test_a_result_says_how_many_agent_decisions_it_was_built_from(suite: str, result: dict, decisions: int) -> None:
    assert registry.agent_decisions(suite, result) == decisions


def test_the_runner_names_the_config_file_or_leaves_the_package_s() -> None:
    assert registry.runner_config_file("alerts", {"alerts_file": "/x/alerts.yaml", "skills_file": "/y"}) == Path(
        "/x/alerts.yaml"
    )
    assert registry.runner_config_file("confidence", {"skills_file": ""}) is None
    assert registry.runner_config_file("proximity", {"skills_file": "/y"}) is None


def test_a_package_config_file_is_named_the_same_in_every_checkout(tmp_path: Path) -> None:
    """A context is hashed into the run's config hash: the package's own files are named
    config/<name> there, not by the checkout's absolute path; a user's file keeps its path."""
    from alpha_matrix.core.suites.context import RecordedFile

    shipped = RecordedFile.read(config_dir() / "alerts.yaml")
    assert shipped.path == "config/alerts.yaml" and shipped.text == (config_dir() / "alerts.yaml").read_text()
    own = tmp_path / "alerts.yaml"
    own.write_text(shipped.text)
    assert RecordedFile.read(own).path == str(own) and RecordedFile.read(own).sha256 == shipped.sha256
