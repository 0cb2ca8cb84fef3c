"""Input-data helpers shared by ``predict`` and the training loop (TF.js's
``engine/training_tensors.ts`` and the input checks of ``engine/training.ts``).

>>> make_batches(5, 2)
[(0, 2), (2, 4), (4, 5)]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import ops
from ...engine import ENGINE
from ...py_strings import py_shape
from ...tensor import Tensor
from .. import backend as K
from ..errors import LayersValueError

__all__ = [
    "check_batch_size",
    "check_input_data",
    "dispose_new_tensors",
    "ensure_tensors",
    "ensure_tensors_rank2_or_higher",
    "make_batches",
    "slice_arrays",
    "slice_arrays_by_indices",
]


def check_batch_size(batch_size: Any) -> None:
    """Raises unless ``batch_size`` is a positive integer."""
    if (
        isinstance(batch_size, bool)
        or not isinstance(batch_size, (int, float))
        or batch_size != batch_size
        or batch_size <= 0
        or batch_size != int(batch_size)
    ):
        raise LayersValueError(
            f"batch_size is required to be a positive integer, but got {batch_size}"
        )


def ensure_tensors(x: Any) -> tuple[Any, list[Tensor]]:
    """``x`` with NumPy arrays and nested lists of numbers converted to tensors, and the list
    of tensors it made (for the caller to dispose). ``x`` may be a tensor, an array, a dict
    of them, or a list of them (one per model input)."""
    made: list[Tensor] = []

    def one(v: Any) -> Any:
        if isinstance(v, Tensor) or v is None:
            return v
        t = ops.tensor(v)
        made.append(t)
        return t

    if isinstance(x, dict):
        return {k: one(v) for k, v in x.items()}, made
    if isinstance(x, (list, tuple)) and any(isinstance(v, (Tensor, np.ndarray)) for v in x):
        return [one(v) for v in x], made
    return one(x), made


def ensure_tensors_rank2_or_higher(tensors: Any) -> list[Tensor]:
    """Rank-1 tensors gain a trailing dimension (``[n]`` → ``[n, 1]``); scalars are refused."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    out = []
    for t in tensors:
        if t.rank == 1:
            out.append(K.expand_dims(t, 1))
        elif t.rank == 0:
            raise LayersValueError(
                "Expected tensor to be at least 1D, but received a 0D tensor (scalar)."
            )
        else:
            out.append(t)
    return out


def dispose_new_tensors(tensors: Any, ref_tensors: Any) -> None:
    """Disposes the tensors of ``tensors`` that are not in ``ref_tensors`` (those a helper
    made from the caller's data)."""
    if tensors is None:
        return
    old = set()
    if isinstance(ref_tensors, Tensor):
        old.add(ref_tensors.id)
    elif isinstance(ref_tensors, (list, tuple)):
        old.update(t.id for t in ref_tensors if isinstance(t, Tensor))
    elif isinstance(ref_tensors, dict):
        old.update(t.id for t in ref_tensors.values() if isinstance(t, Tensor))
    if isinstance(tensors, Tensor):
        items = [tensors]
    elif isinstance(tensors, dict):
        items = list(tensors.values())
    else:
        items = list(tensors)
    for t in items:
        if isinstance(t, Tensor) and t.id not in old:
            t.dispose()


def check_input_data(
    data: Any,
    names: list[str],
    shapes: list[Any] | None = None,
    check_batch_axis: bool = True,
    exception_prefix: str = "",
) -> None:
    """Checks that ``data`` has one tensor per input name, each of the expected shape."""
    if isinstance(data, (list, tuple)):
        if len(data) != len(names):
            raise LayersValueError(
                f"Error when checking model {exception_prefix or 'input'}: the Array of Tensors that you "
                f"are passing to your model is not the size the the model expected. Expected "
                f"to see {len(names)} Tensor(s), but instead got {len(data)} Tensors(s)."
            )
        arrays = list(data)
    else:
        if len(names) > 1:
            raise LayersValueError(
                f"The model expects {len(names)} {exception_prefix} Tensors, but only received "
                f"one Tensor. Found: array with shape {py_shape(list(data.shape))}."
            )
        arrays = [data]
    if shapes is None:
        return
    for i, name in enumerate(names):
        if shapes[i] is None:
            continue
        shape = list(arrays[i].shape)
        if len(shape) != len(shapes[i]):
            raise LayersValueError(
                f"Error when checking {exception_prefix or 'input'}: expected {name} to have "
                f"{len(shapes[i])} dimension(s), but got array with shape {py_shape(shape)}"
            )
        for j, ref in enumerate(shapes[i]):
            if j == 0 and not check_batch_axis:
                continue
            if ref is not None and ref != shape[j]:
                raise LayersValueError(
                    f"Error when checking {exception_prefix or 'input'}: expected {name} to have shape "
                    f"{py_shape(shapes[i])} but got array with shape {py_shape(shape)}."
                )


def make_batches(size: int, batch_size: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each batch of ``size`` samples."""
    out = []
    start = 0
    while start < size:
        end = min(start + batch_size, size)
        out.append((start, end))
        start = end
    return out


def slice_arrays(arrays: Any, start: int, stop: int) -> Any:
    """Samples ``start:stop`` of a tensor or of each tensor of a list."""
    if arrays is None:
        return [None]
    if isinstance(arrays, (list, tuple)):
        return [K.slice_along_first_axis(a, start, stop - start) for a in arrays]
    return K.slice_along_first_axis(arrays, start, stop - start)


def slice_arrays_by_indices(arrays: Any, indices: Tensor) -> Any:
    """The samples at ``indices`` of a tensor or of each tensor of a list."""

    def body() -> Any:
        if arrays is None:
            return None
        if isinstance(arrays, (list, tuple)):
            return [slice_arrays_by_indices(a, indices) for a in arrays]
        idx = indices if indices.dtype == "int32" else ops.cast(indices, "int32")
        return K.gather(arrays, idx)

    return ENGINE.tidy(body)
