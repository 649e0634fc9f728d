"""Thin ROS 2 nodes: translate between messages and the core, one node per module."""
