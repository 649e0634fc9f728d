"""Our DDS transport: localhost discovery over UDP alone, unless the user chose another."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from alpha_matrix.ros.transport import (
    PROFILE_ENV,
    PUBLICATION_ENV,
    RANGE_ENV,
    VARIABLES,
    localhost_udp,
    profile_path,
)

NS = {"d": "http://www.eprosima.com"}


@pytest.mark.parametrize("given", [{}, {RANGE_ENV: ""}, {RANGE_ENV: "LOCALHOST"}])
def test_localhost_becomes_localhost_over_udp(given):
    env = localhost_udp({"OTHER": "x", **given})
    assert env == {
        "OTHER": "x", RANGE_ENV: "SYSTEM_DEFAULT", PROFILE_ENV: str(profile_path()), PUBLICATION_ENV: "SYNCHRONOUS"
    }  # fmt: skip
    assert localhost_udp(env) == env  # applied twice, the same


@pytest.mark.parametrize(
    "given", [{RANGE_ENV: "SUBNET"}, {RANGE_ENV: "OFF"}, {RANGE_ENV: "LOCALHOST", PROFILE_ENV: "/my/profile.xml"}]
)
def test_a_users_own_choice_is_kept(given):
    assert localhost_udp(given) == {**given, PUBLICATION_ENV: "SYNCHRONOUS"}


@pytest.mark.parametrize("mode", ["ASYNCHRONOUS", "AUTO"])
def test_a_users_own_publication_mode_is_kept(mode):
    assert localhost_udp({PUBLICATION_ENV: mode})[PUBLICATION_ENV] == mode
    assert localhost_udp({PUBLICATION_ENV: ""})[PUBLICATION_ENV] == "SYNCHRONOUS"  # empty: rmw's default, ours


@pytest.mark.parametrize("given", [{}, {RANGE_ENV: "SUBNET"}, {PUBLICATION_ENV: "ASYNCHRONOUS"}])
def test_every_variable_it_sets_is_one_the_launchers_pass_on(given):
    assert set(localhost_udp(given)) - set(given) <= set(VARIABLES)


def test_the_profile_is_udp_on_localhost_with_no_shared_memory():
    root = ET.parse(profile_path()).getroot()
    transports = root.findall(".//d:transport_descriptor", NS)
    assert [t.findtext("d:type", namespaces=NS) for t in transports] == ["UDPv4"]
    participant = root.find(".//d:participant", NS)
    assert participant is not None and participant.get("is_default_profile") == "true"
    assert participant.findtext(".//d:useBuiltinTransports", namespaces=NS) == "false"  # no SHM from the builtins
    peers = participant.findall(".//d:initialPeersList//d:address", NS)
    assert [p.text for p in peers] == ["127.0.0.1"]
    assert participant.find(".//d:metatrafficMulticastLocatorList", NS) is None  # no multicast discovery


def test_lost_datagrams_are_rare_and_resent_soon():
    root = ET.parse(profile_path()).getroot()
    udp = root.find(".//d:transport_descriptor", NS)
    assert udp is not None
    assert int(udp.findtext("d:receiveBufferSize", namespaces=NS) or 0) >= 4 << 20  # camera frames come in bursts
    writer = root.find(".//d:data_writer", NS)
    assert writer is not None and writer.get("is_default_profile") == "true"
    period = writer.find(".//d:heartbeat_period", NS)
    assert period is not None
    seconds = (
        int(period.findtext("d:sec", namespaces=NS) or 0) + int(period.findtext("d:nanosec", namespaces=NS) or 0) / 1e9
    )
    assert 0 < seconds <= 0.1  # Fast DDS's default 3 s let a stream's tail miss its episode's bag commit


def test_two_participants_of_one_process_discover_each_other_over_the_network():
    root = ET.parse(profile_path()).getroot()
    # Fast DDS's direct calls between a process's participants have deadlocked (the profile says why)
    assert root.findtext("d:library_settings/d:intraprocess_delivery", namespaces=NS) == "OFF"


# Two participants in one process (a proxy node's layout) exchange 200 messages; the UDP datagrams
# their private network namespace received are counted. Direct calls would need none.
TWO_PARTICIPANTS = """
import time, rclpy
from rclpy.context import Context
from rclpy.node import Node
from std_msgs.msg import String
from rclpy.executors import SingleThreadedExecutor

def udp_in():
    head, values = [ln.split() for ln in open("/proc/net/snmp") if ln.startswith("Udp:")]
    return int(values[head.index("InDatagrams")])

a, b = Context(), Context()
rclpy.init(context=a)
rclpy.init(context=b)
got = []
sub_node, pub_node = Node("b", context=b), Node("a", context=a)
sub_node.create_subscription(String, "t", lambda m: got.append(m.data), 1000)
pub = pub_node.create_publisher(String, "t", 1000)
ex = SingleThreadedExecutor(context=b)
ex.add_node(sub_node)
deadline = time.monotonic() + 20
while not got and time.monotonic() < deadline:  # matched both ways
    pub.publish(String(data="hello"))
    ex.spin_once(timeout_sec=0.1)
got.clear()
before = udp_in()
for _ in range(200):
    pub.publish(String(data="x"))
while len(got) < 200 and time.monotonic() < deadline:
    ex.spin_once(timeout_sec=0.05)
print(len(got), udp_in() - before)
"""


def test_between_participants_of_one_process_data_goes_over_udp():
    """The setting as Fast DDS applies it, not as the file says it (a misplaced tag is ignored)."""
    if (
        shutil.which("ip") is None
        or shutil.which("unshare") is None
        or subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode
    ):
        pytest.skip("needs a private network namespace (unshare -n) to count this process's datagrams alone")
    env = {**os.environ, "ROS_DOMAIN_ID": "7", **localhost_udp({})}
    run = subprocess.run(
        ["unshare", "-n", "sh", "-c", f'ip link set lo up && exec "{sys.executable}" -c "$0"', TWO_PARTICIPANTS],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    received, datagrams = map(int, run.stdout.split())
    assert received == 200
    assert datagrams >= 200  # each message came over the loopback, none handed over in-process
