"""Op table, part 1: TF.js's converter categories ``arithmetic``, ``basic_math`` and
``logical`` (element-wise ops) mapped onto tidytensor's ops."""

from __future__ import annotations

from typing import Any

from .. import ops as tf
from .op_spec import Spec, spec

__all__ = ["ARITHMETIC", "BASIC_MATH", "LOGICAL"]


def _binary(fn: Any) -> Spec:
    return spec(lambda p: fn(p.a, p.b), "a b")


def _unary(fn: Any) -> Spec:
    return spec(lambda p: fn(p.x), "x")


ARITHMETIC: dict[str, Spec] = {
    "Add": _binary(tf.add),
    "AddV2": _binary(tf.add),
    "AddN": spec(lambda p: tf.add_n(p.tensors), "tensors*"),
    "BiasAdd": _binary(tf.add),
    "Sub": _binary(tf.sub),
    "RealDiv": _binary(tf.div),
    "Div": _binary(tf.div),
    "DivNoNan": _binary(tf.div_no_nan),
    "FloorDiv": _binary(tf.floor_div),
    "Mul": _binary(tf.mul),
    "Maximum": _binary(tf.maximum),
    "Minimum": _binary(tf.minimum),
    "Pow": _binary(tf.pow),
    "SquaredDifference": _binary(tf.squared_difference),
    "Mod": _binary(tf.mod),
    "FloorMod": _binary(tf.mod),
}

_UNARY = {
    "Abs": tf.abs,
    "Acos": tf.acos,
    "Asin": tf.asin,
    "Atan": tf.atan,
    "Ceil": tf.ceil,
    "ComplexAbs": tf.abs,
    "Cos": tf.cos,
    "Cosh": tf.cosh,
    "Elu": tf.elu,
    "Exp": tf.exp,
    "Floor": tf.floor,
    "Log": tf.log,
    "Imag": tf.imag,
    "Neg": tf.neg,
    "Real": tf.real,
    "Relu": tf.relu,
    "Relu6": tf.relu6,
    "Selu": tf.selu,
    "Sigmoid": tf.sigmoid,
    "Sin": tf.sin,
    "Sinh": tf.sinh,
    "Sqrt": tf.sqrt,
    "Rsqrt": tf.rsqrt,
    "Square": tf.square,
    "Tan": tf.tan,
    "Tanh": tf.tanh,
    "Sign": tf.sign,
    "Round": tf.round,
    "Expm1": tf.expm1,
    "Log1p": tf.log1p,
    "Reciprocal": tf.reciprocal,
    "Softplus": tf.softplus,
    "Asinh": tf.asinh,
    "Acosh": tf.acosh,
    "Atanh": tf.atanh,
    "Erf": tf.erf,
    "IsNan": tf.is_nan,
    "IsFinite": tf.is_finite,
    "IsInf": tf.is_inf,
}

BASIC_MATH: dict[str, Spec] = {
    **{name: _unary(fn) for name, fn in _UNARY.items()},
    "Atan2": _binary(tf.atan2),
    "ClipByValue": spec(
        lambda p: tf.clip_by_value(p.x, p.clip_value_min, p.clip_value_max),
        "x clip_value_min# clip_value_max#",
    ),
    "Complex": spec(lambda p: tf.complex(p.real, p.imag), "real imag"),
    "Prelu": spec(lambda p: tf.prelu(p.x, p.alpha), "x alpha"),
    "LeakyRelu": spec(lambda p: tf.leaky_relu(p.x, p.alpha), "x", alpha="alpha:number=0.2"),
}

LOGICAL: dict[str, Spec] = {
    "Equal": _binary(tf.equal),
    "NotEqual": _binary(tf.not_equal),
    "Greater": _binary(tf.greater),
    "GreaterEqual": _binary(tf.greater_equal),
    "Less": _binary(tf.less),
    "LessEqual": _binary(tf.less_equal),
    "LogicalAnd": _binary(tf.logical_and),
    "LogicalNot": spec(lambda p: tf.logical_not(p.a), "a"),
    "LogicalOr": _binary(tf.logical_or),
    "Select": spec(lambda p: tf.where(p.condition, p.a, p.b), "condition a b"),
    "SelectV2": spec(lambda p: tf.where(p.condition, p.a, p.b), "condition a b"),
    "BitwiseAnd": spec(lambda p: tf.bitwise_and(p.x, p.y), "x y"),
}
