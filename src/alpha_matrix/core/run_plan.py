"""What a run was asked to do, written by the command line before its graph starts.

Two files in the run directory, beside the records (``manifest.json``, ``episodes.jsonl``, which
the runner node writes and checks, untouched here):

* ``config.json``: the resolved parameters the run was made with (what its config hash covers),
  written once by the first command that starts the run and never rewritten. A later command
  with another config is refused before anything starts, naming the parameters that differ.
* ``requested.jsonl``: one line per start that asked for episodes not asked for before (the ids
  it planned), appended under a lock and never rewritten: repeating a command adds nothing, a
  resume with more episodes adds them, and a line cut short by a crash is ignored.

``run_size(run_dir)`` is (recorded, requested): ``alpha-matrix runs`` shows ``3/30
(incomplete)`` from it and ``report`` says so on its first line. Runs made before these files
existed have no requested count (None) and are shown as before.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from alpha_matrix.core.errors import ConfigError, RecordError
from alpha_matrix.core.graph import CONTENT_HASHED, NOT_HASHED, PACKAGE, VIEW_ONLY, Graph

CONFIG_FILE = "config.json"
REQUESTED_FILE = "requested.jsonl"
RECORDS_FILE = "episodes.jsonl"
MANIFEST_FILE = "manifest.json"

# Set on every node by the resolver after hashing, or bookkeeping every node may carry: not the config.
_NOT_CONFIG = {"config_hash", "run_id", "runs_dir", "bags_dir", "graph_nodes", "ack_every_steps", "recorder"}
# Derived from other parameters (a difference there is always explained by another one).
_DERIVED = {"context_json"}


# ----------------------------------------------------------------------------- the config
def _value(param: str, value: Any) -> Any:
    """A parameter as the config hash sees it: a file parameter by its content, not its path."""
    if param in CONTENT_HASHED and value:
        try:
            return "sha256:" + hashlib.sha256(Path(value).read_bytes()).hexdigest()
        except OSError:
            return value
    return value


def config_view(graph: Graph) -> dict[str, Any]:
    """The graph's configuration, node by node, as its config hash covers it (JSON-able)."""
    nodes: dict[str, Any] = {}
    for n in graph.nodes:
        if n.observer or n.executable in VIEW_ONLY:  # the live view, the scene's markers: no part of the config
            continue
        skip = NOT_HASHED.get(n.executable, set()) | _NOT_CONFIG
        entry: dict[str, Any] = {
            "executable": n.executable,
            "parameters": {k: _value(k, v) for k, v in sorted(n.parameters.items()) if k not in skip},
        }
        if n.package != PACKAGE:
            entry["package"] = n.package
        if n.external:
            entry["external"] = True
        if n.remappings:
            entry["remappings"] = dict(n.remappings)
        nodes[n.name] = entry
    return nodes


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 40 else text[:37] + "..."


def config_differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What differs between two ``config_view``s, one phrase each: ``node.param: old -> new``; a
    value every node shares (``/**``) is named once, with the nodes it is on."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for name in sorted(set(before) | set(after)):
        if name not in after:
            groups.setdefault(("(node)", "in the graph", "left out"), []).append(name)
            continue
        if name not in before:
            groups.setdefault(("(node)", "left out", "in the graph"), []).append(name)
            continue
        b, a = before[name], after[name]
        for key in sorted(set(b) | set(a)):
            if key != "parameters" and b.get(key) != a.get(key):
                groups.setdefault((key, _short(b.get(key)), _short(a.get(key))), []).append(name)
        bp, ap = b.get("parameters", {}), a.get("parameters", {})
        for param in sorted(set(bp) | set(ap)):
            if bp.get(param, "<unset>") != ap.get(param, "<unset>"):
                old = _short(bp[param]) if param in bp else "<unset>"
                new = _short(ap[param]) if param in ap else "<unset>"
                groups.setdefault((param, old, new), []).append(name)
    phrases = []
    for (param, old, new), names in groups.items():
        if param == "(node)":
            phrases.append(f"node{'s' if len(names) > 1 else ''} {', '.join(names)}: {old} -> {new}")
        elif len(names) == 1:
            phrases.append(f"{names[0]}.{param}: {old} -> {new}")
        else:
            phrases.append(f"{param} (on {', '.join(names)}): {old} -> {new}")
    plain = [p for p in phrases if not any(f".{d}:" in p or p.startswith(f"{d} (") for d in _DERIVED)]
    return plain or phrases


def _manifest_hash(run_dir: Path) -> str | None:
    try:
        value = json.loads((run_dir / MANIFEST_FILE).read_text()).get("config_hash")
    except (OSError, ValueError, AttributeError):
        return None
    return str(value) if value is not None else None


def check_same_config(run_dir: Path, config_hash: str, view: dict[str, Any], run_option: str = "--run-id") -> None:
    """A run directory made with another config: one ConfigError naming the parameters that differ
    (from its config.json; a run made before it was written: the two hashes only). Reads only."""
    made_with = _manifest_hash(run_dir)
    if made_with is None or made_with == config_hash:
        return
    earlier = read_config(run_dir)
    diffs = config_differences(earlier["config"], view) if earlier and earlier["config_hash"] == made_with else []
    shown = "; ".join(diffs[:6]) + (f"; and {len(diffs) - 6} more" if len(diffs) > 6 else "")
    what = f": {shown}" if diffs else " (it holds no config.json to name the parameters: made by an older version)"
    raise ConfigError(
        f"{run_dir} was made with config {made_with[:12]}, this one is {config_hash[:12]}{what}. "
        f"Nothing was started: use another {run_option}, or the earlier settings to resume it"
    )


def read_config(run_dir: Path) -> dict[str, Any] | None:
    """config.json ({"config_hash", "config"}), or None when absent or unreadable."""
    try:
        data = json.loads((run_dir / CONFIG_FILE).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("config"), dict) else None


# ----------------------------------------------------------------------------- the requested episodes
def _lines(path: Path) -> list[dict[str, Any]]:
    """The complete, valid lines of a JSONL file (a line cut short or garbled is skipped)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return []
    out = []
    for line in raw[: raw.rfind(b"\n") + 1].splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            out.append(item)
    return out


def requested_ids(run_dir: Path) -> set[str] | None:
    """Every episode id a command asked this run for, or None (a run from before requested.jsonl)."""
    path = run_dir / REQUESTED_FILE
    if not path.exists():
        return None
    return {str(e) for item in _lines(path) for e in item.get("episodes") or ()}


def record_request(run_dir: Path, config_hash: str, view: dict[str, Any], episode_ids: Iterable[str]) -> None:
    """Write what this start asks for: config.json if the run has none, and a requested.jsonl line
    with the episodes not asked for before (none new: nothing written). Call under the run's lock,
    after ``check_same_config``; safe against a concurrent writer all the same (flock)."""
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        if _manifest_hash(run_dir) in (None, config_hash):
            _write_config_once(run_dir, config_hash, view)
        _append_ids(run_dir, config_hash, episode_ids)
    except OSError as err:
        raise RecordError(f"{run_dir}: cannot record the requested episodes ({err.strerror})") from None


def _write_config_once(run_dir: Path, config_hash: str, view: dict[str, Any]) -> None:
    config = run_dir / CONFIG_FILE
    if config.exists():
        return
    tmp = run_dir / f".{CONFIG_FILE}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps({"config_hash": config_hash, "config": view}, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, config)


def _append_ids(run_dir: Path, config_hash: str, episode_ids: Iterable[str]) -> None:
    """One requested.jsonl line with the ids not there yet, under an exclusive lock."""
    ids = list(dict.fromkeys(episode_ids))
    with open(run_dir / REQUESTED_FILE, "a+b") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            f.seek(0)
            raw = f.read()
            if raw and not raw.endswith(b"\n"):  # a line cut short by a crash: ended, never extended
                f.write(b"\n")
            known = requested_ids(run_dir) or set()
            new = [e for e in ids if e not in known]
            if new:
                f.write(json.dumps({"config_hash": config_hash, "episodes": new}).encode() + b"\n")
                f.flush()
                os.fsync(f.fileno())
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def merge_requested(run_dir: Path, sources: Iterable[Path]) -> None:
    """``alpha-matrix merge``: the shares' config.json (the first there is) and their requested
    episodes joined into ``run_dir`` (a share from before requested.jsonl adds nothing)."""
    for src in sources:
        data, ids = read_config(src), requested_ids(src)
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
            if data is not None:
                _write_config_once(run_dir, str(data["config_hash"]), data["config"])
            if ids:
                _append_ids(run_dir, str(data["config_hash"]) if data else "", sorted(ids))
        except OSError as err:
            raise RecordError(f"{run_dir}: cannot record the requested episodes ({err.strerror})") from None


def recorded_ids(run_dir: Path) -> set[str]:
    """The episode ids of the run's complete record lines (read only, no validation: a count)."""
    return {str(item["episode_id"]) for item in _lines(run_dir / RECORDS_FILE) if "episode_id" in item}


def run_size(run_dir: Path) -> tuple[int, int | None]:
    """(episodes recorded, episodes requested) of a run directory; requested None when the run
    does not know it (made before requested.jsonl). A run is incomplete when recorded < requested."""
    recorded = recorded_ids(run_dir)
    requested = requested_ids(run_dir)
    if requested is None:
        return len(recorded), None
    return len(recorded), len(requested | recorded)


def incomplete_line(run_dir: Path, unit: str = "episodes") -> str | None:
    """One line saying a run is incomplete (for a report's first line), or None when it is not
    (or does not know its size)."""
    recorded, requested = run_size(run_dir)
    if requested is None or recorded >= requested:
        return None
    return (
        f"run {run_dir.name} is incomplete: {recorded} of {requested} {unit} recorded "
        "(run the same command again to resume; the report covers the recorded ones)"
    )


__all__ = [
    "CONFIG_FILE",
    "REQUESTED_FILE",
    "check_same_config",
    "config_differences",
    "config_view",
    "incomplete_line",
    "merge_requested",
    "read_config",
    "record_request",
    "recorded_ids",
    "requested_ids",
    "run_size",
]
