"""What every suite audit shares: the verdict, the bag's attempts, the recorded context, the table.

Each suite's audit lives with the suite (``<suite>/audit.py``); ``audit_suite_bag`` picks it
through the registry. A suite audit replays the recorded inputs of every episode through the
same core code as the live nodes and compares every recorded decision and the result.

Context: every ``SuiteRequest`` carries the run's context (core/suites/context.py: policy file,
L, skills file, as the resolved graph gave them), so an audit reads nothing from today's config.
A bag whose request carries no context cannot be audited where the audit needs one: that is a
problem of the episode, never a silent default (``request_context``).

Attempts: a suite run killed mid-scenario and resumed leaves the partial scenario and its
re-run in the bag under one episode id. ``core/attempts.split_attempts`` separates them (the
robot's step stream starting over, or a second request); the attempt that produced the result
is audited, the others are counted (``SuiteAudit.interrupted_attempts``).

Order: every list is sorted by a total key from the messages (steps, query indices), never
taken in the order the recorder happened to log two topics.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from alpha_matrix.core.bag import BagError, bag_metadata, episode_attempts
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites import registry
from alpha_matrix.core.suites.agent_common import infrastructure_aborts
from alpha_matrix.core.suites.context import SuiteContext
from alpha_matrix.core.suites.registry import audit_suite_bag, parse_context
from alpha_matrix.core.suites.suite import SuiteAudit

NOT_TODAY = " (never taken from today's config)"


def bag_suite(bag_dir: Path) -> str | None:
    """The suite whose topics the bag holds (registry marker topics), else None."""
    try:
        topics = {t["topic_metadata"]["name"] for t in bag_metadata(bag_dir)["topics_with_message_count"]}
    except (BagError, KeyError, TypeError):
        return None  # the matrix audit reports a missing or broken bag
    return registry.suite_of_topics(topics)


def first_difference(recorded: Any, replayed: Any, path: str = "") -> str | None:
    """Path and values of the first difference between two JSON-like values, or None."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for k in sorted(set(recorded) | set(replayed)):
            if k not in recorded or k not in replayed:
                return f"{path}{k}: only in the {'replay' if k in replayed else 'recording'}"
            d = first_difference(recorded[k], replayed[k], f"{path}{k}.")
            if d:
                return d
        return None
    if isinstance(recorded, list) and isinstance(replayed, list):
        for i, (a, b) in enumerate(zip(recorded, replayed, strict=False)):
            d = first_difference(a, b, f"{path}{i}.")
            if d:
                return d
        if len(recorded) != len(replayed):
            return f"{path.rstrip('.')}: {len(recorded)} recorded, {len(replayed)} replayed"
        return None
    if recorded != replayed:
        return f"{path.rstrip('.')}: recorded {recorded!r}, replay {replayed!r}"
    return None


def as_json(d: Any) -> Any:
    """``d`` as it reads back from JSON (tuples become lists), to compare with a recorded result."""
    return json.loads(json.dumps(d, sort_keys=True, allow_nan=False))


# ----------------------------------------------------------------------------- records of the run
def read_records(run_dir: Path | None) -> dict[str, Any]:
    """episode id -> SuiteRecord of the run directory (none without one, or when the run has
    recorded nothing yet: its manifest is there, its episodes.jsonl is not)."""
    if run_dir is None:
        return {}
    from alpha_matrix.core.suites.records import SuiteStore

    if (run_dir / "manifest.json").is_file() and not (run_dir / "episodes.jsonl").exists():
        return {}

    return {r.episode_id: r for r in SuiteStore.read_only(run_dir)}


def compare_records(ep_id: str, result: Any, records: dict[str, Any], run_dir: Path | None) -> list[str]:
    """The JSONL record against the recorded suite/result (already compared with the replay)."""
    if run_dir is None:
        return []
    rec = records.get(ep_id)
    if rec is None:
        if result is not None and result.ok and (n := infrastructure_aborts(json.loads(result.result_json))):
            return [f"not recorded: {n} decision(s) got no answer (infrastructure abort; the run re-runs it)"]
        if result is not None and not result.ok:
            return [f"not recorded: not run ({' '.join(str(result.message).split())[:160]}; the run re-runs it)"]
        return [f"no JSONL record in {run_dir}"]
    if result is None:
        return []
    if rec.ok != bool(result.ok):
        return [f"JSONL ok={rec.ok}, suite/result ok={bool(result.ok)}"]
    d = first_difference(rec.result, json.loads(result.result_json) if result.ok else {})
    return [f"JSONL record differs from suite/result at {d}"] if d else []


UNBACKED = "JSONL record with no episode in the bag"


class Recorded(Protocol):
    """What the shared audit loop reads of a suite's episode (each suite's episode dataclass)."""

    request: Any  # SuiteRequest, or None
    result: Any  # SuiteResult, or None
    interrupted: int


E = TypeVar("E", bound=Recorded)


def audit_episodes(
    eps: Mapping[str, E], run_dir: Path | None, audit_one: Callable[[str, E], SuiteAudit]
) -> list[SuiteAudit]:
    """Every episode of the bag audited by the suite's ``audit_one``, then held against the run's
    JSONL record; a record whose episode the bag lacks is an audit (a problem) of its own."""
    records = read_records(run_dir)
    out = []
    for ep_id in sorted(e for e in eps if e):
        audit = audit_one(ep_id, eps[ep_id])
        if extra := compare_records(ep_id, eps[ep_id].result, records, run_dir):
            audit = replace(audit, problems=(*audit.problems, *extra))
        out.append(audit)
    return out + unbacked_records(records, eps, run_dir)


def not_replayable(ep: Recorded, context_problem: str | None) -> list[str]:
    """Why an episode cannot be replayed: no request, a request whose context the audit cannot use
    (``request_context``'s problem), or no result; empty when it can."""
    if ep.request is None:
        return ["no recorded suite/request for this episode"]
    if context_problem:
        return [context_problem]
    if ep.result is None:
        return ["no recorded suite/result (run interrupted?)"]
    return []


def unbacked_records(records: dict[str, Any], episodes: Iterable[str], run_dir: Path | None) -> list[SuiteAudit]:
    """A verdict for every JSONL record whose episode is not in the bag."""
    if run_dir is None:
        return []
    return [SuiteAudit(ep_id, 0, 0, 0, (UNBACKED,)) for ep_id in sorted(set(records) - set(episodes))]


def across_bags(per_bag: list[list[SuiteAudit]], whole_run: bool = True) -> list[SuiteAudit]:
    """The audits of one run's bags (a sharded run's worker-k bags) as one: a record is unbacked
    only when no bag holds its episode, and then said once; none when only part of the run's bags
    is audited (``whole_run`` False: the other bags hold the rest)."""
    audited = [a for audits in per_bag for a in audits if a.problems != (UNBACKED,)]
    seen = {a.episode_id for a in audited}
    unbacked = {a.episode_id: a for audits in per_bag for a in audits if a.problems == (UNBACKED,)}
    return audited + ([a for eid, a in sorted(unbacked.items()) if eid not in seen] if whole_run else [])


# ----------------------------------------------------------------------------- the bag
Put = Callable[[Any, Any], None]  # (episode, message): where one topic's messages go


def into(name: str, convert: Callable[[Any], Any] | None = None) -> Put:
    """Messages that go into the episode's field ``name``, after ``convert`` (None drops one):
    appended to a list, kept by their ``decision_index`` in a dict, else set (the last one wins)."""

    def put(ep: Any, msg: Any) -> None:
        value = msg if convert is None else convert(msg)
        if value is None:
            return
        field = getattr(ep, name)
        if isinstance(field, list):
            field.append(value)
        elif isinstance(field, dict):
            field[int(msg.decision_index)] = value
        else:
            setattr(ep, name, value)

    return put


def json_row(msg: Any) -> dict[str, Any] | None:
    """A std_msgs/String carrying one JSON object (a verdict row), or None."""
    try:
        v = json.loads(msg.data)
    except (TypeError, ValueError):
        return None
    return v if isinstance(v, dict) else None


def episode_router(suite: str, by_episode: Iterable[str], rows_topic: str = "") -> Callable[[str, Any], str | None]:
    """Which episode a bag message belongs to: ``suite``'s suite/request by its id, the
    ``by_episode`` topics by their messages' episode_id, JSON rows (``rows_topic``) by theirs."""
    topics = frozenset(by_episode)

    def episode_of(topic: str, msg: Any) -> str | None:
        if topic == "/suite/request":
            return msg.episode_id if msg.suite == suite else None
        if topic in topics:
            return str(msg.episode_id)
        if topic == rows_topic and (row := json_row(msg)):
            return str(row.get("episode_id", "")) or None
        return None

    return episode_of


def load_episodes(
    bag_dir: Path,
    episode_of: Callable[[str, Any], str | None],
    new: Callable[[int], E],
    topics: Mapping[str, Put],
    steps: bool = False,
) -> dict[str, E]:
    """episode id -> its episode: ``new(other attempts)`` filled from the audited attempt's
    messages, each put where ``topics`` says for its topic (``episode_attempts`` for the rest)."""
    out = {}
    for ep_id, (msgs, others) in episode_attempts(bag_dir, episode_of, steps).items():
        ep = out[ep_id] = new(others)
        for topic, _ts, msg in msgs:
            if (put := topics.get(topic)) is not None:
                put(ep, msg)
    return out


def request_context(suite: str, request: Any, needs: str | None) -> tuple[SuiteContext | None, str, str | None]:
    """(context, where it came from, problem) for one episode's recorded request.

    ``needs``: what the audit takes from the context (for the problem line when the request
    carries none); None when the audit can do without it (then the context is None, no problem).
    """
    if request is None:
        return None, "", None
    text = getattr(request, "context_json", "")  # absent from bags of older interfaces
    if not text:
        if needs is None:
            return None, "", None
        return None, "", f"suite/request carries no context_json, so the run's {needs} cannot be known{NOT_TODAY}"
    try:
        ctx = parse_context(text, suite)
    except ValueError as err:
        return None, "", f"suite/request: {err}"
    return ctx, f"from the bag: {ctx.describe()}", None


def audit_item_episode(
    ep_id: str,
    ep: Any,
    suite: str,
    needs: str,
    context_type: type[SuiteContext],
    item_of: Callable[[Any], Any],
    replay: Callable[[Any, Any, Any], tuple[Any, int, list[str]]],
) -> SuiteAudit:
    """An episode of one item (its request carries the item and the context): the item read back,
    replayed by ``replay(ep, item, ctx) -> (result or None, decisions replayed, problems)`` and the
    replayed result compared with the recorded suite/result."""
    replayed, out = 0, None
    ctx, where, problem = request_context(suite, ep.request, needs=needs)
    problems = not_replayable(ep, problem)
    if not problems and ep.result.ok and isinstance(ctx, context_type):
        try:
            item = item_of(json.loads(ep.request.scenario_json))
        except (TypeError, ValueError, KeyError) as err:
            problems = [f"suite/request: not {'an' if suite[0] in 'aeiou' else 'a'} {suite} item: {err}"]
        else:
            out, replayed, problems = replay(ep, item, ctx)
    if out is not None and not problems:
        if d := first_difference(json.loads(ep.result.result_json), as_json(out)):
            problems.append(f"suite/result differs from the replay at {d}")
    return SuiteAudit(ep_id, len(ep.observations), len(ep.verdicts), replayed, tuple(problems), ep.interrupted, where)


class FileLoads:
    """Recorded files loaded once per content (sha256), through the live nodes' own loaders."""

    def __init__(self, load: Callable[[Path], Any]) -> None:
        self.load = load
        self.cache: dict[str, Any] = {}

    def __call__(self, recorded: Any) -> Any:
        if recorded.sha256 not in self.cache:
            with tempfile.TemporaryDirectory() as tmp:
                path = recorded.write_to(Path(tmp))
                try:
                    self.cache[recorded.sha256] = self.load(path)
                except ConfigError as err:  # name the recorded file, not the temporary copy
                    raise ConfigError(str(err).replace(str(path), recorded.path)) from None
        return self.cache[recorded.sha256]


# ----------------------------------------------------------------------------- the table
def format_suite_table(suite: str, audits: list[SuiteAudit]) -> str:
    head = registry.spec(suite).audit_unit + " rec/replay"
    lines = [f"{'episode':<44} {'inputs':>6} {head:>20}  verdict"]
    for a in audits:
        verdict = "match" if a.ok else "MISMATCH: " + "; ".join(a.problems)
        lines.append(f"{a.episode_id:<44} {a.inputs:>6} {f'{a.recorded}/{a.replayed}':>20}  {verdict}")
    lines.append("")
    for where in sorted({a.context for a in audits if a.context}):
        n = sum(a.context == where for a in audits)
        lines.append(f"context {where} ({n} episode{'s' if n != 1 else ''})")
    interrupted = [a for a in audits if a.interrupted_attempts]
    if interrupted:
        n = sum(a.interrupted_attempts for a in interrupted)
        eps = ", ".join(f"{a.episode_id} ({a.interrupted_attempts})" for a in interrupted)
        lines.append(
            f"interrupted attempts: {n} (killed mid-scenario, or not recorded after an infrastructure abort; re-run on resume; not audited): {eps}"
        )
    return "\n".join(lines).rstrip("\n")


__all__ = [
    "FileLoads",
    "Recorded",
    "as_json",
    "audit_episodes",
    "audit_suite_bag",
    "bag_suite",
    "compare_records",
    "episode_attempts",
    "first_difference",
    "format_suite_table",
    "not_replayable",
    "read_records",
    "request_context",
    "across_bags",
    "unbacked_records",
]
