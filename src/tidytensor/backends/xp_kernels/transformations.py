"""Transformation kernels. Reshape-like kernels share their input's buffer (refcount + 1)."""

from __future__ import annotations

from ... import kernel_names as k
from ...dtypes import NUMPY_DTYPE


def reshape(inputs, attrs, backend):
    return backend.share(inputs[0], tuple(attrs["shape"]))


def expand_dims(inputs, attrs, backend):
    shape = list(inputs[0]._shape)
    shape.insert(attrs["dim"], 1)
    return backend.share(inputs[0], tuple(shape))


def cast(inputs, attrs, backend):
    x = inputs[0]
    dtype = attrs["dtype"]
    if dtype == x.dtype:
        return backend.share(x, x._shape)
    xp = backend.xp
    values = backend.array(x)
    if dtype == "bool":
        out = values != 0
    elif dtype == "int32" and values.dtype.kind in "fc":
        real = values.real if values.dtype.kind == "c" else values
        with xp.errstate(invalid="ignore"):
            out = xp.where(xp.isfinite(real), xp.trunc(real), 0).astype(xp.int64).astype(xp.int32)
    elif dtype == "float32" and values.dtype.kind == "c":
        out = values.real.astype(xp.float32)
    else:
        out = values.astype(NUMPY_DTYPE[dtype])
    return backend.write_array(xp.asarray(out))


RAW_KERNELS = {
    k.RESHAPE: reshape,
    k.EXPAND_DIMS: expand_dims,
    k.CAST: cast,
}
