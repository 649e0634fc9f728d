"""A service that never becomes available is reported with what the client's participant sees."""

from __future__ import annotations

import pytest
import rclpy
from alpha_matrix_interfaces.srv import MoveTo
from rclpy.context import Context
from rclpy.node import Node

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.ros.services import await_service
from conftest import next_domain_id, wait_until


def test_an_unavailable_service_names_what_discovery_found():
    domain = next_domain_id()
    client_ctx, server_ctx = Context(), Context()
    rclpy.init(context=client_ctx, domain_id=domain)
    rclpy.init(context=server_ctx, domain_id=domain)
    try:
        client_node = Node("waiting_client", context=client_ctx)
        other = Node("bystander", context=server_ctx)  # discovered, but serves nothing
        client = client_node.create_client(MoveTo, "robot/move_to")
        seen = lambda: "bystander" in client_node.get_node_names()  # noqa: E731
        wait_until(seen, 30, "the client's participant discovers the other one")
        with pytest.raises(AlphaMatrixError) as err:
            await_service(client, 1.0)
        assert "service robot/move_to not available after 1 s" in str(err.value)
        assert "0 request reader(s) (of none) and 0 reply writer(s)" in str(err.value)
        assert "bystander" in str(err.value)  # the other participant was discovered: not a deaf client
        other.create_service(MoveTo, "robot/move_to", lambda _req, res: res)
        await_service(client, 20.0)  # now it is there
    finally:
        rclpy.shutdown(context=client_ctx)
        rclpy.shutdown(context=server_ctx)
