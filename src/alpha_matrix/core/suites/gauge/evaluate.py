"""Run the reader over items of the set: render each item, read it, score it (no ROS).

The reader gets the rendered image and the face; the item's truth stays on this side and is
only used to score the answer.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from alpha_matrix.core.suites.gauge.dataset import Item
from alpha_matrix.core.suites.gauge.faces import FACES
from alpha_matrix.core.suites.gauge.metrics import Scored
from alpha_matrix.core.suites.gauge.reader import ReaderSettings, Reading, read_gauge
from alpha_matrix.core.suites.gauge.scene import GaugeScene


@dataclass(frozen=True)
class Evaluated:
    item: Item
    reading: Reading
    read_ms: float

    @property
    def scored(self) -> Scored:
        face = FACES[self.item.face]
        return Scored(
            self.item.degradation, self.item.readable, self.item.conditions.value, face.span, self.reading.value
        )


def evaluate(scene: GaugeScene, items: Iterable[Item], settings: ReaderSettings | None = None) -> Iterator[Evaluated]:
    for item in items:
        image = scene.render(item.conditions, item.seed).image
        t0 = time.perf_counter()
        reading = read_gauge(image, FACES[item.face], settings)
        yield Evaluated(item, reading, (time.perf_counter() - t0) * 1e3)
