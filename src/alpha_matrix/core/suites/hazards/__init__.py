"""Incident-grounded hazard scenarios (after ICAT, Incident-Case-Grounded Adaptive Testing): a risk memory of standards and incidents,
scenarios inverted from its prohibitions, consequences measured in the physics, models scored on them."""
