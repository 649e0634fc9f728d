"""Blocking service calls for a thread other than the one spinning the client's node."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from rclpy.node import Node

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.ros.stop import STOP, STOP_POLL_S

SERVER_CHECK_S = 1.0  # how often a waiting call looks whether its server is still there
SERVER_GONE_S = 3.0  # gone this long: its reply will not come
SERVICE_POLL_S = 0.02  # how often a wait for a service looks whether it is up


def _stopping(client: Any) -> bool:
    """This process got its stop signal, or the client's context is shut down (no reply can come)."""
    return STOP.signal is not None or not client.context.ok()


def service_ready(client: Any, timeout_s: float) -> bool:
    """``client.wait_for_service(timeout_s)`` looking every SERVICE_POLL_S rather than rclpy's
    every 0.25 s: a graph's nodes wait on each other's services as they start, and each wait
    ended up to 0.25 s after its server came up. The same condition, the same timeout (from
    now, on the monotonic clock); it stops early, like rclpy's, when the context shuts down."""
    deadline = time.monotonic() + timeout_s
    while client.context.ok() and not client.service_is_ready():
        left = deadline - time.monotonic()
        if left <= 0.0:
            break
        time.sleep(min(SERVICE_POLL_S, left))
    return bool(client.service_is_ready())


def await_service(client: Any, timeout_s: float, hint: str = "") -> None:
    """The client's service is available, or AlphaMatrixError saying what this participant sees of it."""
    if not service_ready(client, timeout_s):
        raise AlphaMatrixError(
            f"service {client.srv_name} not available after {timeout_s:.0f} s{hint}; {service_view(client)}"
        )


def service_view(client: Any) -> str:
    """The discovery facts behind "not available", from the client's own participant.

    rmw_fastrtps calls a service available once its participant knows as many request readers
    as reply writers on the service's topics and the client's own writer and reader have matched
    them. Which of these is missing tells a server that is not up from discovery that failed.
    """
    if not client.context.ok():
        return "this process is stopping"
    try:
        probe = Node(f"service_view_{os.getpid()}", context=client.context, use_global_arguments=False,
                     start_parameter_services=False, enable_rosout=False)  # fmt: skip
    except Exception as err:  # noqa: BLE001  # a diagnosis must not hide the failure it explains
        return f"(no view of the graph: {err})"
    try:
        name = client.service_name
        readers = probe.get_subscriptions_info_by_topic(f"rq{name}Request", no_mangle=True)
        writers = probe.get_publishers_info_by_topic(f"rr{name}Reply", no_mangle=True)
        nodes = sorted(n for n, _ns in probe.get_node_names_and_namespaces() if n != probe.get_name())
    finally:
        probe.destroy_node()
    servers = ", ".join(sorted({e.node_name for e in readers})) or "none"
    view = (
        f"this participant sees {len(nodes)} node(s) ({', '.join(nodes) or 'none'}), "
        f"{len(readers)} request reader(s) (of {servers}) and {len(writers)} reply writer(s)"
    )
    if readers and len(readers) == len(writers):
        view += ": the server is discovered but this client's endpoints never matched it"
    return view


def call_service(client: Any, request: Any, timeout_s: float, progress: Any = None) -> Any:
    """Blocking service call for threads other than the one spinning the client's node.
    ``progress`` (ros/agent_progress.AgentProgress): the reply may sit behind the agent's decisions."""
    await_service(client, timeout_s)
    return wait_reply(client, client.call_async(request), timeout_s, progress)


def handshake(client: Any, request: Any, timeout_s: float, attempt_s: float = 2.0) -> Any:
    """Exchange one harmless request with a service, re-sent until a reply arrives.

    The first reply to a new client can be lost while discovery has not yet matched the
    server's response writer with the client's reader (rmw_fastrtps: "failed to send response
    (timeout)"); a real request would then wait for nothing. Send only requests the server
    refuses or answers without side effects; after one reply the pair is matched both ways.
    """
    deadline = time.monotonic() + timeout_s
    await_service(client, timeout_s)
    sent = 0
    while True:
        future, sent = client.call_async(request), sent + 1
        done = threading.Event()
        future.add_done_callback(lambda _f, d=done: d.set())
        if done.wait(max(0.0, min(attempt_s, deadline - time.monotonic()))):
            return future.result()
        client.remove_pending_request(future)
        if _stopping(client):
            raise AlphaMatrixError(f"stopping: {client.srv_name} is no longer awaited")
        if time.monotonic() >= deadline:
            raise AlphaMatrixError(f"no reply from {client.srv_name} to {sent} handshakes within {timeout_s:.0f} s")


def wait_reply(client: Any, future: Any, timeout_s: float, progress: Any = None) -> Any:
    """The reply, or AlphaMatrixError at the timeout, once this process is stopping, or once the
    server has been gone for ``SERVER_GONE_S`` (a long wait still finds a dead server in seconds).

    A stop signal reaches every node of a graph at once (``ros2 launch`` sends them together): the
    server may be gone for good, and a callback that waited out its timeout for it kept a proxy
    node deaf to SIGINT and SIGTERM until the launch killed it (chaos, seen in CI). With
    ``progress`` the timeout runs from the agent's last decision, plus its deadline.
    """
    done = threading.Event()
    future.add_done_callback(lambda _f: done.set())
    start = time.monotonic()

    def deadline() -> float:
        return start + timeout_s if progress is None else progress.deadline(start, timeout_s)

    gone_since: float | None = None
    next_check = start + SERVER_CHECK_S
    while not done.wait(max(0.0, min(STOP_POLL_S, deadline() - time.monotonic()))):
        now = time.monotonic()
        if _stopping(client):
            raise AlphaMatrixError(f"stopping: the reply of {client.srv_name} is no longer awaited")
        if now >= deadline():
            waited = f"{now - start:.0f} s" + (" (the agent's last decision included)" if progress else "")
            raise AlphaMatrixError(f"no reply from {client.srv_name} within {waited}")
        if now >= next_check:
            next_check = now + SERVER_CHECK_S
            gone_since = None if client.service_is_ready() else (gone_since or now)
            if gone_since is not None and now - gone_since >= SERVER_GONE_S:
                raise AlphaMatrixError(f"{client.srv_name}: its server went away while its reply was awaited")
    return future.result()


def wait_for_services(clients: list[Any], timeout_s: float) -> None:
    """Every client's service is up, or fail naming the first that is not."""
    for cli in clients:
        await_service(cli, timeout_s, hint=" (is its node running?)")


def call_all(calls: list[tuple[Any, Any]], timeout_s: float) -> list[Any]:
    """Send every (client, request) at once, then wait for every reply: one round trip for many."""
    futures = []
    for client, request in calls:
        await_service(client, timeout_s)
        futures.append((client, client.call_async(request)))
    return [wait_reply(client, future, timeout_s) for client, future in futures]


def call_while_accepted(client: Any, requests: list[Any], timeout_s: float) -> list[Any]:
    """Send the requests in order, each after the previous was accepted; the replies received."""
    replies: list[Any] = []
    for request in requests:
        if replies and not replies[-1].accepted:
            break
        replies.append(call_service(client, request, timeout_s))
    return replies
