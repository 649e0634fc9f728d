"""Where plans come from (oracle, LLM, replay) and the guards they pass before the robot moves.

Every planner answers in the same plan schema and carries its provenance, so arms are comparable.
"""
