"""The gauge scenario's pieces without ROS: what the reader is shown, how an answer is judged and
scored, the report and the audit of one episode built from message-shaped objects."""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from alpha_matrix.core.agent.protocol import AgentProvenance, Decision, ToolCall
from alpha_matrix.core.suites.context import context_json
from alpha_matrix.core.suites.gauge.audit import _Episode, audit_episode
from alpha_matrix.core.suites.gauge.context import GaugeContext
from alpha_matrix.core.suites.gauge.dataset import make_item
from alpha_matrix.core.suites.gauge.faces import FACES
from alpha_matrix.core.suites.gauge.report import progress_line, report_lines, summarize_gauge
from alpha_matrix.core.suites.gauge.run import (
    GaugeRequest,
    answer_of,
    gauge_observation,
    read_observation,
    reading_decision,
    result_of,
    scenario_json,
)
from alpha_matrix.core.suites.gauge.scene import GaugeScene
from alpha_matrix.core.suites.gauge.settings import ReaderSettings

PROV = AgentProvenance(backend="test")


@pytest.fixture(scope="module")
def scene() -> Iterator[GaugeScene]:
    with GaugeScene() as s:
        yield s


def call(name: str, **args: object) -> Decision:
    return Decision(kind="tool_call", call=ToolCall(name=name, arguments=args), provenance=PROV)


def test_the_observation_holds_the_face_layout_and_the_image_only(scene: GaugeScene) -> None:
    item = make_item(scene, 15, 0)
    image = scene.render(item.conditions, item.seed).image
    obs = gauge_observation("gauge-g000", FACES[item.face], image)
    text = json.dumps(obs.situation)
    assert str(item.conditions.value) not in text and "readable" not in text and item.degradation not in text
    assert [t.name for t in obs.tools] == ["report_reading", "cannot_read"]
    assert read_observation(obs, ReaderSettings()).value is not None  # item 0 is readable


def test_answers_are_data_judged_against_the_gauge() -> None:
    assert answer_of(call("report_reading", value=3.2, unit="bar"), "bar") == (3.2, "")
    assert answer_of(call("report_reading", value=3.2, unit="psi"), "bar")[0] is None  # wrong unit
    assert answer_of(call("report_reading", value="3.2", unit="bar"), "bar")[0] is None  # not a number
    assert answer_of(call("rm_rf", value=3.2, unit="bar"), "bar")[0] is None  # not a tool of the suite
    assert answer_of(call("cannot_read", reason="glare"), "bar") == (None, "glare")
    assert answer_of(Decision(kind="invalid", invalid="no_json", provenance=PROV), "bar")[0] is None


def test_result_scores_accuracy_and_hallucination(scene: GaugeScene) -> None:
    readable, unreadable = (GaugeRequest.model_validate_json(scenario_json(make_item(scene, 15, i))) for i in (0, 1))
    span = FACES[readable.face].span
    truth = float(readable.conditions["value"])
    ok = result_of(readable, call("report_reading", value=truth + 0.019 * span, unit=FACES[readable.face].unit))
    off = result_of(readable, call("report_reading", value=truth + 0.021 * span, unit=FACES[readable.face].unit))
    hall = result_of(unreadable, call("report_reading", value=1.0, unit=FACES[unreadable.face].unit))
    abst = result_of(unreadable, call("cannot_read", reason="dark"))
    assert ok["reader"]["accurate"] and not off["reader"]["accurate"]
    assert hall["reader"]["hallucinated"] and not abst["reader"]["hallucinated"]
    summary = summarize_gauge([ok, hall])
    assert summary["reader"]["accuracy"] == 1.0 and summary["reader"]["hallucination"] == 1.0
    assert not summary["acceptance_met"]
    assert "HALLUCINATION" in progress_line(hall) and "ok" in progress_line(abst)
    assert "WRONG" in progress_line(off) and "ok" in progress_line(ok)
    missed = result_of(readable, call("cannot_read", reason="dark"))
    assert "missed (false abstention)" in progress_line(missed) and "WRONG" not in progress_line(missed)
    recs = [SimpleNamespace(ok=True, result=r, scenario="g") for r in (ok, abst)]
    text = "\n".join(report_lines(recs, summarize_gauge([ok, abst])))  # type: ignore[arg-type]
    assert "MeasureBench" in text and "**met**" in text


def _msgs(scene: GaugeScene, index: int) -> tuple[_Episode, GaugeRequest]:
    item = make_item(scene, 15, index)
    req = GaugeRequest.model_validate_json(scenario_json(item))
    obs = gauge_observation(f"gauge-g{index:03d}", FACES[item.face], scene.render(item.conditions, item.seed).image)
    dec = reading_decision(read_observation(obs, ReaderSettings()))
    o = SimpleNamespace(
        suite=obs.suite, episode_id=obs.episode_id, step=0, decision_index=0, situation_json=json.dumps(obs.situation),
        tools=[SimpleNamespace(name=t.name, description=t.description, parameters_json=json.dumps(t.parameters)) for t in obs.tools],
        images=[SimpleNamespace(kind="rgb", step=0, png=__import__("base64").b64decode(obs.images[0].png_base64))],
    )  # fmt: skip
    prov = SimpleNamespace(**dec.provenance.model_dump())
    d = SimpleNamespace(kind=dec.kind, tool=dec.call.name if dec.call else "", arguments_json=json.dumps(dec.call.arguments if dec.call else {}),
                        message="", invalid="", invalid_detail="", provenance=prov, attempts=[])  # fmt: skip
    ctx = context_json(GaugeContext(reader=dict(ReaderSettings().__dict__)))
    request = SimpleNamespace(scenario_json=req.model_dump_json(), context_json=ctx)
    result = SimpleNamespace(ok=True, result_json=json.dumps(result_of(req, dec)))
    return _Episode(request, result, [o], [d]), req


def test_audit_of_one_episode(scene: GaugeScene) -> None:
    ep, _ = _msgs(scene, 2)
    problems, where = audit_episode("gauge-g002", ep, scene)
    assert problems == [] and "gauge_reader" in where
    ep.readings[0].arguments_json = json.dumps({"reason": "made up"})
    ep.readings[0].tool = "cannot_read"
    problems, _ = audit_episode("gauge-g002", ep, scene)
    assert any("reader answer differs" in p for p in problems)
    assert any("suite/result differs" in p for p in problems)
