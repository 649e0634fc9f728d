"""The safety monitor's decisions without ROS, so a bag is re-checked by the same code that ran live."""
