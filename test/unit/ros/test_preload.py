"""A node imports nothing once its DDS threads run: type supports are loaded before rclpy.init."""

import json
import os
import subprocess
import sys
import textwrap

PROBE = """
    import json, sys
    from alpha_matrix.ros import lifecycle
    import rclpy
    from rclpy.node import Node
    if {preload}:
        lifecycle.preload_type_support()
    before = set(sys.modules)
    rclpy.init(args=[])
    node = Node("preload_probe")
    print(json.dumps(sorted(set(sys.modules) - before)))
    node.destroy_node()
    rclpy.shutdown()
"""


def _imported_after_init(preload: bool) -> list[str]:
    env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE="OFF")  # no discovery: no other participant involved
    code = textwrap.dedent(PROBE.format(preload=preload))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_without_preload_node_creation_imports_the_idl_generator() -> None:
    # What run_node's preload prevents: rclpy's lazy type-support import pulls in lark after init.
    late = _imported_after_init(preload=False)
    assert "lark" in late and "rosidl_generator_py" in late


def test_after_preload_node_creation_imports_nothing() -> None:
    assert _imported_after_init(preload=True) == []
