"""What the proximity bridge adds to the world, step by step: the episode's walking person, the
overhead camera's frames, and the ground truth the harness scores against.

Per episode a person is configured before its reset (``configure``); it enters after
``start_step`` and walks its path, a pure function of the step (core/sim/human.py). Every step
leaves a truth row (true distance, person in view, protective stop in effect); the camera
renders every 24th step. Images and truth are deterministic: the scene is a function of the
commands and the steps, and the sensor noise of frame k is drawn from (path name, seed, k).
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from alpha_matrix.core.seeds import rng
from alpha_matrix.core.sim.camera import LIGHTING, Camera, CameraConfig, Frame, static_bodies
from alpha_matrix.core.sim.camera_model import in_view
from alpha_matrix.core.sim.human import Human, HumanPath
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.proximity.scenarios import VIEW_HEIGHTS

TruthRow = tuple[int, float, bool, bool]  # step, true distance, person in view, stopped


def check_person(path_json: str, lighting: str) -> str:
    """ "" for a person the scene can show, else why not."""
    try:
        HumanPath(**json.loads(path_json))
        if lighting not in LIGHTING:
            raise ValueError(f"unknown lighting {lighting!r}")
    except (TypeError, ValueError) as err:
        return f"bad person: {err}"
    return ""


class ProximityScene:
    """``scene`` requests are read by attribute: name, seed, start_step, lighting, path_json."""

    def __init__(self, world: World, rgb: bool = True) -> None:
        self.world = world
        self.rgb = rgb  # render the colour image too (someone reads it: camera/color/image_raw)
        self.camera = Camera(world.client_id, CameraConfig(), static_bodies(world.body_names))
        self.human: Human | None = None
        self.scenes: dict[str, Any] = {}  # configured, waiting for their episode's reset
        self.scene: Any = None
        self.truth: list[TruthRow] = []
        self.truth_episode = ""

    def configure(self, episode_id: str, scene: Any) -> str:
        """Keep the person of ``episode_id`` for its reset; "" or why it was refused."""
        if why := check_person(scene.path_json, scene.lighting):
            return why
        self.scenes[episode_id] = scene
        return ""

    def before_reset(self) -> None:
        """Remove the last episode's person before the scene is rebuilt."""
        self._remove_person()

    def after_reset(self, episode_id: str) -> None:
        self.scene = self.scenes.pop(episode_id, None)
        self.truth_episode = episode_id

    def after_step(self, step: int) -> Frame | None:
        """The step's truth row is kept; the camera's frame when one is due; the person enters
        after the frame of ``start_step``."""
        sc, human = self.scene, self.human
        gt, seen = math.inf, False
        if human is not None and sc is not None:
            st = human.pose_kinematics(step - sc.start_step)
            gt = human.ground_truth_distance()
            pts = np.array([[st.x, st.y, h] for h in VIEW_HEIGHTS])
            seen = bool(np.all(in_view(self.camera.info, pts, self.camera.config.far)))
        self.truth.append((step, gt, seen, self.world.stopped))
        frame = self.render(step) if self.camera.due(step) else None
        if sc is not None and human is None and step >= sc.start_step:
            self.human = Human(self.world, HumanPath(**json.loads(sc.path_json)))  # posed at t = 0
        return frame

    def render(self, step: int) -> Frame:
        sc, human = self.scene, self.human
        if sc is None:
            noise, light = rng("proximity", "frame", "", 0, step), LIGHTING["default"]
        elif human is None:  # the empty cell while the robot settles: the detector's reference
            noise, light = rng("proximity", "reference", sc.name, sc.seed, step), LIGHTING[sc.lighting]
        else:
            k = step - sc.start_step
            human.set_step(k)
            noise, light = rng("proximity", "frame", sc.name, sc.seed, k), LIGHTING[sc.lighting]
        return self.camera.render(step, noise, light, rgb=self.rgb)

    def take_truth(self) -> list[TruthRow]:
        rows, self.truth = self.truth, []
        return rows

    def _remove_person(self) -> None:
        if self.human is not None:
            self.human.close()
            self.human = None

    def close(self) -> None:
        self._remove_person()
        self.camera.close()
