"""Write gauge family b (core/suites/gauge/family_b.py) as a folder of user images, to read it
through the graph: ``alpha-matrix suite gauge --images DIR``.

Each item becomes ``bNNN.png`` and ``bNNN.yaml``, a face file with only what a technician states
(range, unit, direction) plus the truth the report scores against (``value``, ``readable``) and
the item's ``style`` and ``condition`` (its degradation) as labels for the report's tables.

usage: python scripts/gauge_family_b_folder.py DIR [--seed S] [--items N]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import yaml

from alpha_matrix.core.suites.gauge.family_b import build_family_b
from alpha_matrix.core.suites.gauge.user_images import FaceFile


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path, help="a new or empty folder")
    ap.add_argument("--seed", type=int, default=30, help="family b's seed")
    ap.add_argument("--items", type=int, default=40, help="how many items (half readable)")
    args = ap.parse_args()
    if args.items < 1:
        ap.error("--items must be at least 1")
    if args.folder.exists() and (not args.folder.is_dir() or any(args.folder.iterdir())):
        print(f"gauge_family_b_folder: error: {args.folder} exists and is not an empty folder", file=sys.stderr)
        return 2
    args.folder.mkdir(parents=True, exist_ok=True)
    for it in build_family_b(args.seed, args.items):
        face = FaceFile(
            min=it.lo, max=it.hi, unit=it.unit, sweep="clockwise" if it.clockwise else "counterclockwise",
            drag_pointer=it.drag, value=round(it.value, 6), readable=it.readable, style=it.style,
            condition=it.degradation,
        )  # fmt: skip
        stem = f"b{it.index:03d}"
        cv2.imwrite(str(args.folder / f"{stem}.png"), cv2.cvtColor(it.image, cv2.COLOR_RGB2BGR))
        (args.folder / f"{stem}.yaml").write_text(yaml.safe_dump(face.model_dump(exclude_none=True), sort_keys=False))
    print(f"{args.items} items of family b (seed {args.seed}) in {args.folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
