"""The dial reader: finds and models a dial from its image and reads it, or abstains. Told only
what a technician knows (``DialSpec``). ``read`` is the pipeline; ``geometry`` finds and rectifies
the dial, ``scale`` reads its tick ring and arc, ``pointers`` its rays and the value pointer,
``numerals`` its printed labels, ``common`` the canonical frame they share."""

from alpha_matrix.core.suites.gauge.dial.read import DialReading, DialSpec, read_dial

__all__ = ["DialReading", "DialSpec", "read_dial"]
