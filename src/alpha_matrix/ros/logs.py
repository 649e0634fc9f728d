"""A node's Python ``logging`` records in its ROS log: what core/quiet.py captured of C output.

The core logs through Python's ``logging`` (it does not know ROS); a node process forwards the
``alpha_matrix`` loggers to rcutils under its own name (``<node>.native`` for the captured C
output), so the node's log level decides: ``--ros-args --log-level debug`` (or
``--log-level <node>:=debug``) shows the captured lines, the default (info) keeps them out of the
console. The forwarded loggers are not the node's rosout logger: nothing is published on /rosout,
so a line logged while the node stops never fails on a context that is gone.
"""

from __future__ import annotations

import logging

from rclpy.logging import LoggingSeverity, get_logger

_SEVERITY = {
    logging.DEBUG: LoggingSeverity.DEBUG,
    logging.INFO: LoggingSeverity.INFO,
    logging.WARNING: LoggingSeverity.WARN,
    logging.ERROR: LoggingSeverity.ERROR,
    logging.CRITICAL: LoggingSeverity.FATAL,
}


class NodeLogHandler(logging.Handler):
    """Python records to rcutils as ``<node>.<last part of the logger name>``; ``node`` is set once
    the node has its name (before that: the executable's)."""

    def __init__(self, node: str) -> None:
        super().__init__(logging.DEBUG)
        self.node = node

    def emit(self, record: logging.LogRecord) -> None:
        try:
            severity = _SEVERITY.get(record.levelno, LoggingSeverity.INFO)
            logger = get_logger(f"{self.node}.{record.name.rpartition('.')[2]}")
            if logger.is_enabled_for(severity):
                logger.log(record.getMessage(), severity)
        except Exception:  # noqa: BLE001 - a log line must never fail the node
            self.handleError(record)


def forward_python_logs(node: str) -> NodeLogHandler:
    """Forward the ``alpha_matrix`` Python loggers to this node's ROS log (once per process)."""
    root = logging.getLogger("alpha_matrix")
    for handler in root.handlers:
        if isinstance(handler, NodeLogHandler):
            handler.node = node
            return handler
    handler = NodeLogHandler(node)
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)  # the node's ROS log level filters (NodeLogHandler.emit)
    root.propagate = False
    return handler
