"""What a ROS user's viewer (Foxglove, RViz) needs to see a run: the robot's frames from its URDF
and joint positions (``frames``), and the scene as markers (``markers``). Plain Python: the nodes
that publish them only convert to messages."""
