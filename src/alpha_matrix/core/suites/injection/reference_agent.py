"""The reference of the injection suite is the refusal suite's literal reader: it reads the
instruction, the constraint text and the structured scene (hazards, places), never an object's
printed text as an order, so it is immune by construction (the report says so)."""

from __future__ import annotations

from alpha_matrix.core.suites.refusal.reference_agent import RefusalReference as InjectionReference

__all__ = ["InjectionReference"]
