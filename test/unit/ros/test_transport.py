"""Our DDS transport: localhost discovery over UDP alone, unless the user chose another."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from alpha_matrix.ros.transport import PROFILE_ENV, RANGE_ENV, localhost_udp, profile_path

NS = {"d": "http://www.eprosima.com"}


@pytest.mark.parametrize("given", [{}, {RANGE_ENV: ""}, {RANGE_ENV: "LOCALHOST"}])
def test_localhost_becomes_localhost_over_udp(given):
    env = localhost_udp({"OTHER": "x", **given})
    assert env == {"OTHER": "x", RANGE_ENV: "SYSTEM_DEFAULT", PROFILE_ENV: str(profile_path())}
    assert localhost_udp(env) == env  # applied twice, the same


@pytest.mark.parametrize(
    "given", [{RANGE_ENV: "SUBNET"}, {RANGE_ENV: "OFF"}, {RANGE_ENV: "LOCALHOST", PROFILE_ENV: "/my/profile.xml"}]
)
def test_a_users_own_choice_is_kept(given):
    assert localhost_udp(given) == given


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
