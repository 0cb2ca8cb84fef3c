"""Chained op methods on Tensor (``x.add(y)``, ``x.sum()``) and Python operators.

TF.js installs 137 chained methods (catalog §2.4); each is the op with ``self`` first.
Methods whose op is not implemented yet are listed by ``missing_chained_ops()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import ops
from ..errors import ShapeError
from ..naming import snake_case
from ..tensor import Tensor
from . import slicing_joining

#: TF.js's chained op methods, by their TF.js names.
CHAINED_OPS = """
abs acos acosh add all any argMax argMin as1D as2D as3D as4D as5D asScalar asType asin asinh
atan atan2 atanh avgPool batchNorm batchToSpaceND broadcastTo cast ceil clipByValue concat conv1d
conv2d conv2dTranspose cos cosh cumprod cumsum depthToSpace depthwiseConv2d dilation2d div
divNoNan dot elu equal erf euclideanNorm exp expandDims expm1 fft flatten floor floorDiv gather
greater greaterEqual ifft irfft isFinite isInf isNaN leakyRelu less lessEqual
localResponseNormalization log log1p logSigmoid logSoftmax logSumExp logicalAnd logicalNot
logicalOr logicalXor matMul max maxPool maximum mean min minimum mirrorPad mod mul neg norm
notEqual oneHot onesLike pad pool pow prelu prod reciprocal relu relu6 reshape reshapeAs
resizeBilinear resizeNearestNeighbor reverse rfft round rsqrt selu separableConv2d sigmoid sign
sin sinh slice softmax softplus spaceToBatchND split sqrt square squaredDifference squeeze stack
step stridedSlice sub sum tan tanh tile toBool toFloat toInt topk transpose unique
unsortedSegmentSum unstack where zerosLike
""".split()

#: Core Tensor methods that TF.js defines on the class itself, also backed by ops.
CORE_OP_METHODS = ("clone",)

#: Methods that are not a plain "op with self first".
_SPECIAL: dict[str, Callable[..., Any]] = {}


def _special(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        _SPECIAL[name] = fn
        return fn

    return register


def _op(name: str) -> Callable[..., Any] | None:
    """The op of that snake_case name, top-level or in the namespace TF.js keeps it in."""

    fn = getattr(ops, name, None)
    if fn is None and name in _NAMESPACED:
        fn = getattr(ops.NAMESPACES[_NAMESPACED[name]], name, None)
    return fn


#: Chained methods whose op lives in a namespace (``x.resize_bilinear`` is ``tf.image``'s).
_NAMESPACED = {
    "resize_bilinear": "image",
    "resize_nearest_neighbor": "image",
    "fft": "spectral",
    "ifft": "spectral",
    "rfft": "spectral",
    "irfft": "spectral",
}


@_special("flatten")
def _flatten(self: Tensor) -> Tensor:
    return _op("reshape")(self, [self.size])


@_special("as_scalar")
def _as_scalar(self: Tensor) -> Tensor:
    return _op("reshape")(self, [])


def _as_rank(rank: int) -> Callable[..., Any]:
    def as_rank(self: Tensor, *shape: Any) -> Tensor:
        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = tuple(shape[0])
        if rank == 1 and not shape:
            shape = (self.size,)
        if len(shape) != rank:
            raise ShapeError(f"as{rank}d() needs a shape of rank {rank}, got {list(shape)}")
        return _op("reshape")(self, list(shape))

    return as_rank


for _r in range(1, 6):
    _SPECIAL[f"as{_r}d"] = _as_rank(_r)


@_special("as_type")
def _as_type(self: Tensor, dtype: str) -> Tensor:
    return _op("cast")(self, dtype)


@_special("to_float")
def _to_float(self: Tensor) -> Tensor:
    return _op("cast")(self, "float32")


@_special("to_int")
def _to_int(self: Tensor) -> Tensor:
    return _op("cast")(self, "int32")


@_special("to_bool")
def _to_bool(self: Tensor) -> Tensor:
    return _op("cast")(self, "bool")


@_special("reshape_as")
def _reshape_as(self: Tensor, x: Tensor) -> Tensor:
    return _op("reshape")(self, x.shape)


@_special("where")
def _where(self: Tensor, condition: Any, x: Any) -> Tensor:
    # TF.js: ``a.where(cond, b)`` is ``where(cond, a, b)``.
    return _op("where")(condition, self, x)


@_special("concat")
def _concat(self: Tensor, x: Any, axis: int = 0) -> Tensor:
    others = list(x) if isinstance(x, (list, tuple)) else [x]
    return _op("concat")([self, *others], axis)


@_special("stack")
def _stack(self: Tensor, x: Any, axis: int = 0) -> Tensor:
    others = list(x) if isinstance(x, (list, tuple)) else [x]
    return _op("stack")([self, *others], axis)


def _method(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = fn.__doc__
    return method


def missing_chained_ops() -> list[str]:
    """TF.js chained methods that have no op yet (filled in by later op families)."""
    return [n for n in CHAINED_OPS if not hasattr(Tensor, snake_case(n))]


def install() -> None:
    """Puts every available chained op on Tensor, plus Python's operators."""
    for js_name in (*CHAINED_OPS, *CORE_OP_METHODS):
        name = snake_case(js_name)
        special = _SPECIAL.get(name)
        if special is not None:
            setattr(Tensor, name, special)
            continue
        fn = _op(name)
        if fn is not None:
            setattr(Tensor, name, _method(fn, name))
    _install_operators()


def _binary_operator(op_name: str, reflected: bool) -> Callable[..., Any]:
    def operator(self: Tensor, other: Any) -> Any:
        fn = _op(op_name)
        return fn(other, self) if reflected else fn(self, other)

    return operator


def _install_operators() -> None:
    table = {
        "add": "add",
        "sub": "sub",
        "mul": "mul",
        "truediv": "div",
        "floordiv": "floor_div",
        "mod": "mod",
        "pow": "pow",
        "matmul": "mat_mul",
    }
    for dunder, op_name in table.items():
        if _op(op_name) is None:
            continue
        setattr(Tensor, f"__{dunder}__", _binary_operator(op_name, False))
        setattr(Tensor, f"__r{dunder}__", _binary_operator(op_name, True))
    comparisons = {
        "eq": "equal",
        "ne": "not_equal",
        "lt": "less",
        "le": "less_equal",
        "gt": "greater",
        "ge": "greater_equal",
        "and": "logical_and",
        "or": "logical_or",
        "xor": "logical_xor",
    }
    for dunder, op_name in comparisons.items():
        if _op(op_name) is not None:
            setattr(Tensor, f"__{dunder}__", _binary_operator(op_name, False))
    unary = {"neg": "neg", "abs": "abs", "invert": "logical_not"}
    for dunder, op_name in unary.items():
        fn = _op(op_name)
        if fn is not None:
            setattr(Tensor, f"__{dunder}__", _method(fn, f"__{dunder}__"))
    Tensor.__pos__ = lambda self: self

    getitem = getattr(slicing_joining, "tensor_getitem", None)
    if getitem is not None:
        Tensor.__getitem__ = getitem
