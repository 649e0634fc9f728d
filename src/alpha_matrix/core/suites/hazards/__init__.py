"""Incident-grounded hazard scenarios (seed 000, ICAT): a risk memory of standards and incidents,
scenarios inverted from its prohibitions, consequences measured in the physics, models scored on them."""
