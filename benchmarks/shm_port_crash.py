"""Demonstration: a damaged Fast DDS shared-memory port kills a peer in a DDS thread (SIGSEGV).

The likely mechanism of CI's rare node segfaults, shown deterministically on a private domain.
Node A starts and listens on a shared-memory port (/dev/shm/fastdds_port<N>). Its segment is
damaged on purpose (1 KiB overwritten), standing in for what a process killed while building a
port, or two processes building one at once after Fast DDS's 2 s port-mutex timeout, could leave.
Node B then starts: its UDP receive thread reads A's discovery announcement, asks whether A's
shared-memory locator is reachable, opens the port and walks the segment's allocator tree
(``SharedMemGlobal::open_port_internal`` -> ``rbtree_best_fit::check_sanity``,
eProsima/Fast-DDS#6501; fix merged upstream in #6503, absent from the Fast DDS 3.2.2 of the
newest ros-fastdds wheel, 3.2.3) into unmapped memory. faulthandler prints B's main thread as
"Thread 0x..." (not "Current thread"): the fault is in a native thread, and the Python stack shows
only where the main thread happened to be, as in the CI logs (an import of lark, find_library).

With ``--env ROS_AUTOMATIC_DISCOVERY_RANGE=SYSTEM_DEFAULT --env FASTDDS_DEFAULT_PROFILES_FILE=<a
UDPv4-only profile>`` no shared memory is used and B survives: a check of that configuration.

usage: python benchmarks/shm_port_crash.py [--domain 85] [--out /tmp/shm-port-crash] [--env KEY=VALUE ...]
Prints B's exit status, its faulthandler output, and the native stack of the faulting thread (gdb,
from B's core in --out). Touches only the port files of the node it started; removes them after.
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

NODE = """
import faulthandler, sys, time
faulthandler.enable()
import rclpy
from rclpy.node import Node
from std_msgs.msg import String
rclpy.init()
node = Node(sys.argv[1])
node.create_subscription(String, "shm_port_crash", lambda _m: None, 10)
node.create_publisher(String, "shm_port_crash", 10)
print("up", flush=True)
end = time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    rclpy.spin_once(node, timeout_sec=0.1)
print("survived", flush=True)
"""
GDB = "/usr/bin/gdb"
PORT_BASE, DOMAIN_GAIN, USER_UNICAST = 7400, 250, 11  # RTPS port mapping: participant 0's user unicast


def _child_setup() -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(name: str, seconds: float, env: dict[str, str], out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", NODE, name, str(seconds)], cwd=out, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=_child_setup,
    )  # fmt: skip


def _damage(port: Path) -> None:
    """Overwrite 1 KiB near the end of the segment: the allocator's free-block links (Fast-DDS#6501)."""
    size = port.stat().st_size
    with open(port, "r+b") as f:
        f.seek(max(0, size - 1280))
        f.write(os.urandom(1024))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--domain", type=int, default=85, help="a ROS_DOMAIN_ID nothing else uses (60-99)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/shm-port-crash"))
    ap.add_argument("--env", action="append", default=[], help="KEY=VALUE for both nodes")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("core*"):
        old.unlink()
    env = dict(os.environ, ROS_DOMAIN_ID=str(args.domain), ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST")
    env.update(kv.split("=", 1) for kv in args.env)
    port_name = f"fastdds_port{PORT_BASE + DOMAIN_GAIN * args.domain + USER_UNICAST}"
    port = Path("/dev/shm") / port_name
    if port.exists():
        print(f"{port} exists already: domain {args.domain} is in use or left files; pick another", file=sys.stderr)
        return 2
    a = _start("shm_port_crash_a", 30, env, args.out)
    try:
        assert a.stdout is not None
        if a.stdout.readline().strip() != "up":
            print("node A did not start", file=sys.stderr)
            return 2
        time.sleep(0.5)
        if port.exists():
            _damage(port)
            print(f"damaged {port}")
        else:
            print(f"{port} absent: this configuration uses no shared memory")
        b = _start("shm_port_crash_b", 5, env, args.out)
        output, _ = b.communicate(timeout=120)
    finally:
        a.kill()
        a.wait()
        for file in (port, port.with_name(port_name + "_el"), port.with_name(f"sem.{port_name}_mutex")):
            file.unlink(missing_ok=True)
    status = f"killed by {signal.Signals(-b.returncode).name}" if b.returncode < 0 else f"exit {b.returncode}"
    print(f"node B: {status}\n{output}")
    for core in args.out.glob("core*"):
        if Path(GDB).exists():
            cmd = [GDB, "-batch", "-ex", "bt 12", sys.executable, str(core)]
            bt = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False).stdout
            print("native stack of the faulting thread:")
            print("\n".join(dict.fromkeys(line for line in bt.splitlines() if line.startswith("#"))))
    return 1 if b.returncode < 0 else 0


if __name__ == "__main__":
    raise SystemExit(main())
