"""The run report (Markdown, PNG plots, one HTML page), regenerated from ``episodes.jsonl`` alone.

Every number is counted from the records ("no data" where there is nothing to count), so the same
records always give the same bytes.
"""

from __future__ import annotations

from alpha_matrix.core.matrix.report.build import build_report, write_report

__all__ = ["build_report", "write_report"]
