"""alpha_matrix: stress-testing LLM-driven manipulation and its safety stack on ROS 2."""

from __future__ import annotations

__version__ = "0.1.0"
