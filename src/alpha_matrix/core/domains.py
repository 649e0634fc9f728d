"""ROS domain ids: only the safe range, and never one shared by two concurrent graphs.

On Linux, ROS 2 (DDS) puts domain ``d`` on UDP ports from 7400 + 250 * d; above domain 101
they fall into the kernel's ephemeral port range, where any program's outgoing connection can
take them. So every domain here is in 0..101. Concurrent runs on one machine get distinct
domains through a lock file per id (``<lock dir>/<id>.lock``, ``fcntl.flock`` held by the
allocating process for its lifetime), never by pid arithmetic.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from alpha_matrix.core.errors import AlphaMatrixError, ConfigError
from alpha_matrix.core.runlock import Hold, InUseError, ancestors, try_hold

SAFE_MAX = 101
# The pool allocations draw from: 0 is left to the user's own ROS unless asked for explicitly.
POOL = range(1, SAFE_MAX + 1)
LOCK_DIR_ENV = "ALPHA_MATRIX_DOMAIN_LOCKS"
WHY = (
    f"use 0..{SAFE_MAX}: ROS 2 puts domain d on UDP ports 7400+250*d, and above {SAFE_MAX} "
    "they fall into the ephemeral port range on Linux"
)


def check_domain_id(value: object, what: str = "--domain-id") -> int:
    """``value`` as a domain id in 0..101, else ConfigError with the reason."""
    try:
        domain = int(str(value).strip())
    except ValueError:
        raise ConfigError(f"{what} {value!r}: not an integer") from None
    if not 0 <= domain <= SAFE_MAX:
        raise ConfigError(f"{what} {domain}: {WHY}")
    return domain


def default_domain(given: int | None, env: Mapping[str, str] | None = None) -> int:
    """The domain a graph runs on: --domain-id, else $ROS_DOMAIN_ID, else ROS's default 0."""
    if given is not None:
        return check_domain_id(given)
    raw = (os.environ if env is None else env).get("ROS_DOMAIN_ID", "")
    return check_domain_id(raw, "ROS_DOMAIN_ID") if raw.strip() else 0


def lock_dir() -> Path:
    path = Path(os.environ.get(LOCK_DIR_ENV) or Path(tempfile.gettempdir()) / "alpha_matrix-domains")
    if not path.is_dir():
        try:
            path.mkdir(parents=True, exist_ok=True)
            path.chmod(0o1777)  # shared by every user's runs, like /tmp itself
        except OSError as err:
            raise AlphaMatrixError(f"{path}: cannot create the domain lock directory ({err.strerror})") from None
    return path


@dataclass
class DomainLease:
    """A domain held for this process; ``hold`` is None when an ancestor holds it for us
    (a test process that allocated the domain and runs ``alpha-matrix`` on it)."""

    domain_id: int
    hold: Hold | None

    def release(self) -> None:
        if self.hold is not None:
            self.hold.release()


def _try(domain_id: int) -> Hold | int | None:
    try:
        got = try_hold(lock_dir() / f"{domain_id}.lock")
    except OSError:  # another user's lock file we cannot open: theirs
        return None
    if isinstance(got, Hold) and got.fd is not None:
        with contextlib.suppress(OSError):
            os.fchmod(got.fd, 0o666)
    return got


def claim(domain_id: int) -> DomainLease:
    """Hold ``domain_id`` (checked to be in 0..101); InUseError when a live process holds it."""
    domain_id = check_domain_id(domain_id)
    got = _try(domain_id)
    if isinstance(got, Hold):
        return DomainLease(domain_id, got)
    if got is not None and got in ancestors():
        return DomainLease(domain_id, None)
    who = f"pid {got}" if got is not None else "another process"
    raise InUseError(f"ROS domain {domain_id} is held by a live alpha-matrix graph ({who}): pass another --domain-id")


def allocate(count: int, first: int | None = None, pool: Iterable[int] = POOL) -> list[DomainLease]:
    """``count`` distinct domains held for this process: ``first`` (if given) first, the rest from ``pool``."""
    leases: list[DomainLease] = []
    try:
        if first is not None and count > 0:
            leases.append(claim(first))
        for domain_id in pool:
            if len(leases) >= count:
                break
            if domain_id == first:
                continue
            got = _try(check_domain_id(domain_id, "pool domain"))
            if isinstance(got, Hold):
                leases.append(DomainLease(domain_id, got))
        if len(leases) < count:
            raise InUseError(
                f"only {len(leases)} ROS domains free in the pool, {count} needed (each running graph holds one)"
            )
    except BaseException:
        release(leases)
        raise
    return leases


def release(leases: Iterable[DomainLease]) -> None:
    for lease in leases:
        lease.release()
