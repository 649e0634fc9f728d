"""The robot's side of a plan, without ROS: plans become world commands, and the driver decides what
runs, when it stops and how far the sim may step ahead, so those decisions are unit-tested without a graph.
"""
