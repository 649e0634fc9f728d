"""alpha-matrix check-driver: the driver contract exercised against a live driver, one row per clause."""

from __future__ import annotations

import argparse
import os
from typing import Any

from alpha_matrix.cli.common import check_set_names, parse_sets
from alpha_matrix.core.errors import AlphaMatrixError, ConfigError


def cmd_check_driver(args: argparse.Namespace) -> int:
    from alpha_matrix.core.domains import check_domain_id
    from alpha_matrix.core.driver_check import judge, render
    from alpha_matrix.core.graph import default_config_dir
    from alpha_matrix.core.resolve import resolve_graph
    from alpha_matrix.launcher import graph_env
    from alpha_matrix.ros.driver_check import check_driver
    from alpha_matrix.ros.stop import ExecutorFailed
    from alpha_matrix.ros.transport import VARIABLES

    if args.domain_id is not None:
        check_domain_id(args.domain_id)
    # What the graph expects of its driver, from the same config the graph is started with.
    # A real-time driver is judged against the ros2_control driver's settings (its step budget).
    driver = "ros2_control" if args.real_time else ""
    check_set_names(list(args.set), args.config, driver=driver)
    graph = resolve_graph(args.config or default_config_dir(), parse_sets(args.set), driver=driver)
    bridge = graph.node("sim_bridge").parameters
    sim = bridge if not driver else resolve_graph(args.config or default_config_dir()).node("sim_bridge").parameters
    latency = args.latency if args.latency is not None else int(sim["reaction_latency_steps"])
    budget = args.budget if args.budget is not None else int(bridge["max_episode_steps"])
    if args.real_time and args.gating:
        raise ConfigError("--real-time and --gating exclude each other: a real-time driver never waits for acks")
    if not 0 < args.settle < budget:
        raise ConfigError(f"--settle {args.settle}: must be in [1, {budget - 1}] (the budget includes it)")
    env = graph_env(args.domain_id)
    os.environ.update({k: env[k] for k in ("ROS_DOMAIN_ID", *VARIABLES) if k in env})
    print(
        f"check-driver: ROS_DOMAIN_ID {os.environ.get('ROS_DOMAIN_ID', '0')}, L = {latency} steps, "
        f"budget {budget} steps, "
        + (
            "real time: stops timed to rest"
            if args.real_time
            else "gating on check_driver"
            if args.gating
            else "no gating check"
        ),
        flush=True,
    )
    try:
        facts = check_driver(latency, budget, args.settle, args.gating, args.timeout, args.real_time)
    except ExecutorFailed as err:  # a callback of the checker raised: one line, not a traceback
        raise AlphaMatrixError(f"check-driver: {err}") from None
    clauses = judge(facts, latency, budget, args.settle, args.gating, args.real_time)
    print(render(clauses))
    return 1 if any(c.ok is False for c in clauses) else 0


def register(sub: Any, graph_opts: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "check-driver",
        parents=[graph_opts],
        help="exercise the driver contract against a running driver and print a pass/fail table",
    )
    p.add_argument(
        "--domain-id", type=int, default=None, help="the driver's ROS_DOMAIN_ID (default $ROS_DOMAIN_ID or 0)"
    )
    p.add_argument("--latency", type=int, default=None, help="L, steps from decision to stop (default: the config's)")
    p.add_argument("--budget", type=int, default=None, help="episode step budget (default: the config's)")
    p.add_argument("--settle", type=int, default=120, help="settle steps of the check's resets (default 120)")
    p.add_argument(
        "--gating",
        action="store_true",
        help="the driver gates on check_driver (its gating_consumers include it): check bounded lookahead too",
    )
    p.add_argument(
        "--real-time",
        action="store_true",
        help="the driver runs on a real arm's clock (arm_adapter): stops accepted at any time, cut the running "
        "command and are timed to rest, instead of bounded lookahead, late refusals and decision + L",
    )
    p.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for any one answer (default 60)")
    p.set_defaults(func=cmd_check_driver)
