"""``alpha-matrix run|suite --ray``: the run's episodes (or scenarios) as shards, one Ray task each, merged into one run.

Ray schedules; nothing here is cluster code. A task runs the very command line the user typed
(without ``--ray``) as a subprocess on its machine, with its shard's indices, its own ROS domain
(leased on that machine, so two tasks of one machine never share one) and a temporary run and
bag directory; it returns the records and the bag as bytes, and the driver merges them through
the append-only store. The subprocess dies with the task (``ALPHA_MATRIX_DIE_WITH_PARENT``) and
its nodes die with it, so a killed task leaves no graph behind; Ray retries it, and a retried
shard adds no record twice. A resumed run sends each task the records already made: they are
skipped there, as in a local resume.
"""

from __future__ import annotations

import collections
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from alpha_matrix import ctrl_c
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.records import RunStore
from alpha_matrix.core.shards import (
    ShardResult,
    bag_dir_for,
    merge_records,
    pack_bag,
    run_files,
    tar_member,
    unpack_bag,
)
from alpha_matrix.orphans import ENV as DIE_WITH_PARENT

TMP_PREFIX = "alpha-matrix-shard-"  # + <run id>-<k>-: a shard's temporary run and bag directories
STALE_AFTER_S = 10.0  # a shard directory younger than this is never swept (it may be being made)
TAIL_LINES = 40  # of a failed shard's output, in its error
SHOWN = (
    "[episode_runner] [",
    "[suite_runner] [",
    "alpha-matrix: error",
)  # the shard's lines the driver shows: progress, errors
RETRIES = 2  # a task whose worker died, or whose graph failed, runs again up to this many times


class ShardFailed(AlphaMatrixError):
    """A shard's graph exited non-zero (Ray retries the task)."""


def run_shard(
    argv: Sequence[str], run_id: str, index: int, count: int, files: dict[str, bytes], cwd: str
) -> ShardResult:
    """One shard on this machine: the command line with this shard's indices, domain and directories."""
    from alpha_matrix.core.bag import holds_steps
    from alpha_matrix.core.domains import allocate, release
    from alpha_matrix.core.runlock import Hold, try_hold

    _sweep_stale()
    tmp = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{run_id}-{index}-"))
    held = try_hold(tmp / "lock")  # ours while this task lives: see _sweep_stale
    leases = []
    try:
        leases = allocate(1)  # a free domain of this machine, held while the graph runs (the command sees us hold it)
        run_dir = tmp / "runs" / run_id
        run_dir.mkdir(parents=True)
        for name, data in files.items():
            (run_dir / name).write_bytes(data)
        cmd = [
            *(sys.executable, "-m", "alpha_matrix.cli"),
            *argv,
            *("--run-id", run_id, "--runs-dir", str(tmp / "runs"), "--domain-id", str(leases[0].domain_id)),
            *("--set", f"recorder.bags_dir={tmp / 'bags'}"),
            *("--shard", f"{index}/{count}"),
        ]
        env = {**os.environ, DIE_WITH_PARENT: "1"}
        here = cwd if Path(cwd).is_dir() else str(tmp)
        code, tail = _run_quietly(cmd, env, here, f"shard {index}: ")
        if code != 0:
            raise ShardFailed(f"shard {index}/{count}: the graph exited {code}; its last lines:\n" + "\n".join(tail))
        bag = tmp / "bags" / run_id
        return ShardResult(
            index=index,
            manifest=(run_dir / "manifest.json").read_bytes(),
            records=(run_dir / "episodes.jsonl").read_bytes() if (run_dir / "episodes.jsonl").exists() else b"",
            bag_tar=pack_bag(bag) if (bag / "metadata.yaml").exists() and holds_steps(bag) else b"",
        )
    finally:
        release(leases)
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(held, Hold):
            held.release()


def _sweep_stale() -> None:
    """Remove the directories of shard tasks that were killed (their ``finally`` never ran): a
    shard holds its directory's lock while it lives, so a free lock is a dead shard's."""
    from alpha_matrix.core.runlock import Hold, try_hold

    for old in Path(tempfile.gettempdir()).glob(f"{TMP_PREFIX}*"):
        try:
            if not (old / "lock").exists() or time.time() - old.stat().st_mtime < STALE_AFTER_S:
                continue  # not made by run_shard, or just being made
            got = try_hold(old / "lock")
        except OSError:
            continue
        if isinstance(got, Hold):
            shutil.rmtree(old, ignore_errors=True)
            got.release()


def _run_quietly(cmd: list[str], env: dict[str, str], cwd: str, prefix: str) -> tuple[int, list[str]]:
    """Run ``cmd``; print only its progress and its errors (Ray shows them on the driver), keep the
    rest for a failure's message. Returns the exit code and the last lines."""
    tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
    with subprocess.Popen(
        cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.rstrip("\n")
            tail.append(line)
            if line.startswith(SHOWN):
                print(prefix + line, flush=True)
    return proc.returncode, list(tail)


def run_on_ray(
    address: str | None,
    argv: Sequence[str],
    run_id: str,
    config_hash: str,
    shards: int,
    run_dir: Path,
    bags_run_dir: Path,
    say: Callable[[str], None],
    store: Callable[[Path, str], RunStore[Any]] = RunStore,
) -> int:
    """Run ``shards`` tasks on the Ray cluster at ``address`` (None: RAY_ADDRESS, else a local
    one), merge each result as it arrives; 0 when every shard finished, 1 otherwise."""
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")  # every shard's progress line, not "repeated 4x"
    if not sys.stdout.isatty():
        os.environ.setdefault("RAY_COLOR_PREFIX", "0")
    import ray

    ray.init(address=address, include_dashboard=False, logging_level="ERROR", configure_logging=True)
    try:
        nodes = [n for n in ray.nodes() if n.get("Alive")]
        say(f"ray: {len(nodes)} node(s), {int(ray.cluster_resources().get('CPU', 0))} CPU(s); {shards} shard(s)")
        files = run_files(run_dir) if run_dir.exists() else {}
        task: Any = ray.remote(num_cpus=1, max_retries=RETRIES, retry_exceptions=[ShardFailed])(run_shard)
        pending = {task.remote(list(argv), run_id, k, shards, files, os.getcwd()): k for k in range(shards)}
        failed, merging = 0, 0.0
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1, timeout=ctrl_c.POLL_S)
            ctrl_c.check()  # a Ctrl-C that Python swallowed stops the wait too (ctrl_c.py)
            if not done:
                continue
            k = pending.pop(done[0])
            try:
                result: ShardResult = ray.get(done[0])
            except Exception as err:  # a task that failed after its retries: the others still merge
                failed += 1
                say(f"shard {k}: failed after {RETRIES} retries ({_one_line(err)})")
                continue
            t0 = time.perf_counter()
            added = merge_records(run_dir, config_hash, result, store)
            where = ""
            dest = bag_dir_for(bags_run_dir, k, tar_member(result.bag_tar, "metadata.yaml")) if result.bag_tar else None
            if dest is not None:
                unpack_bag(result.bag_tar, dest)
                where = f", bag {dest} ({len(result.bag_tar) / 1e6:.1f} MB)"
            merging += time.perf_counter() - t0
            say(f"shard {k}: {added} new record(s){where}")
        say(f"merged {shards - failed} shard(s) in {merging:.2f} s")
        return 1 if failed else 0
    finally:
        ray.shutdown()
        _sweep_stale()  # what a killed task of this machine left


def _one_line(err: BaseException) -> str:
    cause = err.cause if hasattr(err, "cause") and err.cause is not None else err  # RayTaskError wraps ours
    return " ".join(str(cause).split())[:300]
