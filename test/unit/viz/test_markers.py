"""core/viz/markers: the scene's markers from plain data."""

from __future__ import annotations

from alpha_matrix.core.sim.bodies import BodySpec
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.viz import markers as mk


def test_the_workspace_box_has_twelve_edges_on_its_corners() -> None:
    pts = mk.box_edges((0.0, 0.0, 0.0), (1.0, 2.0, 3.0))
    assert len(pts) == 24
    edges = {frozenset((pts[i], pts[i + 1])) for i in range(0, 24, 2)}
    assert len(edges) == 12
    assert all(c in {0.0, 1.0, 2.0, 3.0} for p in pts for c in p)


def test_static_scene_names_table_workspace_and_zone() -> None:
    specs = mk.static_scene(WorldConfig())
    assert [s.ns for s in specs] == ["table", "workspace", "zone"]
    assert specs[0].frame == "table" and specs[1].kind == "LINE_LIST"


def test_objects_take_their_colour_and_shape_from_the_block_or_the_suite_body() -> None:
    cfg = WorldConfig()
    shapes = mk.SceneShapes(cfg)
    poses = {"red": ((0.5, 0.0, 0.65), (0.0, 0.0, 0.0, 1.0)), "bin_a": ((0.6, 0.2, 0.7), (0.0, 0.0, 0.0, 1.0))}
    specs = mk.objects(poses, shapes)
    red = next(s for s in specs if s.ns == "objects" and s.id == 1)
    assert red.rgba == cfg.block_rgba[0] and red.kind == "CUBE"
    shapes.set_bodies([BodySpec("bin_a", "cylinder", (0.2, 0.2, 0.1), 1.0, (0.6, 0.2), (0.1, 0.2, 0.3, 1.0))])
    bin_a = next(s for s in mk.objects(poses, shapes) if s.ns == "objects" and s.id == 0)
    assert bin_a.kind == "CYLINDER" and bin_a.scale == (0.2, 0.2, 0.1) and bin_a.rgba == (0.1, 0.2, 0.3, 1.0)
    labels = [s.text for s in specs if s.ns == "labels"]
    assert labels == ["bin_a", "red"]


def test_events_are_drawn_where_they_happened_red_when_they_stopped_the_robot() -> None:
    specs = mk.event_markers([mk.SceneEvent("violent_contact", "panda/7-red", 120, (0.5, 0.0, 0.7), 61.2, True, True)])
    sphere, text = specs
    assert sphere.position == (0.5, 0.0, 0.7) and sphere.rgba == mk.RED
    assert "violent_contact" in text.text and "STOP" in text.text and "61.2" in text.text


def test_plot_values() -> None:
    assert mk.max_contact_force([]) == 0.0 and mk.max_contact_force([3.0, 9.5]) == 9.5
    assert mk.nearest([float("inf")]) is None and mk.nearest([2.0, 1.5, float("inf")]) == 1.5
    assert mk.proximity_limit({"threshold_m": 2}) == 2.0 and mk.proximity_limit({"name": "x"}) is None


def test_a_stop_is_read_from_the_status_of_a_command_it_cancelled_and_drawn_once() -> None:
    msg = "protective stop at step 130 (alert_guard: e-stop pressed)"
    stop = mk.stop_event(msg, 130, (0.4, 0.1, 0.8))
    assert stop == mk.SceneEvent("stop", "alert_guard", 130, (0.4, 0.1, 0.8), stop=True)
    assert mk.stop_event("episode step budget reached", 130, (0.0, 0.0, 0.0)) is None
    events: list[mk.SceneEvent] = []
    for e in (stop, stop, mk.SceneEvent("stop", "protective", 130, (0.0, 0.0, 0.0), stop=True)):
        mk.add_event(events, e)
    assert events == [stop]
    for key in ("panda/7-red", "panda/8-red", "panda/7-red"):
        mk.add_event(events, mk.SceneEvent("violent_contact", key, 131, (0.0, 0.0, 0.0)))
    assert [e.key for e in events] == ["alert_guard", "panda/7-red", "panda/8-red"]
