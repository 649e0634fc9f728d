"""One run directory as the board reads it: its kind, its rows (agent or arm), and their numbers.

Everything is what the run's own pieces give: a suite run's summary is ``summarize_records`` and its
rate is the suite's ``headline(summary)`` (the one its report opens with); its agent's harms and
guard catches, and its verdicts for pairing, are compare.py's ``arm_of``; a matrix arm's rate is
stats.py's ``arm_table``. The board adds only the median decision latency (from the summary when
the suite states it, else from the latencies its records hold) and what the runs' provenance says.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alpha_matrix.core.errors import ConfigError, RecordError
from alpha_matrix.core.records import canonical_json

MATRIX = "matrix"
SCRIPTED = "scripted"  # the row of a suite run without an agent under test (the scripted executive decided)
RECORDS_FILE = "episodes.jsonl"
CONFIG_FILE = "config.json"
# What says which agent ran, not what it ran on: left out of the setup hash (core/resolve.py hashes it).
AGENT_KEYS = frozenset({"agent", "guards", "decide_every", "run_id", "records_run_id", "runs_dir", "bags_dir"})
AGENT_NODES = frozenset({"agent"})


@dataclass(frozen=True)
class RowRun:
    """One row's part of one run: a suite run's agent, or one arm of a matrix run."""

    run_id: str
    path: Path
    column: str  # a suite's name, or "matrix"
    agent: str  # the agent spec ("reference", "always:cannot_read", "llm:…"), "scripted", or the matrix arm
    guards: bool | None  # None: no guard under the agent (or a matrix arm)
    label: str  # what the rate counts (the headline's label)
    k: int
    n: int
    safety: str  # the headline's safety events ("" for a matrix arm)
    harms: int | None
    guard_catches: int | None
    latency_s: float | None  # median decision latency, wall clock; None: not recorded
    provenance: dict[str, str] = field(default_factory=dict)
    headline_line: str = ""  # the headline as its report opens with it (the cell says the same)


@dataclass(frozen=True)
class LoadedRun:
    """A run directory read once: its rows, its records (for pairing), and what makes runs comparable."""

    run_id: str
    path: Path
    column: str
    rows: tuple[RowRun, ...]
    records: tuple[Any, ...]
    setup_hash: str
    setup: dict[str, Any]
    items: frozenset[tuple[str, int]]  # (scenario or episode, seed) it ran


def _config(run_dir: Path) -> dict[str, Any]:
    """The resolved graph config the run recorded (config.json), {} when it has none."""
    path = run_dir / CONFIG_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        raise ConfigError(f"{path}: not readable JSON") from None
    config = data.get("config") if isinstance(data, dict) else None
    return config if isinstance(config, dict) else {}


def setup_of(config: dict[str, Any]) -> dict[str, Any]:
    """The config without the agent's own settings, flattened to "node.param" -> value."""
    flat: dict[str, Any] = {}
    for node, spec in sorted(config.items()):
        if node in AGENT_NODES or not isinstance(spec, dict):
            continue
        for key, value in sorted((spec.get("parameters") or {}).items()):
            if key in AGENT_KEYS:
                continue
            if key == "context_json" and isinstance(value, str):
                try:
                    ctx = json.loads(value)
                except json.JSONDecodeError:
                    ctx = value
                if isinstance(ctx, dict):
                    value = {k: v for k, v in ctx.items() if k not in AGENT_KEYS}
            flat[f"{node}.{key}"] = value
    return flat


def _hash(setup: dict[str, Any]) -> str:
    return hashlib.sha256(canonical_json(setup).encode()).hexdigest()


def _median(values: list[float]) -> float | None:
    return float(statistics.median(values)) if values else None


def _find(data: Any, key: str) -> Any:
    """The first value of ``key`` anywhere in a nested summary (the agent part states its latency)."""
    if isinstance(data, dict):
        if key in data:
            return data[key]
        for v in data.values():
            if (found := _find(v, key)) is not None:
                return found
    return None


def _suite_latency(summary: dict[str, Any], parts: list[dict[str, Any]]) -> float | None:
    """The suite's own median when its summary states one; else the median of its records' latencies."""
    stated = _find(summary, "latency_median_s")
    if isinstance(stated, int | float):
        return float(stated)
    values: list[float] = []
    for a in parts:
        if isinstance(a.get("latencies_s"), list):
            values += [float(x) for x in a["latencies_s"]]
        elif isinstance(a.get("latency_s"), int | float):
            values.append(float(a["latency_s"]))
    return _median(values)


def _provenance(record: Any, part: dict[str, Any] | None) -> dict[str, str]:
    prov = record.provenance
    part = part or {}
    spec = str(part.get("agent") or part.get("spec") or "")
    backend, _, model = spec.partition(":")  # a part without them (gauge): what its agent spec says
    return {
        "backend": str(part.get("backend") or backend),
        "model": str(part.get("model") or model),
        "digest": str(part.get("digest") or ""),
        "prompt": str(part.get("template_version") or ""),
        "code_revision": prov.code_revision[:12] + (" (dirty)" if prov.code_dirty else ""),
        "machine": prov.machine,
    }


def _suite_run(run_dir: Path, suite: str) -> LoadedRun:
    from alpha_matrix.core.suites import registry
    from alpha_matrix.core.suites.compare import arm_of
    from alpha_matrix.core.suites.records import SuiteStore
    from alpha_matrix.core.suites.report import summarize_records

    records = SuiteStore.read_only(run_dir)
    if not records:
        raise ConfigError(f"{run_dir}: no records yet")
    summary = summarize_records(suite, records)
    head = registry.headline(suite, summary)
    parts = [a for r in records if r.ok and isinstance(a := r.result.get("agent"), dict)]
    harms = catches = None
    guards: bool | None = None
    try:
        arm = arm_of(run_dir.name, records)
        agent, guards, harms, catches = arm.agent, arm.guards, arm.harms, arm.guard_catches
        guards = guards if registry.suite(suite).guarded else None  # no guard to switch off
    except ConfigError:  # no agent under test: the scripted executive decided
        agent = str(parts[0].get("agent") or parts[0].get("spec") or "") if parts else SCRIPTED
    config = _config(run_dir)
    setup = setup_of(config)
    row = RowRun(
        run_dir.name, run_dir, suite, agent or SCRIPTED, guards, head.rate.label, head.rate.k, head.rate.n,
        head.safety, harms, catches, _suite_latency(summary, parts),
        _provenance(records[0], parts[0] if parts else None), head.line(),
    )  # fmt: skip
    items = frozenset((r.scenario, r.seed) for r in records)
    return LoadedRun(run_dir.name, run_dir, suite, (row,), tuple(records), _hash(setup), setup, items)


def _matrix_run(run_dir: Path) -> LoadedRun:
    from alpha_matrix.core.matrix.stats import arm_table
    from alpha_matrix.core.records import RunStore

    records = list(RunStore.read_only(run_dir).values())
    if not records:
        raise ConfigError(f"{run_dir}: no records yet")
    rows = []
    for stats in arm_table(records):
        mine = [r for r in records if r.arm == stats.arm]
        planner = next((r.planner for r in mine if r.planner is not None), None)
        part = (
            {"backend": planner.backend, "model": planner.model, "digest": planner.digest,
             "template_version": planner.template_version}
            if planner is not None else None
        )  # fmt: skip
        latencies = [r.timing.llm_latency_s for r in mine if r.timing.llm_latency_s is not None]
        rows.append(
            RowRun(
                run_dir.name,
                run_dir,
                MATRIX,
                stats.arm,
                None,
                f"arm {stats.arm} episodes succeeded",
                stats.successes,
                stats.n,
                "",
                None,
                None,
                _median(latencies),
                _provenance(mine[0], part),
            )  # fmt: skip
        )
    setup = setup_of(_config(run_dir))
    items = frozenset((str(r.episode_index), r.seed) for r in records)
    return LoadedRun(run_dir.name, run_dir, MATRIX, tuple(rows), tuple(records), _hash(setup), setup, items)


def load_run(run_dir: Path) -> LoadedRun:
    """A run directory, or a one-line ConfigError saying why it is not one the board can read."""
    from alpha_matrix.core.runs_index import suite_of_run

    if not run_dir.is_dir():
        raise ConfigError(f"{run_dir}: {'not a directory' if run_dir.exists() else 'no such directory'}")
    if not (run_dir / RECORDS_FILE).is_file():
        raise ConfigError(f"{run_dir}: not a run directory (no {RECORDS_FILE})")
    suite = None
    try:
        with open(run_dir / RECORDS_FILE, encoding="utf-8", errors="replace") as f:
            first = f.readline()
        if not first.strip():
            raise ConfigError(f"{run_dir}: no records yet")
        try:
            json.loads(first)
        except json.JSONDecodeError:  # else read as a matrix run, and refused for another reason
            raise ConfigError(f"{run_dir / RECORDS_FILE}:1: invalid record (not JSON)") from None
        suite = suite_of_run(run_dir)
        return _suite_run(run_dir, suite) if suite is not None else _matrix_run(run_dir)
    except RecordError as err:
        raise ConfigError(str(err)) from None
    except (LookupError, TypeError, ValueError, AttributeError) as err:  # records its suite cannot read now
        what = suite if suite is not None else "matrix"
        raise ConfigError(f"{run_dir}: its records give no {what} headline ({type(err).__name__}: {err})") from None
    except OSError as err:
        raise ConfigError(f"{run_dir}: {err.strerror or err}") from None
