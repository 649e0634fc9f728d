"""Write the Foxglove layouts, one per graph description (config/graph*.yaml), into foxglove/.

    .venv/bin/python scripts/foxglove_layouts.py [--check]

--check writes nothing and exits 1 when a shipped layout differs from what the graphs give
(test/unit/viz/test_layouts.py runs it). The layouts are core/viz/layouts.py's; docs/foxglove.md
says how to open a bag with one.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from alpha_matrix.core.viz.layouts import graph_name, layout, recorded_topics

ROOT = Path(__file__).resolve().parents[1]
CONFIG, OUT = ROOT / "config", ROOT / "foxglove"


def layouts() -> dict[Path, str]:
    out = {}
    for graph in sorted(CONFIG.glob("graph*.yaml")):
        name = graph_name(graph)
        out[OUT / f"{name}.json"] = json.dumps(layout(name, recorded_topics(CONFIG, graph)), indent=2) + "\n"
    return out


def main(argv: list[str]) -> int:
    stale = [p for p, text in layouts().items() if not p.exists() or p.read_text() != text]
    if "--check" in argv:
        for p in stale:
            print(f"stale: {p.relative_to(ROOT)} (run scripts/foxglove_layouts.py)")
        return 1 if stale else 0
    OUT.mkdir(exist_ok=True)
    for p, text in layouts().items():
        p.write_text(text)
        print(p.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
