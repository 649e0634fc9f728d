"""The depth camera's own scene: what the depth image needs, at about a ninth of the cost.

Rendering the world's client with TinyRenderer costs ~28 ms a frame, nearly all of it in two
places: the Panda's visual meshes (~100k triangles, a fixed cost per triangle whatever the
image size) and the floor plane (every pixel shaded, every frame). The depth image needs
neither: the floor and the table never move, and the robot stands inside the detector's
exclusion volume, where its only effect is what it hides. So depth is rendered from a
render-only mirror of the world in its own DIRECT client (never stepped, no physics):

* the static bodies (floor, table) are rendered once into a background depth buffer and
  dropped from the mirror; each frame renders the moving bodies alone, cropped to the pixels
  their bounding boxes can reach (``crop_projection``: the same pixel centres), and takes the
  nearer of the two per pixel, which is what the z-buffer of a single render of everything gives;
* every other body of the world (robot, blocks, the person's puppets) is mirrored shape by
  shape and posed from the world before each frame; meshes with a simplified collision twin
  (``meshes/visual/X.obj`` -> ``meshes/collision/X.obj``, the Panda's) are drawn with the twin:
  the same links to within a few millimetres, ~30x fewer triangles.

Colour is not rendered here (``camera.Camera`` renders the world itself when asked for it).
Deterministic: the image is a function of the world's poses only.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pybullet as p

from alpha_matrix.core.sim.camera_model import CameraInfo, project

VISUAL_DIR, COLLISION_DIR = f"{os.sep}meshes{os.sep}visual{os.sep}", f"{os.sep}meshes{os.sep}collision{os.sep}"

Shape = tuple  # one row of getVisualShapeData: (body, link, geometry, dims, file, position, orientation, rgba)


def proxy_mesh(path: str) -> str:
    """The mesh the depth scene draws for ``path``: its collision twin when there is one."""
    twin = path.replace(VISUAL_DIR, COLLISION_DIR)
    return twin if twin != path and os.path.isfile(twin) else path


def _signature(shapes: list[Shape]) -> tuple:
    """What a body looks like (geometry, not colour): a reused body id with other shapes is rebuilt."""
    return tuple((s[1], s[2], tuple(s[3]), s[4], tuple(s[5]), tuple(s[6])) for s in shapes)


@dataclass
class _Mirror:
    signature: tuple
    links: list[int]  # the world link whose pose each mirror body takes (-1: the base)
    bodies: list[int]  # mirror bodies, one per visual shape
    corners: list[np.ndarray]  # each shape's local bounding box corners (8, 3), in its link's frame


@dataclass(frozen=True)
class View:
    """What the depth scene renders: image size, PyBullet matrices and the pinhole model."""

    width: int
    height: int
    view: tuple[float, ...]
    proj: tuple[float, ...]
    info: CameraInfo
    near: float
    far: float


_OBJ_BOUNDS: dict[str, np.ndarray] = {}


def _mesh_bounds(path: str) -> np.ndarray:
    """(min, max) of an .obj mesh's vertices, unscaled."""
    if path not in _OBJ_BOUNDS:
        with open(path) as f:
            v = np.array([[float(x) for x in line.split()[1:4]] for line in f if line.startswith("v ")])
        _OBJ_BOUNDS[path] = np.stack([v.min(axis=0), v.max(axis=0)])
    return _OBJ_BOUNDS[path]


def _corners(shape: Shape, mesh: str) -> np.ndarray:
    """The shape's bounding box corners in its link's frame (visual frame applied)."""
    geom, dims = shape[2], shape[3]
    if geom == p.GEOM_MESH:
        lo, hi = _mesh_bounds(mesh) * np.asarray(dims)
        lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)  # a negative scale mirrors
    elif geom == p.GEOM_SPHERE:
        lo, hi = -np.full(3, dims[0]), np.full(3, dims[0])
    elif geom in (p.GEOM_CAPSULE, p.GEOM_CYLINDER):
        r, half = dims[1], dims[0] / 2.0 + (dims[1] if geom == p.GEOM_CAPSULE else 0.0)
        lo, hi = -np.array([r, r, half]), np.array([r, r, half])
    else:  # box: full extents
        lo, hi = -np.asarray(dims) / 2.0, np.asarray(dims) / 2.0
    box = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    rot = np.array(p.getMatrixFromQuaternion(shape[6])).reshape(3, 3)
    return box @ rot.T + np.asarray(shape[5])


def crop_projection(
    proj: tuple[float, ...], width: int, height: int, cols: tuple[int, int], rows: tuple[int, int]
) -> list[float]:
    """A projection matrix whose image is exactly the pixels ``cols`` x ``rows`` (row 0 at the top)
    of ``proj``'s ``width`` x ``height`` image: the same pixel centres, the same depth."""
    (u0, u1), (r0, r1) = cols, rows
    a, b = 2.0 * u0 / width - 1.0, 2.0 * u1 / width - 1.0
    top, bottom = 1.0 - 2.0 * r0 / height, 1.0 - 2.0 * r1 / height
    m = np.eye(4)
    m[0, 0], m[0, 3] = 2.0 / (b - a), -(a + b) / (b - a)
    m[1, 1], m[1, 3] = 2.0 / (top - bottom), -(top + bottom) / (top - bottom)
    full = np.array(proj, dtype=float).reshape(4, 4).T  # PyBullet lists are column-major
    return list((m @ full).T.reshape(-1))


class DepthScene:
    """Depth buffers of a world client's view, rendered from a cheap mirror of its bodies."""

    def __init__(self, source_cid: int, view: View, static_bodies: Iterable[int] = ()) -> None:
        self.source = source_cid
        self.v = view
        self.static = frozenset(static_bodies)
        self.cid = p.connect(p.DIRECT)
        self._mirrors: dict[int, _Mirror] = {}
        self._boxes: list[np.ndarray] = []  # world corners of each mirrored shape, as last synced
        self._background: np.ndarray | None = None

    def _c(self) -> dict:
        return {"physicsClientId": self.cid}

    def _shape(self, s: Shape, mesh: str) -> int:
        geom, dims = s[2], s[3]
        kw = {"visualFramePosition": s[5], "visualFrameOrientation": s[6], **self._c()}
        if geom == p.GEOM_MESH:
            return p.createVisualShape(geom, fileName=mesh, meshScale=dims, **kw)
        if geom == p.GEOM_SPHERE:
            return p.createVisualShape(geom, radius=dims[0], **kw)
        if geom in (p.GEOM_CAPSULE, p.GEOM_CYLINDER):
            return p.createVisualShape(geom, radius=dims[1], length=dims[0], **kw)
        if geom == p.GEOM_BOX:
            return p.createVisualShape(geom, halfExtents=[d / 2.0 for d in dims], **kw)
        raise ValueError(f"depth scene: unsupported visual geometry {geom}")

    def _mirror(self, shapes: list[Shape]) -> _Mirror:
        meshes = [proxy_mesh(s[4].decode()) if s[2] == p.GEOM_MESH else "" for s in shapes]
        bodies = [
            p.createMultiBody(0.0, -1, self._shape(s, m), [0.0, 0.0, -50.0], **self._c())
            for s, m in zip(shapes, meshes, strict=True)
        ]
        corners = [_corners(s, m) for s, m in zip(shapes, meshes, strict=True)]
        return _Mirror(_signature(shapes), [s[1] for s in shapes], bodies, corners)

    def _drop(self, mirror: _Mirror) -> None:
        for body in mirror.bodies:
            p.removeBody(body, **self._c())

    def _pose(self, body: int, mirror: _Mirror) -> None:
        """Each mirror body at its world link's pose (the frame visual shapes are given in)."""
        src = {"physicsClientId": self.source}
        links = sorted({link for link in mirror.links if link >= 0})
        poses = {-1: p.getBasePositionAndOrientation(body, **src)}
        if links:
            for link, ls in zip(links, p.getLinkStates(body, links, **src), strict=True):
                poses[link] = (ls[0], ls[1])
        for mb, link, corners in zip(mirror.bodies, mirror.links, mirror.corners, strict=True):
            pos, orn = poses[link]
            p.resetBasePositionAndOrientation(mb, pos, orn, **self._c())
            rot = np.array(p.getMatrixFromQuaternion(orn)).reshape(3, 3)
            self._boxes.append(corners @ rot.T + np.asarray(pos))

    def _sync(self, bodies: Iterable[int]) -> None:
        """Mirror exactly ``bodies`` of the world, posed as they are now."""
        src = {"physicsClientId": self.source}
        keep = set()
        self._boxes = []
        for body in bodies:
            shapes = list(p.getVisualShapeData(body, **src))
            mirror = self._mirrors.get(body)
            if mirror is None or mirror.signature != _signature(shapes):
                if mirror is not None:
                    self._drop(mirror)
                mirror = self._mirrors[body] = self._mirror(shapes)
            self._pose(body, mirror)
            keep.add(body)
        for body in set(self._mirrors) - keep:
            self._drop(self._mirrors.pop(body))

    def _region(self) -> tuple[tuple[int, int], tuple[int, int]] | None:
        """Pixel columns and rows that can show a mirrored body (None: none in range)."""
        v = self.v
        boxes = self._boxes
        if not boxes:
            return None
        uvz = project(v.info, np.concatenate(boxes))
        per_box = uvz.reshape(len(boxes), 8, 3)
        seen = per_box[~np.all(per_box[:, :, 2] >= v.far, axis=1)]  # a box wholly beyond far is not drawn
        if not len(seen):
            return None
        if np.any(seen[:, :, 2] <= v.near):  # reaching the camera: its projection is unbounded
            return (0, v.width), (0, v.height)
        u, r = seen[:, :, 0], seen[:, :, 1]
        cols = (max(0, int(np.floor(u.min())) - 2), min(v.width, int(np.ceil(u.max())) + 3))
        rows = (max(0, int(np.floor(r.min())) - 2), min(v.height, int(np.ceil(r.max())) + 3))
        return (cols, rows) if cols[0] < cols[1] and rows[0] < rows[1] else None

    def _render(self, cols: tuple[int, int], rows: tuple[int, int]) -> np.ndarray:
        v = self.v
        w, h = cols[1] - cols[0], rows[1] - rows[0]
        proj = list(v.proj) if (w, h) == (v.width, v.height) else crop_projection(v.proj, v.width, v.height, cols, rows)
        img = p.getCameraImage(
            w,
            h,
            list(v.view),
            proj,
            shadow=0,
            renderer=p.ER_TINY_RENDERER,
            flags=p.ER_NO_SEGMENTATION_MASK,
            **self._c(),
        )
        return np.asarray(img[3], dtype=np.float32).reshape(h, w)

    def _world_bodies(self) -> list[int]:
        src = {"physicsClientId": self.source}
        return [p.getBodyUniqueId(i, **src) for i in range(p.getNumBodies(**src))]

    def depth_buffer(self) -> np.ndarray:
        """The OpenGL depth buffer (0..1, 1 = nothing) of the world as it is now."""
        v, bodies = self.v, self._world_bodies()
        if self._background is None:
            self._sync(b for b in bodies if b in self.static)
            self._background = self._render((0, v.width), (0, v.height))
        self._sync(b for b in bodies if b not in self.static)
        out = self._background.copy()
        if (region := self._region()) is not None:
            (u0, u1), (r0, r1) = region
            out[r0:r1, u0:u1] = np.minimum(out[r0:r1, u0:u1], self._render((u0, u1), (r0, r1)))
        return out

    def close(self) -> None:
        if p.isConnected(self.cid):
            p.disconnect(self.cid)
        self._mirrors.clear()
