"""Run and bag directories are held by one live run at a time; a dead holder holds nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from alpha_matrix.core.runlock import Hold, InUseError, ancestors, dir_lock_path, lock_dirs, try_hold

HOLDER = """
import sys
from pathlib import Path
from alpha_matrix.core.runlock import lock_dirs
lock = lock_dirs([Path(p) for p in sys.argv[1:]])
print("held", flush=True)
sys.stdin.read()
"""


def _hold_elsewhere(*dirs: Path) -> subprocess.Popen[str]:
    """Another live process holding ``dirs`` until its stdin closes."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, *map(str, dirs)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_a_lock_lies_beside_its_directory_and_cannot_be_a_run_id(tmp_path):
    assert dir_lock_path(tmp_path / "runs" / "t") == tmp_path / "runs" / ".t.lock"


def test_held_dirs_are_released_and_leave_nothing(tmp_path):
    dirs = [tmp_path / "runs" / "t", tmp_path / "bags" / "t"]
    with lock_dirs(dirs) as lock:
        assert len(lock.holds) == 2
        assert (tmp_path / "runs" / ".t.lock").read_text().strip().isdigit()
    assert _tree(tmp_path) == ["bags", "runs"]


def test_a_live_holder_is_refused_with_its_pid_and_nothing_is_written(tmp_path):
    runs, bags = tmp_path / "runs" / "t", tmp_path / "elsewhere" / "bags" / "t"
    proc = _hold_elsewhere(runs)
    try:
        before = _tree(tmp_path)
        with pytest.raises(InUseError) as err:
            lock_dirs([bags, runs])  # bags first: its lock is taken, then given back with its new parents
        assert f"pid {proc.pid}" in str(err.value) and str(runs) in str(err.value)
        assert "\n" not in str(err.value)
        assert _tree(tmp_path) == before
    finally:
        proc.communicate("")
    with lock_dirs([runs, bags]):  # the holder is gone: free again
        pass


def test_a_stale_lock_of_a_dead_pid_is_not_a_hold(tmp_path):
    path = tmp_path / ".t.lock"
    path.write_text("999999999\n")  # a leftover from a killed run
    got = try_hold(path, unlink=True)
    assert isinstance(got, Hold)
    got.release()
    assert not path.exists()


def test_the_same_process_cannot_take_a_directory_twice(tmp_path):
    with lock_dirs([tmp_path / "t"]), pytest.raises(InUseError):
        lock_dirs([tmp_path / "t"])


def test_ancestors_include_the_parent():
    assert os.getppid() in ancestors()


def test_ancestors_reach_past_the_parent():
    """A grandchild (e.g. alpha-matrix started by a shell a test started) sees the test process."""
    import subprocess
    import sys

    code = "from alpha_matrix.core.runlock import ancestors; print(sorted(ancestors()))"
    out = subprocess.run(["bash", "-c", f"{sys.executable} -c '{code}'; true"], capture_output=True, text=True)
    assert str(os.getpid()) in out.stdout.strip("[]\n").split(", "), out.stdout + out.stderr


def test_a_discarded_lock_removes_the_directories_it_made(tmp_path):
    (tmp_path / "runs").mkdir()
    lock = lock_dirs([tmp_path / "runs" / "t", tmp_path / "bags" / "t"])
    lock.discard()  # refused after the locks were taken (a busy domain): nothing left behind
    assert _tree(tmp_path) == ["runs"]
