"""ROS domain ids: the safe range 0..101 only, and one live graph per id (lock files, not pids)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from alpha_matrix.core.domains import LOCK_DIR_ENV, SAFE_MAX, allocate, check_domain_id, claim, default_domain, release
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.runlock import InUseError

HOLDER = """
import sys
from alpha_matrix.core.domains import claim
leases = [claim(int(d)) for d in sys.argv[1:]]
print(" ".join(str(lease.domain_id) for lease in leases), flush=True)
sys.stdin.read()
"""


@pytest.fixture(autouse=True)
def _own_lock_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(LOCK_DIR_ENV, str(tmp_path / "domains"))


def _hold_elsewhere(*domains: int) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, *map(str, domains)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().split() == [str(d) for d in domains]
    return proc


@pytest.mark.parametrize("value", [0, 1, 42, SAFE_MAX, "7", " 7 "])
def test_safe_domains_are_accepted(value):
    assert check_domain_id(value) == int(str(value))


@pytest.mark.parametrize("value", [-1, SAFE_MAX + 1, 150, 232, 233, 10**9])
def test_domains_outside_the_safe_range_are_refused_with_the_reason(value):
    with pytest.raises(ConfigError) as err:
        check_domain_id(value)
    assert "0..101" in str(err.value) and "ephemeral port range" in str(err.value)


def test_the_default_domain_is_the_option_then_the_environment_then_zero():
    assert default_domain(5, {"ROS_DOMAIN_ID": "9"}) == 5
    assert default_domain(None, {"ROS_DOMAIN_ID": "9"}) == 9
    assert default_domain(None, {"ROS_DOMAIN_ID": ""}) == 0 and default_domain(None, {}) == 0
    for bad in ("150", "x"):
        with pytest.raises(ConfigError, match="ROS_DOMAIN_ID"):
            default_domain(None, {"ROS_DOMAIN_ID": bad})


def test_allocations_are_distinct_avoid_zero_and_are_released():
    a = allocate(3)
    b = allocate(2)
    ids = [x.domain_id for x in a + b]
    assert len(set(ids)) == 5 and 0 not in ids and all(1 <= d <= SAFE_MAX for d in ids)
    release(a + b)
    assert sorted(x.domain_id for x in allocate(5)) == sorted(ids)


def test_a_given_first_domain_comes_first():
    leases = allocate(3, first=0)
    assert [x.domain_id for x in leases][0] == 0 and len({x.domain_id for x in leases}) == 3
    release(leases)


def test_a_domain_held_by_a_live_process_is_refused_and_skipped():
    proc = _hold_elsewhere(1, 2)
    try:
        with pytest.raises(InUseError) as err:
            claim(2)
        assert "ROS domain 2" in str(err.value) and f"pid {proc.pid}" in str(err.value)
        with pytest.raises(InUseError):
            allocate(2, first=1)
        leases = allocate(2)
        assert [x.domain_id for x in leases] == [3, 4]
        release(leases)
    finally:
        proc.communicate("")
    release([claim(2)])  # its holder exited: free again


def test_a_held_domain_is_used_by_a_child_of_its_holder():
    """A test allocates a domain, then runs alpha-matrix on it: the child must not refuse it."""
    mine = claim(7)
    try:
        proc = _hold_elsewhere(7)  # would fail to print "7" if refused
        proc.communicate("")
    finally:
        mine.release()


def test_the_pool_can_run_out():
    leases = allocate(2, pool=range(1, 3))
    with pytest.raises(InUseError, match="only 0 ROS domains free in the pool, 1 needed"):
        allocate(1, pool=range(1, 3))
    release(leases)


def test_the_domain_probe_time_is_validated(monkeypatch):
    from alpha_matrix.core.errors import ConfigError
    from alpha_matrix.launcher import PROBE_ENV, PROBE_S, probe_seconds

    monkeypatch.delenv(PROBE_ENV, raising=False)
    assert probe_seconds() == PROBE_S
    monkeypatch.setenv(PROBE_ENV, "0.5")
    assert probe_seconds() == 0.5
    for bad in ("soon", "-1", "61", "nan"):
        monkeypatch.setenv(PROBE_ENV, bad)
        with pytest.raises(ConfigError, match=f"{PROBE_ENV}="):
            probe_seconds()
