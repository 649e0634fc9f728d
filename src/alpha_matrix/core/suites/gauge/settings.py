"""The classical reader's evidence bounds: one dataclass, no OpenCV, so the node parameters
(core/config.py) take their defaults from here without loading the reader."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReaderSettings:
    min_contrast: float = 20.0  # 8-bit levels a mark must stand out by (also >= noise_k x noise)
    noise_k: float = 4.0
    min_ticks: int = 2
    tip_share: float = 0.8  # share of the tip radii that must show the needle
    ambiguity: float = 0.6  # second-best needle ray or level step / best: above this, abstain
    min_px_per_2pct: float = 1.0
