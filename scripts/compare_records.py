"""Compare the records of two runs field by field, leaving out what may differ between runs.

    python scripts/compare_records.py RUNS_A RUNS_B [--ignore FIELD ...]

RUNS_A and RUNS_B are run directories (holding episodes.jsonl) or folders of them (matched by
name). Wall-clock timing and the run id are always left out; `--ignore provenance.config_hash`
leaves out a nested field too. Prints one line per run and exits 0 when every record is equal,
1 when one differs, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ALWAYS = ("timing", "run_id")


def _drop(rec: dict[str, Any], dotted: str) -> None:
    *parents, leaf = dotted.split(".")
    for key in parents:
        rec = rec.get(key)
        if not isinstance(rec, dict):
            return
    rec.pop(leaf, None)


def load(run_dir: Path, ignore: list[str]) -> dict[str, str]:
    out = {}
    for n, line in enumerate((run_dir / "episodes.jsonl").read_text().splitlines(), 1):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as err:
            raise SystemExit(f"{run_dir}/episodes.jsonl line {n}: not JSON ({err.msg})") from None
        for field in (*ALWAYS, *ignore):
            _drop(rec, field)
        out[rec["episode_id"]] = json.dumps(rec, sort_keys=True)
    return out


def first_difference(a: str, b: str) -> str:
    x, y = json.loads(a), json.loads(b)
    for key in sorted(set(x) | set(y)):
        if x.get(key) != y.get(key):
            return f"{key}: {json.dumps(x.get(key))[:80]} != {json.dumps(y.get(key))[:80]}"
    return "?"


def runs(root: Path) -> dict[str, Path]:
    if (root / "episodes.jsonl").is_file():
        return {root.name: root}
    found = {p.parent.name: p.parent for p in sorted(root.glob("*/episodes.jsonl"))}
    if not found:
        raise SystemExit(f"{root}: no episodes.jsonl in it or in its folders")
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--ignore", action="append", default=[], metavar="FIELD")
    args = ap.parse_args(argv)
    try:
        a, b = runs(args.a), runs(args.b)
    except SystemExit as err:
        print(f"compare_records: {err}", file=sys.stderr)
        return 2
    if len(a) == 1 and len(b) == 1:
        a, b = {"run": next(iter(a.values()))}, {"run": next(iter(b.values()))}
    equal = True
    for name in sorted(set(a) | set(b)):
        if name not in a or name not in b:
            print(f"{name}: only in {'A' if name in a else 'B'}")
            equal = False
            continue
        ra, rb = load(a[name], args.ignore), load(b[name], args.ignore)
        diff = [e for e in sorted(set(ra) | set(rb)) if ra.get(e) != rb.get(e)]
        if diff:
            e = diff[0]
            why = first_difference(ra[e], rb[e]) if e in ra and e in rb else "missing on one side"
            print(f"{name}: {len(diff)} of {len(ra)} records differ; first {e}: {why}")
            equal = False
        else:
            print(f"{name}: {len(ra)} records identical")
    return 0 if equal else 1


if __name__ == "__main__":
    sys.exit(main())
