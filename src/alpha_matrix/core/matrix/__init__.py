"""The fault matrix: faults drawn from the seed and recorded in one canonical order, so a run can be
repeated, audited and reported from its records alone.
"""
