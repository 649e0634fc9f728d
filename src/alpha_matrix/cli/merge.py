"""alpha-matrix merge: join the shares of one run that machines ran with ``run --shard K/N``."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

from alpha_matrix.core.errors import AlphaMatrixError


def cmd_merge(args: argparse.Namespace) -> int:
    from alpha_matrix.core.matrix.report import write_report
    from alpha_matrix.core.matrix.summary import summarize
    from alpha_matrix.core.records import RunStore
    from alpha_matrix.core.run_plan import merge_requested
    from alpha_matrix.core.runlock import lock_dirs
    from alpha_matrix.core.shards import bag_dir_for, merge_records, shard_from_dir

    shards = [shard_from_dir(Path(d), k) for k, d in enumerate(args.shard_dirs)]
    ids = {run_id for run_id, _, _ in shards}
    if len(ids) > 1:
        raise AlphaMatrixError(
            f"the shard directories hold different runs ({', '.join(sorted(ids))}): merge one run at a time"
        )
    run_id = ids.pop()
    hashes = {json.loads(result.manifest).get("config_hash") for _, result, _ in shards}
    if len(hashes) > 1:
        raise AlphaMatrixError(f"run {run_id}: the shards were made with different configs; nothing merged")
    into = Path(args.into)
    run_dir, bags_run_dir = into / "runs" / run_id, into / "bags" / run_id
    with lock_dirs([run_dir, bags_run_dir], "merge"):
        for (_, result, bag), source in zip(shards, args.shard_dirs, strict=True):
            added = merge_records(run_dir, str(next(iter(hashes))), result)
            where = ""
            if bag is not None:
                dest = bag_dir_for(bags_run_dir, result.index, (bag / "metadata.yaml").read_bytes())
                if dest is not None:
                    shutil.copytree(bag, dest)
                where = f", bag -> {dest}" if dest is not None else ", bag already merged"
            print(f"{source}: {added} new record(s){where}")
        merge_requested(run_dir, [Path(d) / "runs" / run_id for d in args.shard_dirs])  # the whole run's size
    records = RunStore.read_only(run_dir)
    print(f"\nrun {run_id} ({len(shards)} shards)\n" + summarize(records.values()))
    print(f"report: {write_report(run_dir)}")
    return 0


def register(sub: Any, _graph_opts: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "merge",
        help="join the shares of one run (each a working directory of `run --shard K/N`) into one run and its bags",
    )
    p.add_argument(
        "shard_dirs", nargs="+", metavar="SHARD_DIR", help="a directory holding runs/<run id>/ and bags/<run id>/"
    )
    p.add_argument("--into", default=".", help="where runs/<run id> and bags/<run id>/worker-k go (default: here)")
    p.set_defaults(func=cmd_merge)
