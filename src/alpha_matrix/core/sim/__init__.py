"""The simulated cell: PyBullet world, camera and human.

Kept apart from the code that decides, so that code runs and is tested without physics.
"""
