"""alpha-matrix --version: the installed metadata's version, which every declaration agrees with."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from importlib import metadata
from pathlib import Path

import pytest

from alpha_matrix.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_version_prints_the_installed_version_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"alpha-matrix {metadata.version('alpha_matrix')}\n"


def test_setup_py_and_package_xml_declare_the_same_version() -> None:
    """pip installs setup.py's version, colcon reads package.xml's: a release changes both."""
    setup = re.search(r'version="([^"]+)"', (ROOT / "setup.py").read_text())
    xml = ET.parse(ROOT / "package.xml").getroot().findtext("version")
    assert setup is not None and setup.group(1) == xml
    import alpha_matrix

    assert alpha_matrix.__version__ == xml
