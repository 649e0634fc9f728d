"""Functional core: everything that decides. No rclpy import anywhere below this package."""
