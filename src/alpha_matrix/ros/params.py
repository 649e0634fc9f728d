"""ROS parameters declared from the core's pydantic models: every field typed, described, validated."""

from __future__ import annotations

import typing
from typing import TypeVar

from pydantic import ValidationError
from rcl_interfaces.msg import ParameterDescriptor, ParameterType
from rclpy.exceptions import ParameterUninitializedException
from rclpy.node import Node
from rclpy.parameter import Parameter

from alpha_matrix.core.config import NodeParams
from alpha_matrix.core.errors import AlphaMatrixError

P = TypeVar("P", bound=NodeParams)

_PARAM_TYPES = {
    int: ParameterType.PARAMETER_INTEGER,
    float: ParameterType.PARAMETER_DOUBLE,
    bool: ParameterType.PARAMETER_BOOL,
    str: ParameterType.PARAMETER_STRING,
    list[str]: ParameterType.PARAMETER_STRING_ARRAY,
    list[float]: ParameterType.PARAMETER_DOUBLE_ARRAY,
}


def declare_params(node: Node, model: type[P]) -> P:
    """Declare every field of ``model`` as a typed ROS parameter, then read and validate them."""
    hints = typing.get_type_hints(model)
    for name, info in model.model_fields.items():
        ptype = _PARAM_TYPES[hints[name]]
        default = info.get_default(call_default_factory=True)
        if default == []:  # an empty list carries no element type: declare the type instead
            default = Parameter.Type(ptype)
        node.declare_parameter(name, default, ParameterDescriptor(type=ptype, description=info.description or ""))
    values = {}
    for name in model.model_fields:
        try:
            values[name] = node.get_parameter(name).value
        except ParameterUninitializedException:  # an empty list in YAML carries no type
            values[name] = []
    try:
        return model.model_validate(values)
    except ValidationError as err:
        first = err.errors()[0]
        where = f"parameter {first['loc'][0]}" if first["loc"] else "parameters"
        raise AlphaMatrixError(f"{where}: {first['msg']}") from None


def declare_fields(node: Node, model: type[NodeParams], names: tuple[str, ...]) -> dict[str, typing.Any]:
    """Declare a subclass node's extra fields of ``model`` (the base node declared the rest), untyped
    as before, and return their values."""
    values = {}
    for name in names:
        info = model.model_fields[name]
        node.declare_parameter(name, info.default, ParameterDescriptor(description=info.description or ""))
        values[name] = node.get_parameter(name).value
    return values
