"""alpha-matrix bag info: what a bag holds, like ``ros2 bag info`` (core/bag_info.py).

Exit 0, or 1 when a listed split cannot be read (a finding, as in audit), 2 for a path that is
no bag (one line).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def cmd_bag_info(args: argparse.Namespace) -> int:
    from alpha_matrix.core.bag_info import bag_infos, format_bag_info

    bag = Path(args.bag)
    infos = bag_infos(bag)
    if len(infos) > 1 or infos[0].path != bag:
        print(f"{bag}: the bag folder of a --workers run, {len(infos)} worker bags\n")
    print("\n\n".join(format_bag_info(info, args.splits) for info in infos))
    return 1 if any(info.bad for info in infos) else 0


def register(sub: Any, _graph_opts: argparse.ArgumentParser) -> None:
    bag = sub.add_parser("bag", help="inspect a bag: alpha-matrix bag info BAG")
    what = bag.add_subparsers(dest="bag_command", required=True)
    info = what.add_parser("info", help="splits, sizes, times, messages per topic, the run id, unreadable splits")
    info.add_argument("bag", help="bag directory, e.g. bags/<run_id> (a --workers run: all its worker-k bags)")
    info.add_argument(
        "--splits", action="store_true", help="list every split (a bag of many splits lists its first and last few)"
    )
    info.set_defaults(func=cmd_bag_info)
