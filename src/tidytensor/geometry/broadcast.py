"""Broadcasting rules shared by ops and gradients (TF.js's ``broadcast_util.ts``)."""

from __future__ import annotations

from ..errors import ShapeError


def _sh(shape: tuple[int, ...] | list[int]) -> str:
    return ",".join(str(d) for d in shape)


def assert_and_get_broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast shape of ``a`` and ``b``, or TF.js's error."""
    if a == b or not b:
        return a
    if not a:
        return b
    out = []
    la, lb = len(a), len(b)
    for i in range(max(la, lb)):
        da = a[la - 1 - i] if i < la else 1
        db = b[lb - 1 - i] if i < lb else 1
        if da == db or db == 1:
            out.append(da)
        elif da == 1:
            out.append(db)
        else:
            raise ShapeError(
                f"Operands could not be broadcast together with shapes [{_sh(a)}] and [{_sh(b)}]."
            )
    return tuple(reversed(out))


def get_reduction_axes(in_shape: tuple[int, ...], out_shape: tuple[int, ...]) -> list[int]:
    """Axes of ``out_shape`` along which ``in_shape`` was broadcast (to reduce gradients back)."""
    result = []
    for i in range(len(out_shape)):
        in_dim = in_shape[len(in_shape) - 1 - i] if i < len(in_shape) else None
        out_axis = len(out_shape) - 1 - i
        if in_dim is None or (in_dim == 1 and out_shape[out_axis] > 1):
            result.insert(0, out_axis)
    return result
