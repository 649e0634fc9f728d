"""SplitBagWriter repeats the last message of each latched topic (/robot_description, /tf_static)
at the start of every split, so a split opened alone in a viewer still has the robot model."""

from __future__ import annotations

from pathlib import Path

from mcap.reader import make_reader
from rosbags.typesys import Stores, get_typestore

from alpha_matrix.core.bag import SplitBagWriter, latched_missing


def _counts(path: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    with path.open("rb") as f:
        for _schema, channel, _msg in make_reader(f).iter_messages():
            out[channel.topic] = out.get(channel.topic, 0) + 1
    return out


def test_every_split_opens_with_the_latched_messages(tmp_path: Path) -> None:
    store = get_typestore(Stores.ROS2_KILTED)
    String = store.types["std_msgs/msg/String"]
    raw = lambda text: bytes(store.serialize_cdr(String(data=text), "std_msgs/msg/String"))  # noqa: E731
    topics = {"/robot_description": "std_msgs/msg/String", "/chatter": "std_msgs/msg/String"}
    bag = SplitBagWriter(tmp_path / "b", topics, latched={"/robot_description"})
    bag.write("/robot_description", 1, raw("<robot/>"))
    bag.write("/chatter", 2, raw("a"))
    first = bag.rotate()
    bag.write("/chatter", 3, raw("b"))
    second = bag.rotate()
    bag.write("/robot_description", 4, raw("<robot name='2'/>"))  # a new one replaces it, never twice
    assert bag.rotate() is None  # a latched message alone opens no split
    bag.write("/chatter", 5, raw("c"))
    third = bag.rotate()
    bag.close()
    assert _counts(tmp_path / "b" / str(first)) == {"/robot_description": 1, "/chatter": 1}
    assert _counts(tmp_path / "b" / str(second)) == {"/robot_description": 1, "/chatter": 1}
    assert _counts(tmp_path / "b" / str(third)) == {"/robot_description": 1, "/chatter": 1}


def test_a_bag_of_latched_messages_alone_is_no_bag(tmp_path: Path) -> None:
    """An idle launch: the robot model and its fixed frames arrive, no episode does: no bag left."""
    store = get_typestore(Stores.ROS2_KILTED)
    raw = bytes(store.serialize_cdr(store.types["std_msgs/msg/String"](data="<robot/>"), "std_msgs/msg/String"))
    bag = SplitBagWriter(tmp_path / "bags" / "idle", {"/robot_description": "std_msgs/msg/String"},
                         latched={"/robot_description"})  # fmt: skip
    bag.write("/robot_description", 1, raw)
    bag.close()
    assert not (tmp_path / "bags").exists()


def test_the_latched_messages_still_on_their_way_are_named() -> None:
    """The recorder waits for these before it says ready or closes a split by time: a split closed
    first would lack the message for good, since it is sent once."""
    sources = {"/scene/robot": "/robot_description"}
    published = {"/robot_description", "/tf_static", "/scene/robot"}
    assert latched_missing(published, set(), sources) == ["/robot_description", "/tf_static"]
    assert latched_missing(published, {"/robot_description", "/tf_static"}, sources) == ["/scene/robot"]
    assert latched_missing(published, published, sources) == []
    # no publisher: nothing to wait for; the robot's markers without a robot description: none either
    assert latched_missing({"/scene/robot"}, set(), sources) == []


def test_the_writer_says_which_latched_messages_it_holds(tmp_path: Path) -> None:
    store = get_typestore(Stores.ROS2_KILTED)
    raw = bytes(store.serialize_cdr(store.types["std_msgs/msg/String"](data="<robot/>"), "std_msgs/msg/String"))
    topics = {"/robot_description": "std_msgs/msg/String", "/chatter": "std_msgs/msg/String"}
    bag = SplitBagWriter(tmp_path / "b", topics, latched={"/robot_description"})
    bag.write("/chatter", 1, raw)
    assert bag.held == frozenset()
    bag.write("/robot_description", 2, raw)  # into the open split, and kept for the next
    assert bag.held == {"/robot_description"}
    bag.close()


def test_static_frames_of_two_broadcasters_all_open_every_split(tmp_path: Path) -> None:
    """A robot's and a camera's static broadcasters each send their /tf_static once: every later
    split opens with both one's frames and the other's (the last message alone lost the robot's)."""
    store = get_typestore(Stores.ROS2_KILTED)
    T = store.types

    def tf(*children: str) -> bytes:
        stamp = T["builtin_interfaces/msg/Time"](sec=0, nanosec=0)
        pose = T["geometry_msgs/msg/Transform"](
            translation=T["geometry_msgs/msg/Vector3"](x=0.0, y=0.0, z=0.0),
            rotation=T["geometry_msgs/msg/Quaternion"](x=0.0, y=0.0, z=0.0, w=1.0),
        )
        msgs = [
            T["geometry_msgs/msg/TransformStamped"](
                header=T["std_msgs/msg/Header"](stamp=stamp, frame_id="world"), child_frame_id=c, transform=pose
            )
            for c in children
        ]
        return bytes(store.serialize_cdr(T["tf2_msgs/msg/TFMessage"](transforms=msgs), "tf2_msgs/msg/TFMessage"))

    topics = {"/tf_static": "tf2_msgs/msg/TFMessage", "/chatter": "std_msgs/msg/String"}
    chatter = bytes(store.serialize_cdr(T["std_msgs/msg/String"](data="a"), "std_msgs/msg/String"))
    bag = SplitBagWriter(tmp_path / "b", topics, latched={"/tf_static"})
    bag.write("/tf_static", 1, tf("panda_link0", "panda_hand"))  # the robot's
    bag.write("/chatter", 2, chatter)
    bag.write("/tf_static", 3, tf("camera_link", "panda_hand"))  # the camera's (one frame again)
    first = bag.rotate()
    bag.write("/chatter", 4, chatter)
    second = bag.rotate()
    bag.close()
    assert _counts(tmp_path / "b" / str(first)) == {"/tf_static": 2, "/chatter": 1}  # as they came
    with (tmp_path / "b" / str(second)).open("rb") as f:
        held = [m.data for _s, c, m in make_reader(f).iter_messages() if c.topic == "/tf_static"]
    assert len(held) == 1
    frames = [t.child_frame_id for t in store.deserialize_cdr(held[0], "tf2_msgs/msg/TFMessage").transforms]
    assert sorted(frames) == ["camera_link", "panda_hand", "panda_link0"]
