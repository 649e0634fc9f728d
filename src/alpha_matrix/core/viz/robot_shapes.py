"""The robot as primitive shapes, one or more per link, for a viewer that cannot load its meshes.

A URDF names its meshes as ``package://`` URLs. RViz and Foxglove's desktop app resolve them on
the machine's package path; Foxglove's web app and a bag opened elsewhere cannot, and the links
vanish while their frames stay. So each link's collision geometry (its visual when it has none)
becomes a box or a cylinder: URDF primitives as they are, a mesh by its principal-axes bounding
box (a cylinder when the two short sides are alike). A few hundred bytes per link, drawn in the
link's own TF frame, so it moves with /tf like the model would.

A mesh that cannot be found or read is left out, and named: the caller reports it once.
"""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from alpha_matrix.core.viz.frames import origin_matrix, quaternion, urdf_floats

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]

ROUND = 0.3  # a mesh box is drawn as a cylinder when its two short sides differ by at most this share
MESH_SUFFIXES = (".obj", ".stl")


@dataclass(frozen=True)
class LinkShape:
    """One primitive in ``link``'s frame: ``kind`` CUBE or CYLINDER or SPHERE (Marker type names),
    its centre and orientation there, and its size (the cylinder's axis along z, as a Marker's)."""

    link: str
    kind: str
    position: Vec3
    orientation: Quat
    scale: Vec3


def mesh_vertices(path: Path) -> np.ndarray:
    """The vertices of an OBJ or STL (binary or ASCII) file, (n, 3); ValueError if it has none."""
    data = path.read_bytes()
    if path.suffix.lower() == ".obj":
        rows = [line.split()[1:4] for line in data.decode(errors="replace").splitlines() if line.startswith("v ")]
        points = np.array(rows, dtype=float) if rows else np.zeros((0, 3))
    elif data[:5].lower() == b"solid" and b"facet" in data[:512]:
        rows = [
            line.split()[1:4]
            for line in data.decode(errors="replace").splitlines()
            if line.strip().startswith("vertex")
        ]
        points = np.array(rows, dtype=float) if rows else np.zeros((0, 3))
    else:
        (count,) = struct.unpack_from("<I", data, 80) if len(data) >= 84 else (0,)
        if len(data) < 84 + 50 * count:
            raise ValueError(f"{path.name}: a binary STL of {count} triangles is cut short")
        tris = np.frombuffer(
            data, dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]), count=count, offset=84
        )
        points = tris["v"].reshape(-1, 3).astype(float)
    if len(points) < 4:
        raise ValueError(f"{path.name}: fewer than 4 vertices")
    return points


def principal_box(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(centre, rotation whose columns are the axes, full extents along them) of the points'
    bounding box along their principal axes, the longest axis last."""
    mean = points.mean(axis=0)
    _, vectors = np.linalg.eigh(np.cov((points - mean).T))
    local = (points - mean) @ vectors
    lo, hi = local.min(axis=0), local.max(axis=0)
    order = np.argsort(hi - lo)  # shortest first: the longest becomes z, a cylinder's axis
    axes = vectors[:, order]
    if np.linalg.det(axes) < 0:
        axes[:, 0] = -axes[:, 0]
    lo, hi = lo[order], hi[order]
    centre = mean + axes @ ((lo + hi) / 2)
    return centre, axes, hi - lo


def default_mesh_root() -> Path:
    """The simulated Panda's folder: its URDF's ``package://meshes/...`` are read under it."""
    import pybullet_data  # noqa: PLC0415 - a data path, no simulator

    from alpha_matrix.core.sim.world_config import WorldConfig  # noqa: PLC0415

    return (Path(pybullet_data.getDataPath()) / WorldConfig().panda_urdf).parent


def mesh_root_of(param: str) -> Path:
    """A node's ``mesh_root`` parameter as a folder (empty: the simulated Panda's)."""
    return Path(param) if param else default_mesh_root()


def resolve_mesh(url: str, mesh_root: Path) -> Path:
    """A URDF mesh filename as a path under ``mesh_root`` (``package://`` and ``file://`` stripped;
    a relative path stays under the root, never above it)."""
    for prefix in ("package://", "file://"):
        if url.startswith(prefix):
            url = url[len(prefix) :]
    path = (mesh_root / url.lstrip("/")).resolve()
    if not path.is_relative_to(mesh_root.resolve()):
        raise ValueError(f"{url}: outside {mesh_root}")
    return path


def _shape(link: str, placed: np.ndarray, geometry: ET.Element, mesh_root: Path) -> LinkShape:
    """One geometry element as a primitive in the link frame (``placed``: link_T_geometry)."""
    if (box := geometry.find("box")) is not None:
        kind, size, local = "CUBE", np.array(urdf_floats(box.get("size"), (0.0, 0.0, 0.0))), np.eye(4)
    elif (cyl := geometry.find("cylinder")) is not None:
        r, length = float(cyl.get("radius", 0)), float(cyl.get("length", 0))
        kind, size, local = "CYLINDER", np.array([2 * r, 2 * r, length]), np.eye(4)
    elif (sphere := geometry.find("sphere")) is not None:
        d = 2 * float(sphere.get("radius", 0))
        kind, size, local = "SPHERE", np.array([d, d, d]), np.eye(4)
    elif (mesh := geometry.find("mesh")) is not None:
        path = resolve_mesh(mesh.get("filename", ""), mesh_root)
        if path.suffix.lower() not in MESH_SUFFIXES:
            raise ValueError(f"{path.name}: only {', '.join(MESH_SUFFIXES)} meshes are drawn")
        points = mesh_vertices(path) * urdf_floats(mesh.get("scale"), (1.0, 1.0, 1.0))
        centre, axes, size = principal_box(points)
        local = np.eye(4)
        local[:3, :3], local[:3, 3] = axes, centre
        round_ = size[0] > 0 and (size[1] - size[0]) <= ROUND * size[1]
        kind = "CYLINDER" if round_ else "CUBE"
        if round_:
            size = np.array([size[1], size[1], size[2]])
    else:
        raise ValueError("no box, cylinder, sphere or mesh")
    m = placed @ local
    t = m[:3, 3]
    x, y, z = (float(v) for v in size)
    return LinkShape(link, kind, (float(t[0]), float(t[1]), float(t[2])), quaternion(m[:3, :3]), (x, y, z))


def link_shapes(urdf: str, mesh_root: Path) -> tuple[list[LinkShape], list[str]]:
    """Every link's shapes, and one line per geometry left out (why). Collision geometry is used
    where a link has it: it is coarse already, and it is what the simulator collides with."""
    shapes, skipped = [], []
    for link in ET.fromstring(urdf).findall("link"):
        name = link.get("name", "")
        elements = link.findall("collision") or link.findall("visual")
        for element in elements:
            geometry = element.find("geometry")
            if geometry is None:
                continue
            try:
                shapes.append(_shape(name, origin_matrix(element), geometry, mesh_root))
            except (OSError, ValueError) as err:
                skipped.append(f"{name}: {err}")
    return shapes, skipped
