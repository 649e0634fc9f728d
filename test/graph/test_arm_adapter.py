"""arm_adapter over real DDS: the driver contract served on ros2_control's standard interfaces.

Against the simulated standard arm (nodes/standard_arm.py: PyBullet paced at the wall clock, JTC
semantics): `check-driver --real-time` passes every applicable clause; a move into the table is
cut by the safety monitor's protective stop with its decision-to-rest time measured; joint states
that stop arriving (the arm's process frozen) stop the arm and end the running command with the
reason. Against a faulty stand-in (fake_arm.py: a controller that rejects every goal, a gripper
server that never answers) check-driver names the clauses that fail. Bad input at start is one
line and exit 2, with nothing sent to the robot.

Every process runs on its own leased ROS_DOMAIN_ID with localhost discovery; waits are on
conditions with timeouts; every process is stopped at the end and none may print a traceback.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import rclpy
from alpha_matrix_interfaces.msg import CommandStatus, SafetyEvent
from alpha_matrix_interfaces.srv import Hold, MoveTo, Reset
from geometry_msgs.msg import Point
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory

from alpha_matrix.launcher import graph_env
from alpha_matrix.ros.qos import EVENTS
from conftest import next_domain_id, wait_until

BIN = Path(sys.executable).parent
FAKE_ARM = Path(__file__).with_name("fake_arm.py")
REPO = Path(__file__).resolve().parents[2]


class Proc:
    """One process of the test's graph, its output in a file (a pipe nobody reads could stall it)."""

    def __init__(self, name: str, cmd: list[str], env: dict[str, str], log_dir: Path) -> None:
        self.name, self.log = name, log_dir / f"{name}.log"
        with open(self.log, "wb") as out:
            self.p = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=REPO)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_line(self, needle: str, timeout: float) -> None:
        wait_until(lambda: needle in self.text() or self.p.poll() is not None, timeout, f"{self.name}: {needle!r}")
        assert needle in self.text(), f"{self.name} ended ({self.p.returncode}) without {needle!r}:\n{self.text()}"

    def stop(self) -> None:
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGCONT)  # a frozen one too
            self.p.send_signal(signal.SIGINT)
            try:
                self.p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait(timeout=10)


@pytest.fixture
def procs(tmp_path: Path) -> Iterator[Callable[..., Proc]]:
    started: list[Proc] = []

    def start(name: str, cmd: list[str], env: dict[str, str]) -> Proc:
        proc = Proc(name, cmd, env, tmp_path)
        started.append(proc)
        return proc

    yield start
    for proc in reversed(started):
        proc.stop()
    for proc in started:
        assert "Traceback" not in proc.text(), f"{proc.name} printed a traceback:\n{proc.text()[-4000:]}"


def node_cmd(executable: str, *params: str) -> list[str]:
    args = [a for p in params for a in ("-p", p)]
    return [str(BIN / executable), *(["--ros-args", *args] if args else [])]


def check_driver(env: dict[str, str], timeout: float = 240) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "alpha_matrix.cli", "check-driver", "--real-time", "--timeout", "30"]
    return subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True, timeout=timeout)


class Client:
    """The test's own participant on the graph's domain: service calls and the statuses."""

    def __init__(self, domain_id: int) -> None:
        self.context = Context()
        rclpy.init(context=self.context, domain_id=domain_id)
        self.node = Node("arm_adapter_test_client", context=self.context)
        self.status: dict[int, CommandStatus] = {}
        self.events: list[SafetyEvent] = []
        self.trajectories: list[JointTrajectory] = []
        self.joints: list[JointState] = []
        self.lock = threading.Lock()
        self.node.create_subscription(CommandStatus, "robot/command_status", self._on_status, EVENTS)
        self.node.create_subscription(SafetyEvent, "safety/events", self._add(self.events), EVENTS)
        topic = "/joint_trajectory_controller/joint_trajectory"
        self.node.create_subscription(JointTrajectory, topic, self._add(self.trajectories), 10)
        self.node.create_subscription(JointState, "/joint_states", self._on_joints, 10)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self.executor.spin, daemon=True)
        self.thread.start()

    def _add(self, dest: list) -> Callable[[object], None]:
        def add(msg: object) -> None:
            with self.lock:
                dest.append(msg)

        return add

    def _on_joints(self, msg: JointState) -> None:
        with self.lock:
            self.joints = [msg]

    def speed(self) -> float:
        """The fastest arm joint of the last joint_states sample, rad/s."""
        with self.lock:
            return max((abs(v) for v in self.joints[-1].velocity[:7]), default=0.0) if self.joints else 0.0

    def _on_status(self, msg: CommandStatus) -> None:
        if msg.state in (CommandStatus.DONE, CommandStatus.CANCELLED):
            with self.lock:
                self.status[msg.command_id] = msg

    def call(self, srv_type, name: str, request, timeout: float = 30.0):  # noqa: ANN001, ANN201
        cli = self.node.create_client(srv_type, name)
        assert cli.wait_for_service(timeout_sec=timeout), f"service {name} not available"
        fut = cli.call_async(request)
        wait_until(fut.done, timeout, f"reply from {name}")
        return fut.result()

    def wait_status(self, command_id: int, timeout: float = 60.0) -> CommandStatus:
        wait_until(lambda: command_id in self.status, timeout, f"command {command_id} to end")
        return self.status[command_id]

    def reset(self, episode: str = "e1") -> CommandStatus:
        reply = self.call(Reset, "robot/reset", Reset.Request(episode_id=episode, seed=7, settle_steps=120))
        assert reply.accepted, reply.message
        return self.wait_status(reply.command_id)

    def close(self) -> None:
        self.executor.shutdown()
        self.thread.join(timeout=10)
        self.node.destroy_node()
        rclpy.shutdown(context=self.context)


@pytest.fixture
def client_on() -> Iterator[Callable[[int], Client]]:
    made: list[Client] = []

    def make(domain_id: int) -> Client:
        made.append(Client(domain_id))
        return made[-1]

    yield make
    for c in made:
        c.close()


def standard_graph(procs: Callable[..., Proc], *adapter_params: str) -> tuple[int, dict[str, str], Proc, Proc]:
    domain = next_domain_id()
    env = graph_env(domain)
    arm = procs("standard_arm", node_cmd("standard_arm"), env)
    adapter = procs("arm_adapter", node_cmd("arm_adapter", *adapter_params), env)
    adapter.wait_line("ready:", 90)
    return domain, env, arm, adapter


@pytest.mark.alone  # it measures the arm's pace in real time
def test_check_driver_real_time_passes_on_the_standard_arm(procs) -> None:
    _domain, env, _arm, adapter = standard_graph(procs)
    t0 = time.monotonic()
    done = check_driver(env)
    took = time.monotonic() - t0
    print(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr + adapter.text()[-3000:]
    assert "9 passed, 0 failed" in done.stdout and "n/a   bounded lookahead" in done.stdout
    rest = re.search(r"at rest (\d+) ms after the decision", done.stdout)
    assert rest is not None and 0 < int(rest.group(1)) < 1000
    print(f"check-driver --real-time against standard_arm + arm_adapter: {took:.1f} s")
    assert "protective stop at step" in adapter.text() and "s after the decision" in adapter.text()


def test_check_driver_names_what_a_faulty_arm_breaks(procs) -> None:
    env = graph_env(next_domain_id())
    procs("fake_arm", [sys.executable, str(FAKE_ARM), "--reject", "--silent-gripper"], env).wait_line("ready", 60)
    adapter = procs("arm_adapter", node_cmd("arm_adapter", "result_timeout_s:=2.0"), env)
    adapter.wait_line("ready:", 90)
    done = check_driver(env)
    print(done.stdout)
    assert done.returncode == 1, done.stdout + done.stderr
    failed = {line[6:].split("  ")[0]: line for line in done.stdout.splitlines() if line.startswith("FAIL")}
    assert set(failed) == {
        "commands queue, end with one terminal status and its observation",
        "a stop cuts the running command; decision to rest measured",
    }, done.stdout
    row = failed["commands queue, end with one terminal status and its observation"]
    assert "the move ended CANCELLED: /joint_trajectory_controller/follow_joint_trajectory: the controller rejected the goal" in row  # fmt: skip
    assert "the gripper command ended CANCELLED: no result from the robot" in row
    assert "the controller rejected the goal" in failed["a stop cuts the running command; decision to rest measured"]


def test_a_move_into_the_table_is_stopped_by_the_monitor_and_timed_to_rest(procs, client_on) -> None:
    domain, env, _arm, adapter = standard_graph(procs)
    monitor = procs("safety_monitor", node_cmd("safety_monitor", "contact_threshold:=47.5"), env)
    # Its hello (an empty ack) goes out once it spins and sees the stream and the stop service.
    adapter.wait_line("acks from safety_monitor are read, never waited for", 60)
    client = client_on(domain)
    settled = client.reset()
    assert settled.state == CommandStatus.DONE and {o.name for o in settled.objects} == {"red", "green", "blue"}
    target = Point(x=0.5, y=0.35, z=0.58)  # 4.5 cm into the table top (z 0.625), away from the blocks
    move = client.call(MoveTo, "robot/move_to", MoveTo.Request(target=target, steps=480))
    assert move.accepted, move.message
    cut = client.wait_status(move.command_id)
    print(cut.message)
    assert cut.state == CommandStatus.CANCELLED, cut.message
    assert "(safety_monitor: violent_contact panda/8-measured_wrench" in cut.message
    assert 0.0 < cut.stop_to_rest_s < 1.0 and "s after the decision" in cut.message
    with client.lock:
        crash = [e for e in client.events if e.kind == "violent_contact" and not e.closed]
        empty = [t for t in client.trajectories if not t.points]
    assert crash and crash[0].stop_requested and crash[0].key == "panda/8-measured_wrench" and crash[0].peak > 47.5
    assert empty, "no empty trajectory on the controller's topic (the documented stop)"
    decided = int(re.search(r"decided at step (\d+)", cut.message).group(1))
    assert decided == crash[0].start_step  # the monitor's decision is the crash's first step
    refused = client.call(MoveTo, "robot/move_to", MoveTo.Request(target=Point(x=0.5, y=0.0, z=0.8), steps=100))
    assert not refused.accepted and "held by safety_monitor" in refused.message
    print(f"move into the table: stop decided at step {decided}, arm at rest {cut.stop_to_rest_s * 1000:.0f} ms later")
    assert monitor.p.poll() is None


def test_joint_states_that_stop_arriving_stop_the_arm(procs, client_on) -> None:
    domain, _env, arm, adapter = standard_graph(procs)
    client = client_on(domain)
    client.reset()
    move = client.call(MoveTo, "robot/move_to", MoveTo.Request(target=Point(x=0.5, y=0.25, z=0.8), steps=2400))
    assert move.accepted
    wait_until(lambda: client.speed() > 0.05, 30, "the arm under way")
    os.kill(arm.p.pid, signal.SIGSTOP)  # the arm's process hangs: its joint_states stop
    try:
        cut = client.wait_status(move.command_id, 5)  # at once: not after the frozen perception times out
    finally:
        os.kill(arm.p.pid, signal.SIGCONT)
    assert cut.state == CommandStatus.CANCELLED
    assert re.fullmatch(r"arm stopped: no sample on /joint_states for 0\.\d\d s", cut.message), cut.message
    adapter.wait_line("arm stopped (goal cancelled, empty trajectory sent), commands cancelled", 10)
    adapter.wait_line("/joint_states back after", 30)
    refused = client.call(Hold, "robot/hold", Hold.Request(steps=10))
    assert not refused.accepted and "call robot/reset once they are back" in refused.message
    wait_until(lambda: any(not t.points for t in client.trajectories), 30, "the empty trajectory (sent while frozen)")
    assert client.reset("e2").state == CommandStatus.DONE  # a reset brings it back


@pytest.mark.parametrize(
    ("fake", "params", "says"),
    [
        (None, (), "no URDF on /robot_description (std_msgs/String, transient local) within 3 s (start_timeout_s)"),
        (
            ["--no-gripper"],
            (),
            "no action server /gripper_controller/gripper_cmd (control_msgs/action/GripperCommand) within 8 s",
        ),
        ([], ("tool_frame:=tool0",), "tool_frame: the URDF on /robot_description has no frame 'tool0'"),
        (
            [],
            ("arm_joints:=[joint_a1,joint_a2,joint_a3,joint_a4,joint_a5,joint_a6,joint_a7]",),
            "arm_joints: joint(s) joint_a1, joint_a2",
        ),
        (
            ["--joints", "panda_joint1,panda_joint2,panda_joint3,panda_joint4,panda_joint5,panda_joint6"],
            (),
            "/joint_states: joint_states carries no panda_joint7, panda_finger_joint1, panda_finger_joint2",
        ),
    ],
)
def test_bad_input_at_start_is_one_line_and_nothing_starts(procs, fake, params, says) -> None:
    env = graph_env(next_domain_id())
    if fake is not None:
        procs("fake_arm", [sys.executable, str(FAKE_ARM), *fake], env).wait_line("ready", 60)
    # A case that ends in a timeout says so in its own seconds; the others fail once discovery is
    # done, so a loaded machine's slow discovery gets all the time it needs.
    timeout = 3.0 if fake is None else 8.0 if "--no-gripper" in fake else 60.0
    adapter = procs("arm_adapter", node_cmd("arm_adapter", f"start_timeout_s:={timeout}", *params), env)
    wait_until(lambda: adapter.p.poll() is not None, 90, "the adapter to give up")
    errors = [line for line in adapter.text().splitlines() if "error" in line.lower()]
    assert adapter.p.returncode == 2, adapter.text()
    assert len(errors) == 1 and errors[0].startswith("arm_adapter: error: ") and says in errors[0], adapter.text()
    assert "ready:" not in adapter.text()
