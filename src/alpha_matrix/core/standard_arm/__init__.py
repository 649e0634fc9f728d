"""A simulated arm behind ros2_control's standard interfaces: the decisions, no ROS.

What a lab's Panda under ros2_control serves (joint_trajectory_controller, a gripper action
controller, joint_state and force/torque broadcasters), decided here in plain Python with the
upstream controllers' semantics, so the node (nodes/standard_arm.py) only translates messages.
``arm`` is the PyBullet side; the rest never touches physics.
"""
