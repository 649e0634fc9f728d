"""Stale Fast DDS shared-memory files are removed; files a live process holds are kept."""

from __future__ import annotations

import fcntl
import threading
import time
from pathlib import Path

import pytest

from alpha_matrix.ros import shm
from alpha_matrix.ros.shm import clean_stale_shm


def _port(d: Path, n: int) -> None:
    for name in (f"fastdds_port{n}", f"fastdds_port{n}_el", f"sem.fastdds_port{n}_mutex"):
        (d / name).write_bytes(b"x")


def test_only_files_without_a_live_lock_holder_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _port(tmp_path, 7411)  # its owner died: the lock is free
    _port(tmp_path, 7413)  # its owner is alive: holds the lock
    (tmp_path / "fastdds_port7415_sl").write_bytes(b"")  # a second lock kind, held shared
    (tmp_path / "fastdds_port7415_el").write_bytes(b"")
    (tmp_path / "fastdds_port7415").write_bytes(b"x")
    (tmp_path / "fastdds_0123456789abcdef").write_bytes(b"x")  # a dead participant's segment
    (tmp_path / "fastdds_0123456789abcdef_el").write_bytes(b"")
    (tmp_path / "fastdds_port7000").write_bytes(b"x")  # no lock file at all: not judged, kept
    (tmp_path / "unrelated").write_bytes(b"x")
    monkeypatch.setattr(shm, "_fresh", lambda paths, now: False)  # ctime cannot be set back here
    with open(tmp_path / "fastdds_port7413_el", "ab") as held, open(tmp_path / "fastdds_port7415_sl", "ab") as shared:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(shared, fcntl.LOCK_SH | fcntl.LOCK_NB)
        assert clean_stale_shm(tmp_path) == 2
        left = sorted(p.name for p in tmp_path.iterdir())
    assert left == [
        "fastdds_port7000", "fastdds_port7413", "fastdds_port7413_el", "fastdds_port7415", "fastdds_port7415_el",
        "fastdds_port7415_sl", "sem.fastdds_port7413_mutex", "unrelated",
    ]  # fmt: skip
    assert clean_stale_shm(tmp_path / "missing") == 0


def test_a_port_being_built_is_never_removed(tmp_path: Path) -> None:
    """Its files made a moment ago, its lock taken a moment later (as a participant builds one):
    judged too fresh at first, held once looked at again; never removed."""
    _port(tmp_path, 7417)
    assert shm.stale_shm(tmp_path) == ({}, ["fastdds_port7417"])
    with open(tmp_path / "fastdds_port7417_el", "ab") as lock:
        builder = threading.Timer(0.5, fcntl.flock, (lock, fcntl.LOCK_EX))
        builder.start()
        try:
            assert clean_stale_shm(tmp_path) == 0
        finally:
            builder.join()
        assert (tmp_path / "fastdds_port7417").exists() and (tmp_path / "sem.fastdds_port7417_mutex").exists()
    now = time.time()
    assert not shm._fresh([tmp_path / "fastdds_port7417"], now + shm.FRESH_S + 1)  # and later, judged as any
