"""Creation (TF.js doc subheading 'Tensors / Creation')."""

from __future__ import annotations

from typing import Any

from .. import kernel_names as k
from ..errors import ShapeError
from ..tensor import Tensor
from ..tensor_util import make_tensor
from ._op import convert_to_tensor, op, run_kernel

__all__ = [
    "clone",
    "scalar",
    "tensor",
    "tensor1d",
    "tensor2d",
    "tensor3d",
    "tensor4d",
    "tensor5d",
    "tensor6d",
]


def tensor(values: Any, shape: Any = None, dtype: str | None = None) -> Tensor:
    """Creates a tensor from nested lists, a flat list with a shape, a number or a NumPy array.

    Python numbers become float32 unless ``dtype`` is given, as JS numbers do in TF.js.

    >>> tf.tensor([[1, 2], [3, 4]]).shape
    [2, 2]
    >>> tf.tensor([1, 2, 3, 4], [2, 2], 'int32').array_sync()
    [[1, 2], [3, 4]]
    """
    return make_tensor(values, shape, dtype, "tensor")


def scalar(value: Any, dtype: str | None = None) -> Tensor:
    """Creates a rank-0 tensor.

    >>> tf.scalar(3.5).array_sync()
    3.5
    """
    if isinstance(value, (list, tuple)) and not (dtype == "complex64" and len(value) == 2):
        raise ShapeError("The value passed to tf.scalar() must be a primitive (number, boolean or string)")
    return make_tensor(value, (), dtype, "scalar")


def _ranked(rank: int, name: str):
    def create(values: Any, shape: Any = None, dtype: str | None = None) -> Tensor:
        t = make_tensor(values, shape, dtype, name)
        if t.rank != rank:
            got = t.rank
            t.dispose()
            raise ShapeError(f"{name}() requires values of rank {rank}, but got values of rank {got}")
        return t

    create.__name__ = create.__qualname__ = name
    create.__doc__ = f"Creates a rank-{rank} tensor (``tf.{name}``); the rank is checked."
    return create


tensor1d = _ranked(1, "tensor1d")
tensor2d = _ranked(2, "tensor2d")
tensor3d = _ranked(3, "tensor3d")
tensor4d = _ranked(4, "tensor4d")
tensor5d = _ranked(5, "tensor5d")
tensor6d = _ranked(6, "tensor6d")


@op
def clone(x: Any) -> Tensor:
    """A new handle on the same buffer (no copy; ``num_data_buffers`` does not grow)."""
    x = convert_to_tensor(x, "x", "clone", "string_or_numeric")
    return run_kernel(k.IDENTITY, (x,))
