"""core/suites/alerts/guard_feed.py: alert_guard's episode routing, messages as namespaces."""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from alpha_matrix.core.suites.alerts.guard_feed import GuardFeed, alert_event, robot_status
from alpha_matrix.core.suites.alerts.policy import AlertClass, StatusConfig
from alpha_matrix.core.suites.alerts.scenarios import AlertScenario, load_alert_policy

L = 24


@pytest.fixture(scope="module")
def policy():  # noqa: ANN201
    return load_alert_policy().policy


def scenario() -> AlertScenario:
    return NS(status=StatusConfig())  # the feed reads only the scenario's status model


def status(episode: str, step: int, issued: int = 0) -> NS:
    return NS(
        episode_id=episode, step=step, battery_pct=90.0, joint_temp_c=[35.0] * 7, actuator_ok=[True] * 7,
        alerts_issued=issued,
    )  # fmt: skip


def estop(episode: str, step: int, cleared: bool = False) -> NS:
    return NS(
        episode_id=episode, alert_id="es", alert_class=AlertClass.ESTOP_BUTTON.value, severity="critical",
        step=step, payload_json='{"button": "pendant"}', cleared=cleared,
    )  # fmt: skip


def test_messages_become_the_guards_events() -> None:
    ev = alert_event(estop("a", 40))
    assert ev.step == 40 and not ev.cleared and ev.alert.payload == {"button": "pendant"}
    assert alert_event(NS(**{**vars(estop("a", 40)), "payload_json": ""})).alert.payload == {}
    assert robot_status(status("a", 16)).joint_temp_c == (35.0,) * 7


def test_messages_wait_for_their_scenario_then_feed_in_order(policy) -> None:  # noqa: ANN001
    feed = GuardFeed(policy, L)
    assert feed.feed("alert", estop("a", 40)) is None and feed.feed("status", status("a", 48, 1)) is None
    assert feed.core is None and not feed.synced(0)
    waiting = feed.request("a", scenario())
    assert [k for k, _ in waiting] == ["alert", "status"] and feed.latest == "a"
    assert feed.feed(*waiting[0]) == []
    (stop,) = feed.feed(*waiting[1])
    assert stop.engage and stop.decision_step == 40 and feed.episode == "a"
    assert feed.synced(48) and not feed.synced(49)


def test_a_new_episode_retires_the_last_and_drops_its_late_messages(policy) -> None:  # noqa: ANN001
    feed = GuardFeed(policy, L)
    feed.request("a", scenario())
    feed.feed("status", status("a", 16))
    first = feed.core
    feed.request("b", scenario())
    assert not feed.synced(0)  # the robot runs b; the guard has seen none of it
    feed.feed("status", status("b", 8))
    assert feed.core is not first and feed.episode == "b" and feed.synced(8)
    assert feed.feed("status", status("a", 32)) is None and feed.core.watermark == 8
