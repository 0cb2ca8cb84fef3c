"""Transformation kernels: reshapes (which share their input's buffer), casts, padding and the
space/batch/depth rearrangements."""

from __future__ import annotations

import math

from ... import kernel_names as k
from ..._handles import ReshapeKernel
from ...dtypes import NUMPY_DTYPE
from ...errors import InvalidArgumentError
from ...geometry.broadcast import assert_and_get_broadcast_shape
from ..xp_compat import errstate


def reshape(inputs, attrs, backend):
    return backend.share(inputs[0], tuple(attrs["shape"]))


#: Bound to a backend, the per-op core's ``ReshapeKernel``: the same, without a Python frame.
reshape.bind = ReshapeKernel  # type: ignore[attr-defined]


def expand_dims(inputs, attrs, backend):
    shape = list(inputs[0]._shape)
    dim = attrs["dim"]
    if dim < 0:
        if dim < -(len(shape) + 1):
            raise InvalidArgumentError(
                f"Axis must be in the interval [{-(len(shape) + 1)}, {len(shape)}]"
            )
        dim += len(shape) + 1
    shape.insert(dim, 1)
    return backend.share(inputs[0], tuple(shape))


def to_dtype(values, dtype, xp):
    """``values`` converted as storing them in TF.js's typed array for ``dtype`` would:
    floats truncate toward zero into int32 (NaN and infinities become 0, large values wrap),
    anything becomes bool as ``!= 0``, complex numbers keep their real part."""
    if values.dtype.kind == "c" and dtype != "complex64":
        values = values.real
    if dtype == "bool":
        return values != 0
    if dtype == "int32" and values.dtype.kind == "f":
        with errstate(xp, invalid="ignore"):
            finite = xp.where(xp.isfinite(values), xp.trunc(values.astype(xp.float64)), 0)
            return xp.remainder(finite, 2.0**32).astype(xp.int64).astype(xp.int32)
    return values.astype(NUMPY_DTYPE[dtype])


#: Casts that lose nothing share their input's buffer (TF.js's ``hasEncodingLoss`` false).
_LOSSLESS = {("float32", "int32"), ("float32", "bool"), ("int32", "bool")}


def cast(inputs, attrs, backend):
    x = inputs[0]
    dtype = attrs["dtype"]
    if dtype == x.dtype or (dtype, x.dtype) in _LOSSLESS:
        return backend.share(x, x._shape, dtype)  # TF.js relabels the buffer: no copy
    xp = backend.xp
    return backend.write_array(xp.asarray(to_dtype(backend.array(x), dtype, xp)))


def typed_array_value(value, arr_dtype):
    """A JS number stored into a typed array of ``arr_dtype`` (``TypedArray.fill``)."""
    value = float(value)
    if arr_dtype.kind in "iub":
        value = 0 if not math.isfinite(value) else math.trunc(value)
        if arr_dtype.kind == "b":
            return value % 256 != 0  # a Uint8Array stores the low byte
        return (value + 2**31) % 2**32 - 2**31
    return value


def pad_v2(x, *, xp, paddings, constant_value=0):
    pads = [(int(p[0]), int(p[1])) for p in paddings]
    fill = typed_array_value(constant_value, x.dtype)
    return xp.pad(x, pads, mode="constant", constant_values=fill)


def mirror_pad(x, *, xp, paddings, mode):
    pads = [(int(p[0]), int(p[1])) for p in paddings]
    if x.size == 0 or not any(a or b for a, b in pads):
        return xp.pad(x, pads, mode="constant")
    return xp.pad(x, pads, mode="reflect" if mode == "reflect" else "symmetric")


def _batch_to_space_parts(shape, block_shape):
    """Shapes and permutation TF.js's BatchToSpaceND uses (``array_ops_util.ts``)."""
    m = len(block_shape)
    prod = math.prod(block_shape)
    reshaped = [*block_shape, shape[0] // prod, *shape[1:]]
    perm = [m]
    for i in range(m + 1, len(reshaped)):
        perm.extend((i, i - (m + 1)) if i <= 2 * m else (i,))
    merged = [shape[0] // prod] + [
        block_shape[i - 1] * shape[i] if i <= m else shape[i] for i in range(1, len(shape))
    ]
    return reshaped, perm, merged


def batch_to_space_nd(x, *, xp, block_shape, crops):
    block_shape = [int(b) for b in block_shape]
    reshaped, perm, merged = _batch_to_space_parts(x.shape, block_shape)
    t = xp.transpose(x.reshape(reshaped), perm).reshape(merged)
    index = [slice(None)]
    for i, (c0, c1) in enumerate(crops):
        index.append(slice(int(c0), merged[i + 1] - int(c1)))
    return xp.array(t[tuple(index)], copy=True)  # never a view of the input's buffer


def space_to_batch_nd(x, *, xp, block_shape, paddings):
    block_shape = [int(b) for b in block_shape]
    m = len(block_shape)
    pads = [(0, 0)] + [(int(p[0]), int(p[1])) for p in paddings] + [(0, 0)] * (x.ndim - 1 - m)
    padded = xp.pad(x, pads, mode="constant")
    shape = padded.shape
    reshaped = [shape[0]]
    for i in range(m):
        reshaped += [shape[i + 1] // block_shape[i], block_shape[i]]
    reshaped += list(shape[m + 1 :])
    before = [i for i in range(1, len(reshaped)) if not (i >= 2 * m + 1 or i % 2 == 1)]
    after = [i for i in range(1, len(reshaped)) if i >= 2 * m + 1 or i % 2 == 1]
    out_shape = [shape[0] * math.prod(block_shape)]
    out_shape += [shape[i + 1] // block_shape[i] for i in range(m)] + list(shape[m + 1 :])
    t = xp.transpose(padded.reshape(reshaped), [*before, 0, *after])
    return xp.ascontiguousarray(t).reshape(out_shape)


def depth_to_space(x, *, xp, block_size, data_format="NHWC"):
    if data_format != "NHWC":
        raise InvalidArgumentError(
            f"Only NHWC data_format supported on CPU for depth_to_space. Got {data_format}"
        )
    b, h, w, d = x.shape
    bs = int(block_size)
    out_depth = d // (bs * bs)
    t = x.reshape(b, h, w, bs, bs, out_depth).transpose(0, 1, 3, 2, 4, 5)
    return xp.ascontiguousarray(t).reshape(b, h * bs, w * bs, out_depth).astype(xp.float32)


def broadcast_args(s0, s1, *, xp):
    a = tuple(int(v) for v in s0.reshape(-1).tolist())
    b = tuple(int(v) for v in s1.reshape(-1).tolist())
    return xp.asarray(assert_and_get_broadcast_shape(a, b), dtype=xp.int32).reshape(-1)


KERNELS = {
    k.PAD_V2: pad_v2,
    k.MIRROR_PAD: mirror_pad,
    k.BATCH_TO_SPACE_ND: batch_to_space_nd,
    k.SPACE_TO_BATCH_ND: space_to_batch_nd,
    k.DEPTH_TO_SPACE: depth_to_space,
    k.BROADCAST_ARGS: broadcast_args,
}

RAW_KERNELS = {
    k.RESHAPE: reshape,
    k.EXPAND_DIMS: expand_dims,
    k.CAST: cast,
}
