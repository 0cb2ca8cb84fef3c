"""How many bytes a kernel will allocate, known before it runs (for the memory limit).

``output_bound(kernel_name, inputs, attrs)`` gives a :class:`Need`: the kernel's outputs
(shape and dtype; exact where the kernel's own shape rule is reproduced here, an upper
bound otherwise) and the large scratch arrays it makes on the way (host values generated
in float64, an einsum's broadcast products, a range's int64 accumulator). ``memory_guard``
checks it against ``tf.config.set_memory_limit`` before the kernel allocates anything.

Every kernel the array backends register has an entry in ``BOUNDS`` (a test checks it, and
that the bound covers what each kernel really allocates). A kernel registered without one
(a user's custom kernel) gets ``generic_bound``: the broadcast shape of its inputs at the
widest element size, which covers elementwise, reduction and layout kernels.
``register_output_bound`` adds or replaces an entry.

String outputs count 0 bytes here: their size depends on the strings, so the engine's
count after the kernel runs is their only check.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .. import kernel_names as k
from ..geometry import conv as cv
from ..geometry.slicing import parse_slice_params, slice_info
from ..kernel_names import layers_dense as kd
from ..kernel_names import layers_losses as kll
from ..kernel_names import losses as kl
from ..kernel_names import optimizers as ko
from ..kernel_names import recurrent as kr

#: Bytes per element as the array backends store each dtype (strings: unknown, 0).
ITEMSIZE = {"float32": 4, "int32": 4, "bool": 1, "complex64": 8, "string": 0}


class Out(NamedTuple):
    """One output: its shape and dtype; ``exact`` False when the shape is a bound (then
    it is given as a flat element count)."""

    shape: tuple[int, ...]
    dtype: str
    exact: bool = True

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * ITEMSIZE.get(self.dtype, 8)


class Need(NamedTuple):
    """What a kernel will allocate: its outputs and its largest scratch (bytes)."""

    outputs: tuple[Out, ...]
    scratch: int = 0

    @property
    def nbytes(self) -> int:
        return sum(o.nbytes for o in self.outputs) + self.scratch


Bound = Callable[[tuple, dict], Need]
BOUNDS: dict[str, Bound] = {}


def register_output_bound(kernel_name: str, bound: Bound) -> None:
    """``bound(inputs, attrs) -> Need`` for ``kernel_name`` (any backend)."""
    BOUNDS[kernel_name] = bound


def output_bound(kernel_name: str, inputs: tuple, attrs: dict | None) -> Need:
    """The kernel's ``Need``. A bound that cannot read the arguments (the kernel will then
    refuse them itself) falls back to ``generic_bound``."""
    return bound_of(kernel_name)(inputs, attrs)


def bound_of(kernel_name: str) -> Callable[[tuple, dict | None], Need]:
    """``output_bound`` for one kernel, looked up once (the memory guard binds it)."""
    bound = BOUNDS.get(kernel_name, generic_bound)

    def kernel_bound(inputs: tuple, attrs: dict | None) -> Need:
        try:
            return bound(inputs, attrs or _NO_ATTRS)
        except Exception:  # noqa: BLE001 - bad arguments: the kernel reports them
            return generic_bound(inputs, attrs or _NO_ATTRS)

    return kernel_bound


_NO_ATTRS: dict = {}


# ============================================================================ shape helpers
def _shape(t: Any) -> tuple[int, ...]:
    return tuple(t._shape)


def _size(t: Any) -> int:
    return math.prod(t._shape)


def _wide(dtype: str) -> str:
    """The dtype a numeric kernel's float math may give (bool and int32 inputs widen)."""
    return "complex64" if dtype == "complex64" else "float32"


def _widest(inputs: tuple) -> str:
    dtypes = {t.dtype for t in inputs}
    if "complex64" in dtypes:
        return "complex64"
    if "string" in dtypes:
        return "string"
    return "float32" if dtypes - {"bool"} or not dtypes else "bool"


def _broadcast(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """NumPy's broadcast shape (the larger of two mismatched dims: a bound when they clash)."""
    rank = max((len(s) for s in shapes), default=0)
    out = [1] * rank
    for s in shapes:
        for i, d in enumerate(s, rank - len(s)):
            out[i] = d if out[i] == 1 else (out[i] if d == 1 else max(out[i], d))
    return tuple(out)


def _at_most(n: int, dtype: str) -> Out:
    return Out((int(n),), dtype, False)


def _one(shape: Any, dtype: str, scratch: int = 0) -> Need:
    return Need((Out(tuple(int(d) for d in shape), dtype),), scratch)


# ============================================================================ generic rules
def generic_bound(inputs: tuple, attrs: dict) -> Need:
    """The broadcast shape of the inputs at their widest element size (at least 4 bytes)."""
    if not inputs:
        return Need(())
    n = math.prod(_broadcast(*(_shape(t) for t in inputs)))
    n = max(n, max(_size(t) for t in inputs))
    return Need((_at_most(n, _widest(inputs) if _widest(inputs) != "bool" else "float32"),))


def same(inputs: tuple, attrs: dict) -> Need:
    """The first input's shape and dtype (layout kernels, bool-preserving ones)."""
    x = inputs[0]
    return _one(x._shape, x.dtype)


def unary_float(inputs: tuple, attrs: dict) -> Need:
    """The first input's shape; float32 (or complex64) values."""
    x = inputs[0]
    return _one(x._shape, _wide(x.dtype) if x.dtype != "int32" else "int32")


def unary_float32(inputs: tuple, attrs: dict) -> Need:
    return _one(inputs[0]._shape, "float32")


def bool_of(inputs: tuple, attrs: dict) -> Need:
    """Predicates and comparisons: the broadcast shape, bool."""
    return _one(_broadcast(*(_shape(t) for t in inputs)), "bool")


def binary(inputs: tuple, attrs: dict) -> Need:
    """Broadcasting arithmetic: the broadcast shape at the inputs' widest dtype (int32 when
    every input is int32 or bool)."""
    if len(inputs) == 2:  # the common case, written out
        a, b = inputs
        da, db = a.dtype, b.dtype
        shape = a._shape if a._shape == b._shape else _broadcast(_shape(a), _shape(b))
        if da == db and da != "bool":
            return Need((Out(tuple(shape), da),))
    else:
        shape = _broadcast(*(_shape(t) for t in inputs))
    dtype = _widest(inputs)
    if dtype == "bool":
        dtype = "float32"
    if all(t.dtype == "int32" or t.dtype == "bool" for t in inputs):
        dtype = "int32"
    return _one(shape, dtype)


def _reduced_shape(x: Any, axes: Any, keep_dims: bool) -> tuple[int, ...]:
    shape = _shape(x)
    axes = [axes] if isinstance(axes, int) else list(range(len(shape))) if axes is None else axes
    red = {int(a) + len(shape) if int(a) < 0 else int(a) for a in axes}
    if keep_dims:
        return tuple(1 if i in red else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in red)


def _reduction(dtype_of: Callable[[str], str], axes_attr: str = "axis") -> Bound:
    """A reduction's output: the input's shape less (or keeping as 1) the reduced axes."""

    def bound(inputs: tuple, attrs: dict) -> Need:
        x = inputs[0]
        shape = _reduced_shape(x, attrs[axes_attr], bool(attrs.get("keep_dims")))
        return _one(shape, dtype_of(x.dtype))

    return bound


def _arg_reduction(inputs: tuple, attrs: dict) -> Need:
    return _one(_reduced_shape(inputs[0], [int(attrs["axis"])], False), "int32")


def _sum_dtype(dtype: str) -> str:
    return dtype if dtype in ("float32", "complex64") else "int32"


def reduce_(inputs: tuple, attrs: dict) -> Need:
    """At most the input's size (slices, complex parts), at its dtype or float32."""
    x = inputs[0]
    dtype = x.dtype if x.dtype in ("complex64", "float32", "bool") else "int32"
    return Need((_at_most(_size(x), dtype),))


def shared(inputs: tuple, attrs: dict) -> Need:
    """A view of the input's buffer: nothing new."""
    return Need(())


def _parts_of(inputs: tuple) -> Need:
    """Outputs that split the first input (at its dtype)."""
    x = inputs[0]
    return Need((_at_most(_size(x), x.dtype),))


# ============================================================================ creation
def _fill(inputs: tuple, attrs: dict) -> Need:
    return _one(attrs["shape"], attrs["dtype"])


def _range_count(start: float, stop: float, step: float) -> int:
    if start == stop or (start < stop and step < 0) or (stop < start and step > 1):
        return 0
    ratio = (stop - start) / step if step else math.inf
    return 0 if math.isnan(ratio) else abs(math.ceil(ratio))


#: A range or linspace accumulates in int64 or in a Python list of floats (about 40 bytes a
#: value at worst) before its typed array is made.
_ACCUMULATOR_BYTES = 40


def _range(inputs: tuple, attrs: dict) -> Need:
    n = _range_count(float(attrs["start"]), float(attrs["stop"]), float(attrs["step"]))
    return _one((n,), attrs["dtype"], n * _ACCUMULATOR_BYTES)


def _lin_space(inputs: tuple, attrs: dict) -> Need:
    n = max(0, int(float(attrs["num"])))
    return _one((n,), "float32", n * _ACCUMULATOR_BYTES)


def _one_hot(inputs: tuple, attrs: dict) -> Need:
    return _one((*_shape(inputs[0]), int(attrs["depth"])), attrs["dtype"])


def _diag(inputs: tuple, attrs: dict) -> Need:
    x = inputs[0]
    return _one(_shape(x) + _shape(x), x.dtype)


def _complex(inputs: tuple, attrs: dict) -> Need:
    return _one(_broadcast(*(_shape(t) for t in inputs)), "complex64")


def _multinomial(inputs: tuple, attrs: dict) -> Need:
    batch = _shape(inputs[0])[0] if len(inputs[0]._shape) == 2 else 1
    n = int(attrs["num_samples"])
    events = _shape(inputs[0])[-1]
    # float32 probabilities and their float32/float64 running sums, float64 draws
    return _one((batch, n), "int32", batch * (events * 16 + n * 8))


# ============================================================================ layout
def _tile(inputs: tuple, attrs: dict) -> Need:
    x = inputs[0]
    reps = [int(r) for r in attrs["reps"]]
    return _one(tuple(d * r for d, r in zip(_shape(x), reps, strict=True)), x.dtype)


def _pad(inputs: tuple, attrs: dict) -> Need:
    x = inputs[0]
    pads = attrs["paddings"]
    shape = tuple(d + int(p[0]) + int(p[1]) for d, p in zip(_shape(x), pads, strict=True))
    return _one(shape, x.dtype)


def _transpose(inputs: tuple, attrs: dict) -> Need:
    x = inputs[0]
    return _one(tuple(_shape(x)[int(p)] for p in attrs["perm"]), x.dtype)


def _concat(inputs: tuple, attrs: dict) -> Need:
    dtype = inputs[0].dtype
    return Need((_at_most(sum(_size(t) for t in inputs), dtype),))


def _pack(inputs: tuple, attrs: dict) -> Need:
    x = inputs[0]
    return _one((len(inputs), *_shape(x)), x.dtype)


def _slice(inputs: tuple, attrs: dict) -> Need:

    x = inputs[0]
    _, size = parse_slice_params(_shape(x), attrs["begin"], attrs["size"])
    return _one(size, x.dtype)


def _strided_slice(inputs: tuple, attrs: dict) -> Need:

    x = inputs[0]
    *_, final, is_identity = slice_info(
        _shape(x), attrs["begin"], attrs["end"], attrs.get("strides"),
        attrs.get("begin_mask", 0), attrs.get("end_mask", 0), attrs.get("ellipsis_mask", 0),
        attrs.get("new_axis_mask", 0), attrs.get("shrink_axis_mask", 0),
    )  # fmt: skip
    return Need(()) if is_identity else _one(final, x.dtype)


def _gather_v2(inputs: tuple, attrs: dict) -> Need:
    x, indices = inputs
    shape = _shape(x)
    axis = int(attrs["axis"])
    axis = axis + len(shape) if axis < 0 else axis
    batch_dims = int(attrs.get("batch_dims", 0) or 0)
    batch_dims = batch_dims + len(indices._shape) if batch_dims < 0 else batch_dims
    out = shape[:axis] + _shape(indices)[batch_dims:] + shape[axis + 1 :]
    return _one(out, x.dtype)


def _gather_nd(inputs: tuple, attrs: dict) -> Need:
    params, indices = inputs
    ishape = _shape(indices)
    depth = ishape[-1] if ishape else 0
    return _one(ishape[:-1] + _shape(params)[depth:], params.dtype)


def _scatter_nd(inputs: tuple, attrs: dict) -> Need:
    return _one(attrs["shape"], inputs[1].dtype)


def _space_to_batch(inputs: tuple, attrs: dict) -> Need:
    x = inputs[0]
    shape = list(_shape(x))
    for i, p in enumerate(attrs["paddings"]):
        shape[i + 1] += int(p[0]) + int(p[1])
    return Need((_at_most(math.prod(shape), x.dtype),), math.prod(shape) * ITEMSIZE[x.dtype])


def _top_k(inputs: tuple, attrs: dict) -> Need:
    x = inputs[0]
    shape = _shape(x)[:-1] + (int(attrs["k"]),)
    return Need((Out(shape, x.dtype), Out(shape, "int32")))


def _unique(inputs: tuple, attrs: dict) -> Need:
    x = inputs[0]
    n = _shape(x)[int(attrs.get("axis", 0) or 0)] if x._shape else 1
    return Need((_at_most(_size(x), x.dtype), _at_most(n, "int32")))


def _bincount(inputs: tuple, attrs: dict) -> Need:
    x, weights = inputs
    size = int(attrs["size"])
    rows = _shape(x)[0] if len(x._shape) == 2 else 1
    dtype = "int32" if _size(weights) == 0 else weights.dtype
    return _one((rows, size) if len(x._shape) == 2 else (size,), dtype)


def _segment_sum(inputs: tuple, attrs: dict) -> Need:
    """(num_segments, *the rest of the ids/x broadcast shape), float32."""
    x, ids = inputs
    padded = _shape(ids) + (1,) * max(0, len(x._shape) - len(ids._shape))
    shape = (int(attrs["num_segments"]), *_broadcast(padded, _shape(x))[1:])
    return _one(shape, x.dtype if x.dtype != "bool" else "float32")


def _to_dense(inputs: tuple, attrs: dict) -> Need:
    return _one(attrs["output_shape"], inputs[1].dtype)


# ============================================================================ matrices
def _mat_mul_shape(a: tuple, b: tuple, attrs: dict) -> tuple[int, ...]:
    m = a[-1] if attrs.get("transpose_a") else a[-2]
    n = b[-2] if attrs.get("transpose_b") else b[-1]
    return (*_broadcast(a[:-2], b[:-2]), m, n)


def _mat_mul(inputs: tuple, attrs: dict) -> Need:
    a, b = inputs[0], inputs[1]
    shape = _mat_mul_shape(_shape(a), _shape(b), attrs)
    return _one(shape, "float32" if a.dtype != "int32" else "int32")


def _einsum(inputs: tuple, attrs: dict) -> Need:
    """The output of the equation's letters; its broadcast products hold every letter."""
    equation = attrs["equation"].replace(" ", "")
    lhs, _, rhs = equation.partition("->")
    sizes: dict[str, int] = {}
    for term, t in zip(lhs.split(","), inputs, strict=True):
        for letter, d in zip(term, _shape(t), strict=True):
            sizes[letter] = max(sizes.get(letter, 1), d)
    out = tuple(sizes[c] for c in rhs)
    dtype = _widest(inputs)
    dtype = "int32" if dtype == "bool" else dtype
    product = math.prod(sizes.values()) * max(ITEMSIZE.get(dtype, 4), 4)
    return _one(out, dtype, 2 * product)


# ============================================================================ conv and pools
def _conv_info(kind: str, x_shape: Any, w_shape: Any, attrs: dict) -> Any:

    strides, pad = attrs["strides"], attrs["pad"]
    rounding = attrs.get("dim_rounding_mode")
    dilations = attrs.get("dilations", 1)
    if kind == "conv2d":
        fmt = cv.convert_data_format(attrs.get("data_format", "NHWC"))
        return cv.compute_conv2d_info(
            x_shape, w_shape, strides, dilations, pad, rounding, False, fmt
        )
    if kind == "depthwise":
        return cv.compute_conv2d_info(x_shape, w_shape, strides, dilations, pad, rounding, True)
    if kind == "conv3d":
        return cv.compute_conv3d_info(x_shape, w_shape, strides, dilations, pad)
    return cv.compute_dilation2d_info(x_shape, w_shape, strides, pad, dilations)


def _conv(kind: str) -> Bound:
    def bound(inputs: tuple, attrs: dict) -> Need:
        x, w = inputs[0], inputs[1]
        info = _conv_info(kind, _shape(x), _shape(w), attrs)
        return _one(info.out_shape, "float32")

    return bound


def _pool2d(inputs: tuple, attrs: dict) -> Need:

    x = inputs[0]
    info = cv.compute_pool2d_info(
        _shape(x), attrs["filter_size"], attrs["strides"], 1, attrs["pad"],
        attrs.get("dim_rounding_mode"),
    )  # fmt: skip
    return _one(info.out_shape, "float32")


def _pool3d(inputs: tuple, attrs: dict) -> Need:

    x = inputs[0]
    info = cv.compute_pool3d_info(
        _shape(x), attrs["filter_size"], attrs["strides"], 1, attrs["pad"],
        attrs.get("dim_rounding_mode"), attrs.get("data_format", "NDHWC"),
    )  # fmt: skip
    return _one(info.out_shape, "float32")


def _pool_with_argmax(inputs: tuple, attrs: dict) -> Need:
    out = _pool2d(inputs, attrs).outputs[0]
    return Need((out, Out(out.shape, "int32")))


def _shape_attr(name: str, dtype: str = "float32") -> Bound:
    def bound(inputs: tuple, attrs: dict) -> Need:
        return _one(attrs[name], dtype)

    return bound


def _like(index: int, dtype: str = "float32") -> Bound:
    """The shape of input ``index`` (gradients of pools, resizes, dilations), ``dtype``."""

    def bound(inputs: tuple, attrs: dict) -> Need:
        return _one(inputs[index]._shape, dtype)

    return bound


# ============================================================================ image
def _resize(inputs: tuple, attrs: dict) -> Need:
    b, _, _, c = _shape(inputs[0])
    h, w = (int(s) for s in attrs["size"])
    return _one((b, h, w, c), "float32")


def _crop_and_resize(inputs: tuple, attrs: dict) -> Need:
    c = _shape(inputs[0])[3]
    n = _shape(inputs[1])[0]
    h, w = (int(s) for s in attrs["crop_size"])
    return _one((n, h, w, c), "float32")


def _transform(inputs: tuple, attrs: dict) -> Need:
    image = inputs[0]
    b, h, w, c = _shape(image)
    if attrs.get("output_shape") is not None:
        h, w = (int(s) for s in attrs["output_shape"])
    return _one((b, h, w, c), image.dtype)


def _nms(inputs: tuple, attrs: dict) -> Need:
    n = _shape(inputs[0])[0]
    m = max(n, int(attrs["max_output_size"]))
    return Need((_at_most(m, "int32"), _at_most(m, "float32"), _at_most(1, "int32")))


# ============================================================================ fused layers
def _dense(inputs: tuple, attrs: dict) -> Need:
    x, w = inputs[0], inputs[1]
    return _one((*_shape(x)[:-1], _shape(w)[-1]), "float32")


def _grads_like_inputs(inputs: tuple, attrs: dict) -> Need:
    """Gradients: at most one float32 array per input, each of that input's size."""
    return Need(tuple(_at_most(_size(t), "float32") for t in inputs))


def _sequence(inputs: tuple, attrs: dict) -> Need:
    """Recurrent sequences ([batch, time, features] input, kernel [features, units * gates])
    give the sequence (or last) output and per-step states; bounded by batch * time *
    (units * gates) values for each of a few outputs."""
    x = inputs[0]
    batch, time = _shape(x)[0], _shape(x)[1]
    widest = max(_shape(t)[-1] for t in inputs[1:] if t._shape)
    per_step = batch * time * widest
    return Need((_at_most(4 * per_step + 4 * _size(x), "float32"),))


def _sequence_grad(inputs: tuple, attrs: dict) -> Need:
    total = sum(_size(t) for t in inputs)
    return Need((_at_most(2 * total, "float32"),))


def _cross_entropy(inputs: tuple, attrs: dict) -> Need:
    n = max(_size(t) for t in inputs)
    return Need((_at_most(n, "float32"),))


def _adam(inputs: tuple, attrs: dict) -> Need:
    count = attrs.get("count", 1)
    sizes = [_size(t) for t in inputs[:count]]
    # Several variables: their four inputs laid end to end, and the step's scratch array.
    scratch = 5 * sum(sizes) * ITEMSIZE["float32"] if count > 1 else 0
    return Need(tuple(_at_most(n, "float32") for _ in range(3) for n in sizes), scratch)


# ============================================================================ data-dependent
def _values(t: Any) -> Any:
    """A small index tensor's values (data-dependent kernels read them anyway)."""
    return np.asarray(t.data_id.backend.read_sync(t.data_id, t._shape, t.dtype), dtype=np.float64)


def _ragged_range(inputs: tuple, attrs: dict) -> Need:
    starts, limits, deltas = (_values(t) for t in inputs)
    with np.errstate(all="ignore"):
        counts = np.ceil((limits - starts) / deltas)
    counts = np.where(np.isfinite(counts) & (counts > 0), counts, 0)
    total = int(counts.sum())
    rows = max(_size(t) for t in inputs)
    return Need((Out((rows + 1,), "int32"), Out((total,), _widest(inputs[:1]))), total * 8)


def _ragged_to_tensor(inputs: tuple, attrs: dict) -> Need:
    shape, values = _values(inputs[0]).reshape(-1), inputs[1]
    if shape.size and (shape >= 0).all():
        return _one(tuple(int(d) for d in shape), values.dtype)
    # Unknown dims: as many as the largest partition allows (every row as long as values).
    rows = max((_size(p) for p in inputs[3:]), default=1)
    return Need((_at_most(max(rows, 1) * max(_size(values), 1), values.dtype),))


def _sparse_segment(inputs: tuple, attrs: dict) -> Need:
    data, indices, ids = inputs
    seg = _values(ids)
    rows = int(seg.max()) + 1 if seg.size else 0
    shape = (max(rows, 0), *_shape(data)[1:])
    return _one(shape, "float32", (math.prod(shape) + _size(indices) * math.prod(shape[1:])) * 8)


def _sparse_fill_empty_rows(inputs: tuple, attrs: dict) -> Need:
    indices, values, dense_shape = inputs[0], inputs[1], inputs[2]
    rows = int(_values(dense_shape).reshape(-1)[0]) if _size(dense_shape) else 0
    n = _shape(indices)[0] + max(rows, 0)
    rank = _shape(indices)[1] if len(indices._shape) == 2 else 1
    outs = (Out((n, rank), "int32"), Out((n,), values.dtype), Out((rows,), "bool"))
    return Need((*outs, Out((_shape(indices)[0],), "int32")))


def _sparse_reshape(inputs: tuple, attrs: dict) -> Need:
    indices, new_shape = inputs[0], inputs[2]
    return Need(
        (Out(_shape(indices)[:1] + (_size(new_shape),), "int32"), Out(_shape(new_shape), "int32"))
    )


def _string_split(inputs: tuple, attrs: dict) -> Need:
    """At most one token per input byte plus one per string: [tokens, 2] int32 indices and
    the [2] shape (the tokens' strings are counted after the kernel)."""
    data = inputs[0]
    strings = data.data_id.backend.read_sync(data.data_id, data._shape, data.dtype).reshape(-1)
    tokens = sum(len(str(v).encode("utf-8")) + 1 for v in strings)
    return Need((Out((tokens, 2), "int32"), Out((2,), "int32")))


def _ragged_gather(inputs: tuple, attrs: dict) -> Need:
    """The gathered rows' splits (one level per ragged and per extra index dim) and values."""
    *nested, dense, indices = inputs
    starts = _values(indices).reshape(-1).astype(np.int64)
    limits = starts + 1
    splits = (len(indices._shape) - 1) * (starts.size + 1)
    for sp in nested:
        values = _values(sp).astype(np.int64)
        splits += int((limits - starts).sum()) + 1
        starts, limits = values[starts], values[limits]
    rows = int((limits - starts).sum())
    row_size = math.prod(_shape(dense)[1:])
    return Need((_at_most(splits + 1, "int32"), _at_most(rows * row_size, dense.dtype)))


def _select(inputs: tuple, attrs: dict) -> Need:
    """``t``'s shape (TF.js takes it even where the condition broadcasts to less)."""
    shape = _broadcast(*(_shape(t) for t in inputs))
    t, e = inputs[1], inputs[2]
    dtype = t.dtype if t.dtype == e.dtype else binary(inputs[1:], attrs).outputs[0].dtype
    if shape == _shape(t):
        return _one(shape, dtype)
    return Need((_at_most(max(math.prod(shape), _size(t), _size(e)), dtype),))


def _strings(inputs: tuple, attrs: dict) -> Need:
    """String kernels: the int32 companions (splits, hashes) of at most the inputs' size;
    the strings themselves are counted after the kernel."""
    n = sum(_size(t) for t in inputs)
    return Need((_at_most(2 * n + 2, "int32"),))


# ============================================================================ the table
_UNARY_FLOAT = (
    k.ACOS, k.ACOSH, k.ASIN, k.ASINH, k.ATAN, k.ATANH, k.COS, k.COSH, k.ELU, k.ERF, k.EXP,
    k.EXPM1, k.LOG, k.LOG1P, k.RECIPROCAL, k.RSQRT, k.SELU, k.SIGMOID, k.SIN, k.SINH, k.SQRT,
    k.TAN, k.TANH, k.SOFTPLUS, k.SOFTMAX, k.LRN, k.FFT, k.IFFT, k.CUMPROD, k.CUMSUM,
)  # fmt: skip
_UNARY_NUMERIC = (
    k.ABS, k.CEIL, k.FLOOR, k.NEG, k.RELU, k.RELU6, k.ROUND, k.SIGN, k.SQUARE, k.CLIP_BY_VALUE,
    k.LEAKY_RELU, k.STEP,
)  # fmt: skip
_UNARY_SAME = (
    k.ZEROS_LIKE, k.ONES_LIKE, k.REVERSE, k.FLIP_LEFT_RIGHT,
    k.ROTATE_WITH_OFFSET, k.DEPTH_TO_SPACE, k.TENSOR_SCATTER_UPDATE, k.LOGICAL_NOT,
)  # fmt: skip
_PREDICATES = (
    k.IS_FINITE, k.IS_INF, k.IS_NAN, k.EQUAL, k.NOT_EQUAL, k.GREATER, k.GREATER_EQUAL, k.LESS,
    k.LESS_EQUAL, k.LOGICAL_AND, k.LOGICAL_OR,
)  # fmt: skip
_BINARY = (
    k.ADD, k.SUB, k.MULTIPLY, k.REAL_DIV, k.FLOOR_DIV, k.MOD, k.POW, k.MAXIMUM, k.MINIMUM,
    k.SQUARED_DIFFERENCE, k.ATAN2, k.BITWISE_AND, k.PRELU, k.ELU_GRAD, k.ADD_N,
)  # fmt: skip
_AT_MOST_INPUT = (
    k.BATCH_TO_SPACE_ND, k.COMPLEX_ABS, k.REAL, k.IMAG,
)  # fmt: skip

for _name in _UNARY_FLOAT:
    BOUNDS[_name] = unary_float
for _name in _UNARY_SAME:
    BOUNDS[_name] = same
for _name in _UNARY_NUMERIC:
    BOUNDS[_name] = unary_float
for _name in _PREDICATES:
    BOUNDS[_name] = bool_of
for _name in _BINARY:
    BOUNDS[_name] = binary
for _name in _AT_MOST_INPUT:
    BOUNDS[_name] = reduce_
for _name in (k.IDENTITY, k.RESHAPE, k.EXPAND_DIMS):
    BOUNDS[_name] = shared

BOUNDS.update(
    {
        k.CAST: lambda inputs, attrs: _one(inputs[0]._shape, attrs["dtype"]),
        k.SELECT: _select,
        k.BROADCAST_ARGS: lambda inputs, attrs: _one((max(_size(t) for t in inputs),), "int32"),
        k.SEARCH_SORTED: lambda inputs, attrs: _one(inputs[1]._shape, "int32"),
        k.SUM: _reduction(_sum_dtype),
        k.PROD: _reduction(_sum_dtype),
        k.MEAN: _reduction(lambda dtype: "float32"),
        k.MAX: _reduction(lambda dtype: dtype, "reduction_indices"),
        k.MIN: _reduction(lambda dtype: dtype),
        k.ALL: _reduction(lambda dtype: "bool"),
        k.ANY: _reduction(lambda dtype: "bool"),
        k.ARG_MAX: _arg_reduction,
        k.ARG_MIN: _arg_reduction,
        k.FILL: _fill,
        k.RANGE: _range,
        k.LIN_SPACE: _lin_space,
        k.ONE_HOT: _one_hot,
        k.DIAG: _diag,
        k.COMPLEX: _complex,
        k.MULTINOMIAL: _multinomial,
        k.TILE: _tile,
        k.PAD_V2: _pad,
        k.MIRROR_PAD: _pad,
        k.TRANSPOSE: _transpose,
        k.CONCAT: _concat,
        k.PACK: _pack,
        k.UNPACK: lambda inputs, attrs: _parts_of(inputs),
        k.SPLIT_V: lambda inputs, attrs: _parts_of(inputs),
        k.SLICE: _slice,
        k.STRIDED_SLICE: _strided_slice,
        k.GATHER_V2: _gather_v2,
        k.GATHER_ND: _gather_nd,
        k.SCATTER_ND: _scatter_nd,
        k.SPARSE_TO_DENSE: _to_dense,
        k.SPACE_TO_BATCH_ND: _space_to_batch,
        k.TOP_K: _top_k,
        k.UNIQUE: _unique,
        k.BINCOUNT: _bincount,
        k.DENSE_BINCOUNT: _bincount,
        k.UNSORTED_SEGMENT_SUM: _segment_sum,
        k.BATCH_MAT_MUL: _mat_mul,
        k.FUSED_MAT_MUL: _mat_mul,
        k.EINSUM: _einsum,
        k.CONV2D: _conv("conv2d"),
        k.FUSED_CONV2D: _conv("conv2d"),
        k.DEPTHWISE_CONV2D_NATIVE: _conv("depthwise"),
        k.FUSED_DEPTHWISE_CONV2D: _conv("depthwise"),
        k.CONV3D: _conv("conv3d"),
        k.DILATION2D: _conv("dilation"),
        k.CONV2D_BACKPROP_INPUT: _shape_attr("input_shape"),
        k.CONV2D_BACKPROP_FILTER: _shape_attr("filter_shape"),
        k.CONV3D_BACKPROP_INPUT_V2: _shape_attr("input_shape"),
        k.CONV3D_BACKPROP_FILTER_V2: _shape_attr("filter_shape"),
        k.DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT: _shape_attr("input_shape"),
        k.DEPTHWISE_CONV2D_NATIVE_BACKPROP_FILTER: _shape_attr("filter_shape"),
        k.DILATION2D_BACKPROP_INPUT: _like(0),
        k.DILATION2D_BACKPROP_FILTER: _like(1),
        k.MAX_POOL: _pool2d,
        k.AVG_POOL: _pool2d,
        k.MAX_POOL3D: _pool3d,
        k.AVG_POOL3D: _pool3d,
        k.MAX_POOL_WITH_ARGMAX: _pool_with_argmax,
        k.MAX_POOL_GRAD: _like(1),
        k.AVG_POOL_GRAD: _like(1),
        k.MAX_POOL3D_GRAD: _like(1),
        k.AVG_POOL3D_GRAD: _like(1),
        k.LRN_GRAD: _like(0),
        k.FUSED_BATCH_NORM: _like(0),
        k.RESIZE_BILINEAR: _resize,
        k.RESIZE_NEAREST_NEIGHBOR: _resize,
        k.RESIZE_BILINEAR_GRAD: _like(0),
        k.RESIZE_NEAREST_NEIGHBOR_GRAD: _like(0),
        k.CROP_AND_RESIZE: _crop_and_resize,
        k.TRANSFORM: _transform,
        k.NON_MAX_SUPPRESSION_V3: _nms,
        k.NON_MAX_SUPPRESSION_V4: _nms,
        k.NON_MAX_SUPPRESSION_V5: _nms,
        kd.DENSE: _dense,
        kd.DENSE_GRAD: _grads_like_inputs,
        ko.ADAM_UPDATE: _adam,
        kll.BINARY_CROSSENTROPY: _cross_entropy,
        kll.BINARY_CROSSENTROPY_GRAD: _cross_entropy,
        kll.CATEGORICAL_CROSSENTROPY: _cross_entropy,
        kll.CATEGORICAL_CROSSENTROPY_GRAD: _cross_entropy,
        kl.SOFTMAX_CROSS_ENTROPY: _cross_entropy,
        kl.SOFTMAX_CROSS_ENTROPY_GRAD: _cross_entropy,
        kr.SIMPLE_RNN_SEQUENCE: _sequence,
        kr.GRU_SEQUENCE: _sequence,
        kr.LSTM_SEQUENCE: _sequence,
        kr.SIMPLE_RNN_SEQUENCE_GRAD: _sequence_grad,
        kr.GRU_SEQUENCE_GRAD: _sequence_grad,
        kr.LSTM_SEQUENCE_GRAD: _sequence_grad,
        k.RAGGED_RANGE: _ragged_range,
        k.RAGGED_TENSOR_TO_TENSOR: _ragged_to_tensor,
        k.RAGGED_GATHER: _ragged_gather,
        k.SPARSE_SEGMENT_SUM: _sparse_segment,
        k.SPARSE_SEGMENT_MEAN: _sparse_segment,
        k.SPARSE_FILL_EMPTY_ROWS: _sparse_fill_empty_rows,
        k.SPARSE_RESHAPE: _sparse_reshape,
        k.STATIC_REGEX_REPLACE: _strings,
        k.STRING_N_GRAMS: _strings,
        k.STRING_SPLIT: _string_split,
        k.STRING_TO_HASH_BUCKET_FAST: lambda inputs, attrs: _one(inputs[0]._shape, "int32"),
    }
)
