"""Example images per degradation for the report: re-rendered from each record's item (seeded,
so the same pixels the reader saw), captioned with the truth, the rule's label and the answer."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from alpha_matrix.core.suites.gauge.conditions import DEGRADATIONS, Conditions
from alpha_matrix.core.suites.gauge.scene import GaugeScene
from alpha_matrix.core.suites.records import SuiteRecord

TILE = (320, 240)


def _caption(img: np.ndarray, lines: list[str]) -> np.ndarray:
    out = cv2.resize(img, TILE, interpolation=cv2.INTER_AREA if img.shape[1] > TILE[0] else cv2.INTER_NEAREST)
    band = np.full((18 * len(lines) + 6, TILE[0], 3), 255, np.uint8)
    for i, text in enumerate(lines):
        cv2.putText(band, text[:52], (4, 16 + 18 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (0, 0, 0), 1, cv2.LINE_AA)
    return np.vstack([out, band])


def _lines(r: dict[str, Any]) -> list[str]:
    rd = r["reader"]
    said = f"read {rd['value']:.3g}" if rd["value"] is not None else f"abstained: {rd['reason']}"
    label = "readable" if r["readable"] else f"unreadable: {r['rule_reason']}"
    return [f"{r['face']}, truth {r['truth']:.3g} {r['unit']}", label, said]


def write_plots(records: Sequence[SuiteRecord], plot_dir: Path, per_class: int = 1) -> list[tuple[str, str]]:
    done = [r.result for r in records if r.ok and "conditions" in r.result["item"]]  # a user's image: not redrawn
    out: list[tuple[str, str]] = []
    with GaugeScene() as scene:
        for deg in DEGRADATIONS:
            picks = [r for r in done if r["degradation"] == deg and r["readable"]][:per_class]
            picks += [r for r in done if r["degradation"] == deg and not r["readable"]][:per_class]
            if not picks:
                continue
            tiles = []
            for r in picks:
                c = Conditions.from_dict(r["item"]["conditions"])
                tiles.append(_caption(scene.render(c, r["item"]["seed"]).image, _lines(r)))
            h = max(t.shape[0] for t in tiles)
            row = np.hstack([np.vstack([t, np.full((h - t.shape[0], TILE[0], 3), 255, np.uint8)]) for t in tiles])
            name = f"gauge_examples_{deg}.png"
            cv2.imwrite(str(plot_dir / name), cv2.cvtColor(row, cv2.COLOR_RGB2BGR))
            out.append((name, f"{deg}: a readable and an unreadable example, with the reader's answer"))
    return out
