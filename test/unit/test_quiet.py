"""C output (written to fds 1 and 2, past sys.stdout) goes to the log at debug level, not the terminal."""

from __future__ import annotations

import ctypes
import logging
import os
import sys
from pathlib import Path

from alpha_matrix.core.quiet import native_output


def _run(code: str, tmp_path: Path) -> tuple[str, str]:
    """``code`` in a fresh interpreter with DEBUG logs on stdout as ``LOG <message>``; (stdout, stderr)."""
    import subprocess

    prelude = (
        "import logging, sys\nlogging.basicConfig(level=logging.DEBUG, format='LOG %(message)s', stream=sys.stdout)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", prelude + code], capture_output=True, text=True, cwd=tmp_path, timeout=60, check=True
    )
    return proc.stdout, proc.stderr


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_what_c_writes_to_fd_1_and_2_is_logged_at_debug():
    libc = ctypes.CDLL(None)
    log, seen = logging.getLogger("alpha_matrix.native"), _Records()
    level = log.level
    log.addHandler(seen)
    log.setLevel(logging.DEBUG)
    try:
        with native_output("the load"):
            os.write(1, b"to fd 1\n")
            os.write(2, b"to fd 2\n")
            libc.printf(b"buffered by C stdio\n")  # flushed inside the capture
            with native_output("nested"):  # shares the outer capture
                os.write(2, b"inner\n")
    finally:
        log.removeHandler(seen)
        log.setLevel(level)
    got = [r.getMessage() for r in seen.records]
    assert got[:2] == ["the load: to fd 1", "the load: to fd 2"]  # C's stdio line: when its buffer is flushed
    assert sorted(got[2:]) == ["the load: buffered by C stdio", "the load: inner"]
    assert all(r.levelno == logging.DEBUG for r in seen.records)


def test_a_module_printing_at_import_is_imported_quietly(tmp_path):
    (tmp_path / "noisy_ext.py").write_text("import os\nos.write(1, b'build time: today\\n')\nVALUE = 3\n")
    out, err = _run(
        "sys.path.insert(0, '.')\n"
        "from alpha_matrix.core.quiet import quiet_imports\n"
        "quiet_imports('noisy_ext')\n"
        "print('before', flush=True)\n"
        "import noisy_ext\n"
        "print('after', noisy_ext.VALUE, flush=True)\n",
        tmp_path,
    )
    assert out.splitlines() == ["before", "LOG import noisy_ext: build time: today", "after 3"], out + err
