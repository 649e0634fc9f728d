"""Benchmark: decision latency per agent backend available on this machine, per suite.

Times ``Agent.decide`` (render the prompt, ask, judge the answer) as the agent node does, on
synthetic observations (no camera, no ROS): proximity, one approach (a person walks in from 4 m
to 0.7 m of a 1 m threshold and out again, seen through the detector's estimates); confidence,
the first decision of a two-block sort; alerts, an e-stop raised and a command waiting while it
is active, in turn. Always: ``reference`` and ``always:continue_task`` (the protocol's own
cost) and ``llamacpp`` (the embedded Gemma 3 270M). ``ollama`` only when a daemon answers with
the model given. Prints per backend: load time, median / p95 / max decision latency, what a
person walking at 1.6 m/s covers in the median, and the ratio to the 0.1 s frame period (above
1: the model could not keep up with the camera on a real robot, where time does not wait).

usage: python benchmarks/bench_agent.py [--decisions N] [--suite all|proximity|confidence|alerts]
                                       [--ollama-model llama3.1]
"""

from __future__ import annotations

import argparse
import statistics
import time

from alpha_matrix.core.agent.agent import Agent, ready_backend
from alpha_matrix.core.agent.params import AgentParams
from alpha_matrix.core.agent.protocol import InfrastructureAbort, Observation
from alpha_matrix.core.agent.spec import parse_agent_spec
from alpha_matrix.core.backends.errors import BackendError
from alpha_matrix.core.suites import registry
from alpha_matrix.core.suites.alerts.agent_link import AlertAgentLink
from alpha_matrix.core.suites.alerts.guard import AlertEvent
from alpha_matrix.core.suites.alerts.policy import Alert, AlertClass, Severity
from alpha_matrix.core.suites.confidence.scenarios import load_confidence_scenarios, load_skills_config
from alpha_matrix.core.suites.confidence.situation import confidence_brief, confidence_situation, observation
from alpha_matrix.core.suites.confidence.skills import SkillState
from alpha_matrix.core.suites.proximity.agent_link import AgentLink
from alpha_matrix.core.suites.proximity.agent_score import WALKING_SPEED
from alpha_matrix.core.suites.proximity.situation import FrameEstimate

FRAME_S = 0.1


def observations(n: int) -> list[Observation]:
    """n decision points of one approach: 4.0 m -> 0.7 m -> 4.0 m at 2 m/s, one per 0.1 s frame."""
    link = AgentLink("bench-a02", threshold_m=1.0, every=1, latency=24, reference_frames=0)
    out = []
    for k in range(n):
        t = (k % 34) * FRAME_S  # 3.3 s in, 3.3 s out, then again
        d = 4.0 - 2.0 * t if t <= 1.65 else 0.7 + 2.0 * (t - 1.65)
        obs = link.on_estimate(FrameEstimate(144 + 24 * k, True, round(d, 3), 0.9, 1, (0.1 - d, 0.0)))
        assert obs is not None
        out.append(obs)
    return out


def confidence_observations(n: int) -> list[Observation]:
    """n first decisions of the sort_two task (each its own episode: the reference starts afresh)."""
    suite = load_skills_config()
    sc = next(s for s in load_confidence_scenarios(suite=suite) if s.task.name == "sort_two")
    brief = confidence_brief(sc.task, suite.confidence.threshold, suite.geometry)
    state = SkillState({"red": (0.5, -0.1, 0.65), "green": (0.6, 0.05, 0.65), "blue": (0.45, 0.1, 0.65),
                        "yellow": (0.65, -0.25, 0.65)})  # fmt: skip
    return [observation(confidence_situation(brief, state, 121), f"bench-c{k}", 0) for k in range(n)]


def alerts_observations(n: int) -> list[Observation]:
    """An e-stop at step 300, then a command at 350 while it is active; again, n decisions."""
    estop = Alert("es1", AlertClass.ESTOP_BUTTON, Severity.CRITICAL, 300, {"button": "pendant"})
    out: list[Observation] = []
    for k in range((n + 1) // 2):
        link = AlertAgentLink(f"bench-a{k}", "pick up the red block and place it in the place zone")
        out.append(link.on_event(AlertEvent(estop, 300, False), False) or out[-1])
        out.append(link.on_command("move_to(0.434, 0.126, 0.765)", 350, True))
    return out[:n]


def bench(spec_text: str, obs: list[Observation]) -> None:
    spec = parse_agent_spec(spec_text)
    t0 = time.perf_counter()
    try:
        backend = ready_backend(spec, AgentParams(agent=spec_text), registry.suite)
    except (BackendError, InfrastructureAbort) as err:
        print(f"{spec.label:24s} skipped: {err}")
        return
    load = time.perf_counter() - t0
    agent = Agent(backend, registry.suite)
    lat, kinds = [], []
    for o in obs:
        t = time.perf_counter()
        d = agent.decide(o)
        lat.append(time.perf_counter() - t)
        kinds.append(d.kind)
    lat.sort()
    med, p95 = statistics.median(lat), lat[min(len(lat) - 1, int(0.95 * len(lat)))]
    valid = sum(k == "tool_call" for k in kinds)
    walk = (
        f" | {WALKING_SPEED:g} m/s covers {WALKING_SPEED * med:5.2f} m | median / frame period {med / FRAME_S:7.2f}"
        if obs[0].suite == "proximity"
        else ""
    )
    print(
        f"{spec.label:24s} load {load:6.2f} s | decision median {med * 1e3:9.2f} ms, p95 {p95 * 1e3:9.2f} ms, "
        f"max {lat[-1] * 1e3:9.2f} ms{walk} | valid tool calls {valid}/{len(kinds)}"
    )


SUITES = {"proximity": observations, "confidence": confidence_observations, "alerts": alerts_observations}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decisions", type=int, default=10)
    ap.add_argument("--suite", choices=("all", *SUITES), default="all")
    ap.add_argument("--ollama-model", default="", help="also time this Ollama model (must be pulled)")
    args = ap.parse_args()
    for suite in SUITES if args.suite == "all" else (args.suite,):
        obs = SUITES[suite](args.decisions)
        print(f"{len(obs)} {suite} decisions per backend (Agent.decide: render, ask, judge)")
        for spec in (
            "reference",
            "always:continue_task",
            "llm",
            *([f"llm:{args.ollama_model}"] if args.ollama_model else []),
        ):
            bench(spec, obs)


if __name__ == "__main__":
    main()
