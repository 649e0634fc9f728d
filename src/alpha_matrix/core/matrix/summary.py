"""The printed summary of a batch of episode records."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable

from alpha_matrix.core.records import EpisodeRecord

SHOWN_FAILURES = 10  # failed episodes listed by name; the rest are counted


def summarize(records: Iterable[EpisodeRecord]) -> str:
    recs = list(records)
    if not recs:
        return "no episodes"
    ok = [r for r in recs if r.outcome.success]
    errors_mm = [r.outcome.placement_error * 1000 for r in recs if not r.abort_kind]
    aborts = Counter(r.abort_kind for r in recs if r.abort_kind)
    lines = [f"episodes: {len(recs)}   success: {len(ok)}/{len(recs)} ({100 * len(ok) / len(recs):.1f} %)"]
    if errors_mm:
        lines.append(
            f"placement error (executed plans): median {statistics.median(errors_mm):.2f} mm, max {max(errors_mm):.2f} mm"
        )
    if aborts:
        lines.append("aborted: " + ", ".join(f"{k} {n}" for k, n in sorted(aborts.items())))
    checked = [r.safety for r in recs if r.safety is not None]
    if checked:
        events = [e for sr in checked for e in sr.events]
        critical = sum(e.severity == "critical" for e in events)
        steps = sum(sr.steps_checked for sr in checked)
        lines.append(f"safety: {len(events)} events ({critical} critical) over {steps} steps checked")
    walls = [r.timing.wall_s for r in recs]
    lines.append(f"wall time per episode: median {statistics.median(walls):.3f} s")
    failed = [r for r in recs if not r.outcome.success]
    for r in failed[:SHOWN_FAILURES]:
        lines.append(f"  failed {r.episode_id} (seed {r.seed}): {r.abort_reason or r.outcome.reason}")
    if len(failed) > SHOWN_FAILURES:
        lines.append(f"  ... and {len(failed) - SHOWN_FAILURES} more failed (every one: report.md, or episodes.jsonl)")
    return "\n".join(lines)
