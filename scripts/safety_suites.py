"""Run the skill-confidence and hardware-alert suites bare (no ROS) and print their metrics.

.venv/bin/python scripts/safety_suites.py [--rows]
"""

from __future__ import annotations

import json
import sys

from alpha_matrix.core.suites.alerts.report import summarize_alerts
from alpha_matrix.core.suites.alerts.run import run_alert_suite
from alpha_matrix.core.suites.alerts.scenarios import load_alert_policy, load_alert_scenarios
from alpha_matrix.core.suites.confidence.report import summarize
from alpha_matrix.core.suites.confidence.run import run_confidence_suite
from alpha_matrix.core.suites.confidence.scenarios import load_confidence_scenarios, load_skills_config


def main(argv: list[str]) -> int:
    rows = "--rows" in argv
    suite = load_skills_config()
    conf = run_confidence_suite(load_confidence_scenarios(suite=suite), suite)
    for r in conf:
        mark = "ok  " if r.task_completed else "FAIL"
        goals = " ".join(f"{o}:{s}" for o, s in r.goal_status.items())
        print(f"{mark} {r.task:<24} calls={r.calls} checked={r.checked} steps={r.steps:<5} {goals}")
        for row in r.rows if rows else ():
            print(f"       {row.instruction:<28} conf={row.confidence:.3f} rank={row.rank} ok={row.succeeded}")
    print("confidence:", json.dumps(summarize(conf)))
    alerts = load_alert_policy()
    res = run_alert_suite(load_alert_scenarios(suite=alerts), alerts.policy)
    for r in res:
        acts = " ".join(f"{a.cls}->{a.actual}{'' if a.correct else '(WRONG)'}" for a in r.alerts) or "-"
        print(f"{'ok  ' if r.outcome.success else 'fail'} {r.name:<40} refused={len(r.refused):<3} {acts}")
    print("alerts:", json.dumps(summarize_alerts(res)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
