"""A node whose executor thread dies of a callback's exception exits at once, naming it: never deaf.

Before, the thread died alone and the node went on without callbacks: its peers waited out
their timeouts for replies it could no longer receive, every process idle (seen in CI).
"""

import os
import subprocess
import sys
import textwrap
import time

import pytest

BEHIND = """
    import threading
    from rclpy.node import Node
    from alpha_matrix.ros.lifecycle import run_node
    from alpha_matrix.ros.spin import spin_behind

    class Probe(Node):
        def __init__(self):
            super().__init__("spin_probe")
            self.create_timer(0.05, self.boom)

        def boom(self):
            raise RuntimeError("boom")

        def work(self):
            threading.Event().wait(60.0)  # a job waiting for a reply that only the executor delivers

    raise SystemExit(run_node(Probe, lambda node: spin_behind(node, node.work), []))
"""

PROXY = """
    from alpha_matrix.ros.lifecycle import run_node
    from alpha_matrix.ros.spin import ProxyNode, spin_proxy

    class Probe(ProxyNode):
        def __init__(self):
            super().__init__("proxy_probe")
            self.io.create_timer(0.05, self.boom)  # the helper's thread, as the chaos node's step stream

        def boom(self):
            raise ValueError("older than the newest stored")

    raise SystemExit(run_node(Probe, spin_proxy, []))
"""


@pytest.mark.parametrize(
    ("script", "said"),
    [
        (BEHIND, "spin_probe: error: spin_probe's executor thread died: RuntimeError: boom (at "),
        (PROXY, "proxy_probe: error: proxy_probe_io's executor thread died: ValueError: older than the newest stored"),
    ],
    ids=["spin_behind", "spin_proxy"],
)
def test_a_callback_that_raises_ends_the_node_with_one_line(script: str, said: str) -> None:
    env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE="OFF")  # no discovery: no other participant involved
    env.pop("FASTDDS_DEFAULT_PROFILES_FILE", None)
    t0 = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert time.monotonic() - t0 < 30.0  # not the work's 60 s wait


CHECKER = """
    import threading
    import rclpy
    from rclpy.context import Context
    from rclpy.node import Node
    from alpha_matrix.ros.spin import spin_behind
    from alpha_matrix.ros.stop import ExecutorFailed

    # A command line's own node (check-driver's checker): no run_node, so no stop handlers.
    context = Context()
    rclpy.init(context=context, args=[])
    node = Node("checker", context=context)
    node.create_timer(0.05, lambda: 1 / 0)

    def work():
        threading.Event().wait(3.0)  # the reply it waits for never comes
        raise TimeoutError("no reply within 3 s")

    try:
        spin_behind(node, work, context=context)
    except ExecutorFailed as err:
        print("failed:", err)
"""


def test_without_stop_handlers_the_failure_is_raised_after_the_work_not_by_a_signal() -> None:
    # Before: the wake-up signal, sent to a process without our handler, killed it (SIGUSR2).
    env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE="OFF")
    env.pop("FASTDDS_DEFAULT_PROFILES_FILE", None)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CHECKER)], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "failed: checker's executor thread died: ZeroDivisionError: division by zero (at " in done.stdout
