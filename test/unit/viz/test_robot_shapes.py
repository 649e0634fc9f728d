"""core/viz/robot_shapes: the robot's links as primitives, for a viewer without its meshes."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from alpha_matrix.core.standard_arm.arm import panda_urdf_path, panda_urdf_text
from alpha_matrix.core.viz import markers as mk
from alpha_matrix.core.viz.robot_shapes import link_shapes, mesh_vertices, principal_box, resolve_mesh


def test_every_panda_link_with_geometry_becomes_one_primitive_of_its_size() -> None:
    shapes, skipped = link_shapes(panda_urdf_text(), panda_urdf_path().parent)
    assert not skipped
    by_link = {s.link: s for s in shapes}
    assert set(by_link) == {f"panda_link{i}" for i in range(8)} | {
        "panda_hand",
        "panda_leftfinger",
        "panda_rightfinger",
    }
    for s in shapes:  # a Panda link is a few centimetres to a few decimetres on each side
        assert s.kind in {"CUBE", "CYLINDER"} and all(0.02 < v < 0.4 for v in s.scale), s
        assert abs(np.linalg.norm(s.orientation) - 1.0) < 1e-9
    markers = mk.robot(shapes)
    assert all(
        m.frame == m_s.link and m.frame_locked and m.ns == "robot" for m, m_s in zip(markers, shapes, strict=True)
    )


def test_a_box_of_points_is_found_along_its_axes_longest_last() -> None:
    rng = np.random.default_rng(0)
    box = rng.uniform(-1, 1, (2000, 3)) * (0.05, 0.02, 0.2)  # a 0.1 x 0.04 x 0.4 box
    angle = 0.7
    rot = np.array([[np.cos(angle), -np.sin(angle), 0], [np.sin(angle), np.cos(angle), 0], [0, 0, 1]])
    centre, axes, size = principal_box(box @ rot.T + (1.0, 2.0, 3.0))
    assert np.allclose(centre, (1.0, 2.0, 3.0), atol=0.01)
    assert np.allclose(size, (0.04, 0.1, 0.4), atol=0.01)
    assert abs(abs(axes[:, 2] @ (0, 0, 1)) - 1) < 1e-3 and np.linalg.det(axes) > 0


def test_stl_binary_and_ascii_and_obj_meshes_are_read(tmp_path: Path) -> None:
    tri = [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)]
    binary = b"\0" * 80 + struct.pack("<I", 2) + (struct.pack("<12fH", 0, 0, 1, *sum(tri, ()), 0)) * 2
    (tmp_path / "b.stl").write_bytes(binary)
    facet = (
        "facet normal 0 0 1\nouter loop\n" + "".join(f"vertex {x} {y} {z}\n" for x, y, z in tri) + "endloop\nendfacet\n"
    )
    (tmp_path / "a.stl").write_text("solid a\n" + facet * 2 + "endsolid a\n")
    (tmp_path / "m.obj").write_text("# x\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\n")
    assert mesh_vertices(tmp_path / "b.stl").shape == (6, 3)
    assert mesh_vertices(tmp_path / "a.stl").shape == (6, 3)
    assert mesh_vertices(tmp_path / "m.obj").shape == (4, 3)
    (tmp_path / "cut.stl").write_bytes(binary[:120])
    with pytest.raises(ValueError, match="cut short"):
        mesh_vertices(tmp_path / "cut.stl")


def test_primitives_pass_through_and_a_missing_or_escaping_mesh_is_named_not_raised(tmp_path: Path) -> None:
    urdf = """<robot name="r">
      <link name="a"><collision><origin xyz="0 0 0.1"/><geometry><cylinder radius="0.05" length="0.3"/></geometry></collision></link>
      <link name="b"><visual><geometry><box size="0.1 0.2 0.3"/></geometry></visual></link>
      <link name="c"><collision><geometry><mesh filename="package://pkg/missing.obj"/></geometry></collision></link>
      <link name="d"><collision><geometry><mesh filename="package://../../etc/passwd.obj"/></geometry></collision></link>
      <link name="e"/>
    </robot>"""
    shapes, skipped = link_shapes(urdf, tmp_path)
    assert [(s.link, s.kind, s.scale) for s in shapes] == [
        ("a", "CYLINDER", (0.1, 0.1, 0.3)),
        ("b", "CUBE", (0.1, 0.2, 0.3)),
    ]
    assert shapes[0].position == (0.0, 0.0, 0.1)
    assert [line.split(":")[0] for line in skipped] == ["c", "d"] and "outside" in skipped[1]
    with pytest.raises(ValueError, match="outside"):
        resolve_mesh("file:///../x.obj", tmp_path / "root")
