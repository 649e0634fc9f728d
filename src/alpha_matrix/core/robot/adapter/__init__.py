"""The arm adapter's decisions (nodes/arm_adapter.py, docs/arm-adapter.md), without ROS.

The adapter serves the driver contract on top of ros2_control's standard interfaces: the arm's
kinematics come from its URDF (``kinematics``), a move becomes a joint trajectory (``motion``),
``/joint_states`` samples become the step stream (``samples``), and ``driver`` decides what runs,
what a protective stop cuts and when the arm is at rest again. Nothing here knows the simulator.
"""
