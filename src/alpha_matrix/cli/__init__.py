"""alpha-matrix: run the graph from the plain-Python environment.

  alpha-matrix run        start the graph, run a batch of episodes (or the matrix), print the summary
  alpha-matrix suite S    run a safety suite through its graph (`alpha-matrix suite --help` lists them)
  alpha-matrix launch     start the graph and keep it up (Ctrl-C stops it)
  alpha-matrix graph      print the graph run would start with the same options (a dry run)
  alpha-matrix audit      replay a bag through the core evaluation and compare every verdict
  alpha-matrix report     write the report from a run directory's records
  alpha-matrix compare    pair two agents' suite runs decision by decision (McNemar, Wilson)
  alpha-matrix merge      join the shares of a run made with --shard K/N on several machines
  alpha-matrix check-driver  check a driver against the driver contract, clause by clause
  alpha-matrix calibrate  violent-contact threshold from a bag of nominal episodes
  alpha-matrix runs       list the run directories: start, kind, arms, n, success, model, last audit
  alpha-matrix board      many runs as one table: agents and models by suite and matrix (md, html, json)
  alpha-matrix bag info   what a bag holds (splits, sizes, times, topics), like ros2 bag info
  alpha-matrix --version  the installed version

Exit codes, the same for every command: 0 done (audit: everything matches); 1 a finding (an
audit mismatch or unreadable split, a run whose graph lost a node); 2 a user error (bad
arguments or config, no such bag, a held run id or busy domain), one line on stderr, never a
traceback; 130 interrupted. Each subcommand module registers its own parser (``register``).
"""

from __future__ import annotations

import argparse
import faulthandler
import signal
import sys
from pathlib import Path

from alpha_matrix import ctrl_c
from alpha_matrix.cli import (
    audit,
    bag,
    board,
    check_driver,
    compare,
    interrupted,
    launch,
    merge,
    report,
    run,
    runs,
    suite,
)
from alpha_matrix.cli.common import config_dir_problem, live_options
from alpha_matrix.cli.version import add_version
from alpha_matrix.core.errors import AlphaMatrixError, ConfigError
from alpha_matrix.orphans import die_with_parent_if_asked

# each: register(subparsers, graph_opts)
COMMANDS = (run, suite, launch, audit, report, compare, merge, check_driver, runs, board, bag)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="alpha-matrix", description=__doc__.split("\n\n")[0])
    add_version(parser)
    # --config and --set before the command (alpha-matrix --config DIR run) or after it (shown in
    # each command's help); only the commands that build a graph take them.
    parser.add_argument("--config", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--set", action="append", default=[], help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", required=True)
    graph_opts = argparse.ArgumentParser(add_help=False)
    graph_opts.add_argument(
        "--config",
        dest="config_after",
        type=Path,
        default=None,
        metavar="DIR",
        help="config directory (default: the package's config/)",
    )
    graph_opts.add_argument(
        "--set",
        dest="set_after",
        action="append",
        default=[],
        metavar="NODE.PARAM=VALUE",
        help="override a node parameter (repeatable; '/**.PARAM=VALUE' for the whole graph)",
    )
    graph_opts.set_defaults(reads_config=True)
    for command in COMMANDS:
        command.register(sub, graph_opts)
    for command_parser in sub.choices.values():  # the others take the words only to say why they do not apply
        if not command_parser.get_default("reads_config"):
            command_parser.add_argument("--config", dest="config_after", type=Path, help=argparse.SUPPRESS)
            command_parser.add_argument("--set", dest="set_after", action="append", default=[], help=argparse.SUPPRESS)
    return parser


def _graph_options(args: argparse.Namespace) -> None:
    """One --config and --set list, wherever they were given; refused where they cannot apply."""
    after = getattr(args, "config_after", None)
    if after is not None and args.config is not None and after != args.config:
        raise ConfigError(f"--config given twice ({args.config} and {after})")
    args.config = after or args.config
    args.set = args.set + getattr(args, "set_after", []) + live_options(args)
    if not getattr(args, "reads_config", False) and (args.config is not None or args.set):
        raise ConfigError(
            f"{args.command} reads what was recorded, never the config files: --config and --set do not apply to it"
        )
    if args.config is not None and (problem := config_dir_problem(args.config)):
        raise ConfigError(f"--config {args.config}: {problem}")


# Commands that may load the simulation (a suite's scenarios, records, audit): pybullet's import
# banner would open their output. The others stay light (report imports it for a suite run only).
SIM_COMMANDS = ("suite", "audit", "calibrate", "compare")


def main(argv: list[str] | None = None) -> int:
    die_with_parent_if_asked()
    ctrl_c.forget()  # no stop signal from an earlier command run in this process
    if argv is None:  # this process is the command (a caller passing argv keeps its own handlers)
        faulthandler.register(signal.SIGUSR1, all_threads=True)  # a hung command: kill -USR1 prints its stacks
        ctrl_c.install()  # a Ctrl-C that Python swallows (in an import's callback) still stops the command
    args = build_parser().parse_args(argv)
    if getattr(args, "window", None) == []:
        args.window = [1, 5, 10, 15, 30, 60]
    interrupted.forget()
    try:
        if args.command in SIM_COMMANDS:
            from alpha_matrix.console import import_pybullet_quietly  # here: the console brings in tqdm

            import_pybullet_quietly()
        _graph_options(args)
        code = args.func(args)
    except KeyboardInterrupt:
        code = 130
    except Exception as err:
        if ctrl_c.received():  # raised because of the Ctrl-C (an import it broke): the interrupt
            code = 130
        elif isinstance(err, AlphaMatrixError):
            print(f"alpha-matrix: error: {err}", file=sys.stderr)
            return 2
        else:
            raise
    if code == 130:  # Ctrl-C at any moment: how far the run got, in one line (cli/interrupted.py)
        try:
            if (line := interrupted.interrupted_line()) is not None:
                print(line, file=sys.stderr, flush=True)
        except (KeyboardInterrupt, OSError):  # a second Ctrl-C, an unreadable run: the exit code says it
            pass
    return code
