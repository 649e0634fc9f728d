"""The classical reader's evidence bounds as the reader takes them: a plain dataclass whose
defaults are the gauge_reader node's declared parameters (core/config.GaugeReaderParams, the
one place of the numbers; their values in a run: config/params_gauge.yaml)."""

from __future__ import annotations

from dataclasses import dataclass

from alpha_matrix.core.suites.gauge.params import GaugeReaderParams

_D = GaugeReaderParams.model_validate({})


@dataclass(frozen=True)
class ReaderSettings:
    min_contrast: float = _D.min_contrast  # 8-bit levels a mark must stand out by (also >= noise_k x noise)
    noise_k: float = _D.noise_k
    min_ticks: int = _D.min_ticks
    tip_share: float = _D.tip_share  # share of the tip radii that must show the needle
    ambiguity: float = _D.ambiguity  # second-best needle ray or level step / best: above this, abstain
    min_px_per_2pct: float = _D.min_px_per_2pct
