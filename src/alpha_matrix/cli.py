"""alpha-matrix: run the graph from the plain-Python environment.

  alpha-matrix run      start the graph, run a batch of episodes, print the summary
  alpha-matrix launch   start the graph and keep it up (Ctrl-C stops it)
  alpha-matrix graph    print the resolved graph (nodes, parameters, command lines)

Errors are one line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import yaml

from alpha_matrix.core.config import LLMPlannerParams
from alpha_matrix.core.errors import AlphaMatrixError, ConfigError
from alpha_matrix.core.graph import Graph, resolve_graph
from alpha_matrix.core.matrix.cells import ARMS, parse_arms, parse_cell_fault, validate_intensity
from alpha_matrix.core.planning.llm_planner import concrete_backend
from alpha_matrix.core.records import RunStore
from alpha_matrix.suite_cli import add_suite_parser


def _parse_sets(items: list[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        key, sep, value = item.partition("=")
        node, dot, param = key.partition(".")
        if not sep or not dot or not node or not param:
            raise ConfigError(f"--set {item!r}: expected NODE.PARAM=VALUE")
        try:
            out.setdefault(node, {})[param] = yaml.safe_load(value)
        except yaml.YAMLError:
            raise ConfigError(f"--set {item!r}: value is not valid YAML") from None
    return out


def check_environment() -> None:
    """Fail early, with the fix, when the ROS environment or the interface build is missing."""
    if importlib.util.find_spec("rclpy") is None:
        raise AlphaMatrixError("rclpy is not importable: run scripts/setup.sh (or source a ROS 2 install)")
    if importlib.util.find_spec("alpha_matrix_interfaces") is None:
        raise AlphaMatrixError(
            "alpha_matrix_interfaces is not built: run scripts/setup.sh (or colcon build and source install/setup.bash)"
        )


def _graph(
    args: argparse.Namespace, extra: dict[str, dict[str, Any]] | None = None, exclude: tuple[str, ...] = ()
) -> Graph:
    overrides = _parse_sets(args.set)
    for node, values in (extra or {}).items():
        overrides.setdefault(node, {}).update(values)
    if getattr(args, "replay_from", None):
        overrides.setdefault("llm_planner", {}).update(replay_from=args.replay_from, backend="replay")
    if getattr(args, "llm_backend", None):
        overrides.setdefault("llm_planner", {})["backend"] = args.llm_backend
    graph = resolve_graph(args.config, overrides, exclude=exclude)
    planners = [n for n in graph.nodes if n.executable == "llm_planner" and n.parameters["backend"] == "auto"]
    if not planners:
        return graph
    # "auto" is decided here, once, so the config hash (and the run id) name the backend that
    # actually runs: a resumed run cannot silently switch models.
    for node in planners:
        chosen = getattr(args, "_auto_backend", None) or concrete_backend(LLMPlannerParams(**node.parameters))
        args._auto_backend = chosen
        print(f"{node.name}: backend auto -> {chosen}", file=sys.stderr, flush=True)
        overrides.setdefault(node.name, {})["backend"] = chosen
    return resolve_graph(args.config, overrides, exclude=exclude)


def cmd_run(args: argparse.Namespace) -> int:
    from alpha_matrix.core.domains import check_domain_id
    from alpha_matrix.core.names import check_run_id, worker_bag_name
    from alpha_matrix.launcher import graph_env, guarded, run_graphs

    runner: dict[str, Any] = {}
    exclude: tuple[str, ...] = ()
    if args.run_id is not None:
        check_run_id(args.run_id, "--run-id")
    if args.domain_id is not None:
        check_domain_id(args.domain_id)
    if args.arms is not None:
        runner["arms"] = [a.strip() for a in args.arms.split(",") if a.strip()]
    if args.matrix:
        runner["matrix"] = True
    if args.no_faults:
        if args.matrix:
            raise ConfigError("--matrix needs the chaos node; drop --no-faults")
        exclude, runner["chaos"] = ("chaos",), False
    for opt, param in (
        ("episodes", "episodes"),
        ("run_id", "run_id"),
        ("runs_dir", "runs_dir"),
        ("seed", "master_seed"),
        ("first", "first_episode"),
    ):
        if getattr(args, opt) is not None:
            runner[param] = getattr(args, opt)
    if args.task_variant is not None:
        runner["task_variant"] = args.task_variant
    if args.fault is not None:
        runner["fault"] = parse_cell_fault(args.fault)
    if args.intensity is not None:
        runner["intensity"] = validate_intensity(args.intensity)
    if runner.get("fault", "none") != "none" and args.no_faults:
        raise ConfigError("--fault needs the chaos node; drop --no-faults")
    if args.workers < 1:
        raise ConfigError("--workers must be at least 1")
    graph = _graph(args, {"episode_runner": runner}, exclude=exclude)
    parse_arms(list(graph.node("episode_runner").parameters["arms"]), set(ARMS))
    check_environment()
    graphs = [graph]
    if args.workers > 1:  # one graph per worker, each on its own domain and with its own bag, one shared run directory
        graphs = []
        for w in range(args.workers):
            shard = {**runner, "run_id": graph.run_id, "shard_count": args.workers, "shard_index": w}
            extra = {"episode_runner": shard, "recorder": {"run_id": worker_bag_name(graph.run_id, w)}}
            graphs.append(_graph(args, extra, exclude=exclude))
    # Nothing starts (and nothing is written) while another live run holds runs/<id> or
    # bags/<id>, or a domain, or while a graph is already up on one of our domains.
    with guarded(graph, args.workers, _first_domain(args)) as domains:
        if args.workers == 1:
            runs = [(graph, graph_env(domains[0]), "")]
        else:
            runs = [(g, graph_env(d), f"w{w}") for w, (g, d) in enumerate(zip(graphs, domains, strict=True))]
            print(f"workers on ROS domains {', '.join(map(str, domains))}", file=sys.stderr, flush=True)
        code = run_graphs(runs)
        if code == 0:
            from alpha_matrix.core.matrix.report import write_report
            from alpha_matrix.core.matrix.summary import summarize

            runner_params = graph.node("episode_runner").parameters
            run_dir = Path(runner_params["runs_dir"]) / graph.run_id
            if args.workers > 1:
                print(
                    f"\nrun {graph.run_id} ({args.workers} workers)\n" + summarize(RunStore.read_only(run_dir).values())
                )
            print(f"report: {write_report(run_dir)}")
    return code


def _first_domain(args: argparse.Namespace) -> int | None:
    """The first graph's domain: --domain-id, else $ROS_DOMAIN_ID, else 0 for one graph and
    the pool (1..101) for --workers."""
    from alpha_matrix.core.domains import default_domain

    if args.domain_id is None and getattr(args, "workers", 1) > 1 and not os.environ.get("ROS_DOMAIN_ID", "").strip():
        return None
    return default_domain(args.domain_id)


def cmd_launch(args: argparse.Namespace) -> int:
    from alpha_matrix.core.domains import check_domain_id
    from alpha_matrix.launcher import graph_env, guarded, run_graph

    if args.domain_id is not None:
        check_domain_id(args.domain_id)
    graph = _graph(args, exclude=tuple(args.exclude))
    check_environment()
    with guarded(graph, 1, _first_domain(args), what="graph") as domains:
        return run_graph(graph, graph_env(domains[0]))


def cmd_graph(args: argparse.Namespace) -> int:
    from alpha_matrix.launcher import node_command

    graph = _graph(args)
    print(f"config hash: {graph.config_hash}")
    for n in graph.nodes:
        print(f"\n{n.name} ({n.role}): {' '.join(node_command(n, Path('<params.yaml>')))}")
        for k, v in n.parameters.items():
            print(f"  {k}: {v!r}")
    return 0


def _audit_bags(bag: Path) -> list[Path]:
    """The bag itself, or the worker-k bags of a multi-worker run's bag folder (one run)."""
    if not bag.exists():
        raise AlphaMatrixError(f"{bag}: no such bag")
    if (bag / "metadata.yaml").exists():
        return [bag]
    workers = [p for p in bag.glob("worker-*") if (p / "metadata.yaml").exists()]
    if not workers:
        raise AlphaMatrixError(f"{bag}: not a bag (no metadata.yaml, and no worker-k bags in it)")
    return sorted(workers, key=lambda p: (int(p.name[7:]) if p.name[7:].isdigit() else 1 << 30, p.name))


def _audit_run_dir(args: argparse.Namespace, bag: Path, bags: list[Path]) -> tuple[Path | None, list[str]]:
    """The run directory to compare with, and notes on how it was found."""
    from alpha_matrix.core.bag import RUN_ID_KEY, bag_custom_data

    if args.no_records:
        if args.run_dir:
            raise ConfigError("--run-dir and --no-records contradict each other")
        return None, []
    if args.run_dir:
        run_dir = Path(args.run_dir)
        if not run_dir.is_dir():
            raise AlphaMatrixError(f"{run_dir}: no such run directory (--run-dir)")
        return run_dir, []
    ids = {bag_custom_data(b).get(RUN_ID_KEY) for b in bags}
    notes = []
    if None in ids:  # a bag recorded before the recorder wrote its run id: guess from the folder
        ids.discard(None)
        worker = len(bags) == 1 and bag.name.startswith("worker-") and bag == bags[0]
        guess = bag.parent.name if worker else bag.name
        notes.append(f"note: the bag's metadata names no run id; guessed {guess!r} from its folder name")
        ids.add(guess)
    if len(ids) != 1:
        raise AlphaMatrixError(f"{bag}: bags of different runs ({', '.join(sorted(ids))}); audit them one by one")
    from alpha_matrix.core.names import check_run_id

    # The id is data read from the bag: a name under --runs-dir, never a path of its own.
    run_dir = Path(args.runs_dir) / check_run_id(ids.pop(), f"{bag}: the run id in its metadata")
    if not run_dir.is_dir():
        raise AlphaMatrixError(f"{run_dir}: no run directory for this bag (use --run-dir, --runs-dir, or --no-records)")
    return run_dir, notes


def _audit_header(bags: list[Path], bad: list[Any], run_dir: Path | None) -> str:
    from alpha_matrix.core.bag import bag_splits

    parts = []
    for b in bags:
        listed = bag_splits(b)
        n_bad = sum(1 for x in bad if x.path.parent == b)
        read = f"{len(listed) - n_bad} of {len(listed)} splits read" if n_bad else f"{len(listed)} splits read"
        parts.append(f"{b} ({read})")
    against = f"compared with records in {run_dir}" if run_dir is not None else "records not compared (--no-records)"
    return f"audit: {', '.join(parts)}; {against}"


def _audit_footer(bags: list[Path], bad: list[Any], notes: list[str]) -> None:
    from alpha_matrix.core.bag import unlisted_splits

    for line in notes:
        print(line)
    for b in bags:
        for split in unlisted_splits(b):
            print(f"note: {split.name} was being written when its recorder stopped; it is not part of the bag")
    for x in bad:
        print(str(x))


def _raise_unless_some_read(bags: list[Path], bad: list[Any]) -> None:
    """No episodes: a user error (exit 2) unless some splits were read and others were not."""
    from alpha_matrix.core.bag import bag_splits

    if bad and len(bad) == sum(len(bag_splits(b)) for b in bags):
        raise AlphaMatrixError(f"{bags[0]}: unreadable bag (no split readable; {bad[0]})")
    if not bad:
        raise AlphaMatrixError(f"{bags[0]}: no episodes in the bag")


def cmd_audit(args: argparse.Namespace) -> int:
    """Exit 0 all match, 1 a mismatch or an unreadable split, 2 a user error (no such bag, bad args)."""
    from alpha_matrix.core.bag import bag_metadata, tolerate_bad_splits
    from alpha_matrix.core.matrix.audit import audit_bag, format_notes, format_table, unbacked_records, window_sweep
    from alpha_matrix.core.suites.audit_common import audit_suite_bag, bag_suite, format_suite_table

    bag = Path(args.bag)
    bags = _audit_bags(bag)
    for b in bags:
        bag_metadata(b)  # a broken metadata.yaml is a one-line error before anything is read
    run_dir, notes = _audit_run_dir(args, bag, bags)
    suites = {bag_suite(b) for b in bags}
    if len(suites) > 1:
        raise AlphaMatrixError(f"{bag}: worker bags of different kinds ({', '.join(sorted(map(str, suites)))})")
    suite = suites.pop()
    with tolerate_bad_splits() as bad:  # every loader reads split by split and names the bad ones
        if suite is not None:
            if args.window:
                raise AlphaMatrixError("--window is for the matrix's safety monitor; this is a suite bag")
            found = [a for b in bags for a in audit_suite_bag(suite, b, run_dir)]
            if not found:
                _raise_unless_some_read(bags, bad)
            print(_audit_header(bags, bad, run_dir) + "\n")
            print(f"suite {suite}: replayed through the same core code as the live nodes\n")
            print(format_suite_table(suite, found))
            _audit_footer(bags, bad, notes)
            failed = [a for a in found if not a.ok]
            print(
                f"\n{len(found) - len(failed)}/{len(found)} episodes match"
                + (f"; MISMATCH in {', '.join(a.episode_id for a in failed)}" if failed else "")
                + (f"; {len(bad)} unreadable split{'s' if len(bad) > 1 else ''}" if bad else "")
            )
            return 1 if failed or bad else 0
        audits = [a for b in bags for a in audit_bag(b, run_dir)]
        if not audits:
            _raise_unless_some_read(bags, bad)
        sweep = {}
        if args.window:
            for b in bags:
                for w, (events, scans) in window_sweep(b, args.window).items():
                    e0, s0 = sweep.get(w, (0, 0))
                    sweep[w] = (e0 + events, s0 + scans)
    whole_run = not (len(bags) == 1 and bags[0].name.startswith("worker-"))
    unbacked = unbacked_records(audits, run_dir) if run_dir is not None and whole_run else []
    print(_audit_header(bags, bad, run_dir) + "\n")
    print(format_table(audits))
    _audit_footer(bags, bad, notes + format_notes(audits))
    if unbacked:
        print(f"MISMATCH: JSONL records in {run_dir} with no completed episode in the bag: {', '.join(unbacked)}")
    if sweep:
        print("\ndedup window sweep (offline): W -> unique events / raw scans")
        for w, (events, scans) in sweep.items():
            print(f"  W={w:<3} {events:>5} / {scans}")
    checked = [a for a in audits if a.audited]
    failed = [a for a in audits if not a.ok]
    interrupted = sum(a.interrupted_attempts for a in audits)
    print(
        f"\n{len(checked) - sum(1 for a in checked if not a.ok)}/{len(checked)} episodes match"
        + (f"; MISMATCH in {', '.join(a.episode_id for a in failed)}" if failed else "")
        + (f"; {len(unbacked)} records not in the bag" if unbacked else "")
        + (f"; {interrupted} interrupted attempt{'s' if interrupted > 1 else ''} not audited" if interrupted else "")
        + (f"; {len(bad)} unreadable split{'s' if len(bad) > 1 else ''}" if bad else "")
    )
    return 1 if failed or unbacked or bad else 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from alpha_matrix.core.matrix.audit import calibrate

    c = calibrate(Path(args.bag), args.margin, args.floor)
    print(f"nominal episodes: {c.episodes} ({c.steps} steps) from {args.bag}")
    print(f"largest judged arm contact force (exclusions applied): {c.max_judged:.2f} N")
    print(f"largest including the held block's reaction: {c.max_grasp:.2f} N ({c.where})")
    top = max(c.max_judged, c.max_grasp)
    print(f"threshold = max({top:.2f} N x {args.margin}, floor {args.floor} N) = {c.threshold:.2f} N")
    source = f"calibrated from {args.bag}: {c.episodes} nominal episodes, max {top:.2f} N x {args.margin}"
    print("\nto use it (config/params.yaml, safety_monitor.ros__parameters):")
    print(f'  contact_threshold: {c.threshold:.2f}\n  threshold_source: "{source}"')
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from alpha_matrix.core.matrix.report import write_report

    run_dir = Path(args.run_dir)
    if not (run_dir / "episodes.jsonl").exists():
        raise AlphaMatrixError(f"{run_dir}: no episodes.jsonl (not a run directory)")
    arms = tuple(a.strip() for a in args.arms.split(",")) if args.arms else None
    if arms is not None and len(arms) != 2:
        raise ConfigError("--arms takes exactly two arms, e.g. oracle,oracle-text")
    try:
        path = write_report(run_dir, arms=arms)
    except ValueError as err:
        raise AlphaMatrixError(f"{run_dir}: {err}") from None
    print(f"report: {path} (and report.html, plots/)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="alpha-matrix", description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, default=None, help="config directory (default: the package's config/)")
    parser.add_argument(
        "--set", action="append", default=[], metavar="NODE.PARAM=VALUE", help="override a node parameter"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    # --set also after the command (alpha-matrix run --set ...), added to any given before it.
    graph_opts = argparse.ArgumentParser(add_help=False)
    graph_opts.add_argument(
        "--set", dest="set_after", action="append", default=[], metavar="NODE.PARAM=VALUE", help=argparse.SUPPRESS
    )

    run = sub.add_parser(
        "run", parents=[graph_opts], help="run a batch of episodes through the graph and print the summary"
    )
    run.add_argument("--episodes", type=int, default=None, help="number of episodes (default from params.yaml)")
    run.add_argument("--first", type=int, default=None, help="index of the first episode")
    run.add_argument("--seed", type=int, default=None, help="master seed (default 42)")
    run.add_argument(
        "--run-id",
        default=None,
        help="run directory name: [A-Za-z0-9._-], up to 128 characters (default: derived from the config hash)",
    )
    run.add_argument("--runs-dir", default=None, help="where run directories go (default runs/)")
    run.add_argument(
        "--domain-id",
        type=int,
        default=None,
        help="ROS_DOMAIN_ID (0..101) of this graph, or of the first with --workers (default $ROS_DOMAIN_ID or 0)",
    )
    run.add_argument("--arms", default=None, help="comma-separated planner arms: oracle, oracle-text, llm")
    run.add_argument(
        "--llm-backend",
        choices=("auto", "ollama", "llamacpp", "replay"),
        default=None,
        help="the llm arm's backend (default auto: ollama if a daemon answers, else the embedded model)",
    )
    run.add_argument("--replay-from", default=None, help="replay backend: a run directory or a bag of an llm run")
    run.add_argument("--matrix", action="store_true", help="run the 75-cell fault matrix per arm")
    run.add_argument("--no-faults", action="store_true", help="leave the chaos node out of the graph")
    run.add_argument("--fault", default=None, help="without --matrix: every episode's fault (none, F1..F4, F1+F2)")
    run.add_argument("--intensity", type=float, default=None, help="without --matrix: the fault intensity in [0, 1]")
    run.add_argument(
        "--task-variant",
        choices=["open_loop", "closed_loop"],
        default=None,
        help="closed_loop: the block is nudged during the approach and the executive re-observes before the grasp",
    )
    run.add_argument(
        "--workers", type=int, default=1, help="graphs side by side on distinct ROS_DOMAIN_IDs (free ones in 1..101)"
    )
    run.set_defaults(func=cmd_run)

    launch = sub.add_parser("launch", parents=[graph_opts], help="start the graph and keep it up until Ctrl-C")
    launch.add_argument("--exclude", action="append", default=[], metavar="NODE", help="leave a node out")
    launch.add_argument(
        "--domain-id", type=int, default=None, help="ROS_DOMAIN_ID (0..101) of the graph (default $ROS_DOMAIN_ID or 0)"
    )
    launch.set_defaults(func=cmd_launch)

    graph = sub.add_parser("graph", parents=[graph_opts], help="print the resolved graph")
    graph.set_defaults(func=cmd_graph)
    audit = sub.add_parser("audit", help="replay a bag through the core evaluation and compare every verdict")
    audit.add_argument("bag", help="bag directory, e.g. bags/<run_id> (a --workers run: all its worker-k bags)")
    audit.add_argument(
        "--runs-dir",
        default="runs",
        help="where run directories are; the run is the one the bag's metadata names (default runs/)",
    )
    audit.add_argument("--run-dir", default=None, help="compare with this run directory (overrides the bag's run id)")
    audit.add_argument("--no-records", action="store_true", help="compare with the bag's own verdicts only")
    audit.add_argument(
        "--window",
        type=int,
        nargs="*",
        default=None,
        metavar="W",
        help="also re-run the dedup sweep offline (no value: W in 1 5 10 15 30 60)",
    )
    audit.set_defaults(func=cmd_audit)

    rep = sub.add_parser("report", help="write report.md/.html and plots from a run directory's JSONL alone")
    rep.add_argument("run_dir", help="e.g. runs/<run_id>")
    rep.add_argument("--arms", default=None, help="the two arms to pair, e.g. oracle,oracle-text")
    rep.set_defaults(func=cmd_report)

    cal = sub.add_parser("calibrate", help="violent-contact threshold from a bag of nominal episodes")
    cal.add_argument("bag", help="bag directory of nominal (fault-free) episodes")
    cal.add_argument("--margin", type=float, default=2.0, help="threshold = max nominal force x margin (default 2)")
    cal.add_argument("--floor", type=float, default=40.0, help="never below this, N (default 40)")
    cal.set_defaults(func=cmd_calibrate)
    add_suite_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.set = args.set + getattr(args, "set_after", [])
    if getattr(args, "window", None) == []:
        args.window = [1, 5, 10, 15, 30, 60]
    try:
        if args.config is not None and not args.config.is_dir():  # every command: never silently the default
            what = "not a directory" if args.config.exists() else "no such directory"
            raise ConfigError(f"--config {args.config}: {what}")
        return args.func(args)
    except AlphaMatrixError as err:
        print(f"alpha-matrix: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
