"""``tf.data.numpy``: rows of NumPy arrays, ``.npy`` files (memory-mapped) and ``.npz`` archives.

Not in TF.js (whose typed arrays go through ``tf.data.array``); it is the Python
counterpart of ``tf.data.Dataset.from_tensor_slices`` for NumPy data. Element ``i`` holds
row ``i`` (``array[i]``) of every array, as tensors, in the structure given.
"""

from __future__ import annotations

import os
import zipfile
from typing import Any

import numpy as np

from ..errors import ArgumentTypeError, InvalidArgumentError, ShapeError
from ..ops.creation import tensor
from ._structure import END
from .dataset import Dataset
from .iterators import LazyIterator, _rebuild, flatten_structure

__all__ = ["NumpyDataset", "numpy"]

_TENSOR_DTYPES = {
    np.dtype(np.float32): np.float32,
    np.dtype(np.int32): np.int32,
    np.dtype(np.bool_): np.bool_,
}


def _storage_dtype(dtype: np.dtype, where: str) -> Any:
    """The NumPy dtype a row of ``dtype`` becomes (tidytensor's rule for NumPy input)."""
    if dtype in _TENSOR_DTYPES:
        return None
    if dtype.kind in "iub":
        return np.int32
    if dtype.kind == "f":
        return np.float32
    if dtype.kind in "US":
        return None
    raise InvalidArgumentError(
        f"tf.data.numpy(): {where} has dtype {dtype}, which tensors cannot hold"
    )


class NumpyDataset(Dataset):
    """Rows of a structure of same-length NumPy arrays; see :func:`numpy`."""

    def __init__(self, arrays: Any):
        leaves: list[np.ndarray] = []
        self._structure = flatten_structure(arrays, lambda a: isinstance(a, np.ndarray), leaves)
        if not leaves:
            raise InvalidArgumentError("tf.data.numpy(): no arrays were given")
        lengths = set()
        self._casts = []
        for i, a in enumerate(leaves):
            if a.ndim == 0:
                raise ShapeError(f"tf.data.numpy(): array {i} is a scalar; it has no rows")
            lengths.add(a.shape[0])
            self._casts.append(_storage_dtype(a.dtype, f"array {i}"))
        if len(lengths) != 1:
            raise ShapeError(
                "tf.data.numpy(): the arrays must have the same number of rows, got "
                f"{[a.shape[0] for a in leaves]}"
            )
        self._leaves = leaves
        self.size = lengths.pop()

    def iterator(self) -> LazyIterator:
        return _RowIterator(self)


class _RowIterator(LazyIterator):
    def __init__(self, dataset: NumpyDataset):
        self.dataset = dataset
        self.index = 0

    def summary(self) -> str:
        return f"NumPy rows ({self.dataset.size})"

    def _next(self) -> Any:

        ds = self.dataset
        i = self.index
        if i >= ds.size:
            return END
        self.index = i + 1
        values = []
        for a, cast in zip(ds._leaves, ds._casts, strict=True):
            row = np.asarray(a[i])
            if cast is not None:
                row = row.astype(cast)
            elif row.dtype.kind in "US":
                row = row.astype(object) if row.ndim else str(row)
            else:
                row = np.array(row)  # a private copy (the source may be memory-mapped)
            values.append(tensor(row))
        return _rebuild(ds._structure, values)


def _load_npz(path: str, keys: Any) -> Any:
    with np.load(path, allow_pickle=False) as archive:
        names = list(archive.files)

        def get(name: Any) -> np.ndarray:
            if not isinstance(name, str):
                raise ArgumentTypeError(f"tf.data.numpy(): keys must name arrays, got {name!r}")
            if name not in names:
                raise InvalidArgumentError(
                    f"tf.data.numpy(): {path} has no array {name!r}; it holds {names}"
                )
            return archive[name]

        if keys is None:
            return {name: archive[name] for name in names}
        if isinstance(keys, list) and all(isinstance(k, str) for k in keys):
            return {k: get(k) for k in keys}
        return _map_keys(keys, get)


def _map_keys(node: Any, get: Any) -> Any:
    if isinstance(node, str):
        return get(node)
    if isinstance(node, dict):
        return {k: _map_keys(v, get) for k, v in node.items()}
    if isinstance(node, (list, tuple)):
        items = [_map_keys(v, get) for v in node]
        return items if isinstance(node, list) else tuple(items)
    raise ArgumentTypeError(f"tf.data.numpy(): keys must name arrays, got {node!r}")


def numpy(source: Any, keys: Any = None, mmap: bool = True) -> NumpyDataset:
    """A dataset of the rows of NumPy data.

    ``source`` is an array; a dict, list or tuple (nested) of same-length arrays; a path
    to a ``.npy`` file (memory-mapped when ``mmap``, so it may exceed memory); or a path
    to a ``.npz`` archive. For an archive, elements are dicts of all its arrays, or
    ``keys`` picks and arranges them: ``['x', 'y']`` (a dict of those), ``('x', 'y')``
    (a tuple), ``{'xs': 'x', 'ys': 'y'}`` (renamed), or ``'x'`` (bare tensors).

    Rows become tensors by tidytensor's rule for NumPy input: float32/int32/bool keep
    their dtype, other integers become int32, other floats float32, strings string.

    >>> ds = tf.data.numpy({'xs': np.arange(6).reshape(3, 2), 'ys': np.array([0., 1., 0.])})
    >>> ds.size
    3
    >>> b = ds.batch(3).to_array()[0]
    >>> b['xs'].dtype, b['xs'].shape, b['ys'].shape
    ('int32', [3, 2], [3])
    >>> tf.dispose(b)
    """
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if zipfile.is_zipfile(path):
            return NumpyDataset(_load_npz(path, keys))
        if keys is not None:
            raise InvalidArgumentError("tf.data.numpy(): keys applies only to .npz archives")
        array = np.load(path, mmap_mode="r" if mmap else None, allow_pickle=False)
        return NumpyDataset(array)
    if keys is not None:
        raise InvalidArgumentError("tf.data.numpy(): keys applies only to .npz archives")
    if isinstance(source, np.ndarray):
        return NumpyDataset(source)
    if isinstance(source, (dict, list, tuple)):
        return NumpyDataset(_as_arrays(source))
    raise ArgumentTypeError(
        "tf.data.numpy(): source must be a NumPy array, a dict/list/tuple of arrays, or a "
        f"path to a .npy or .npz file; got {type(source).__name__}"
    )


def _as_arrays(node: Any) -> Any:
    if isinstance(node, np.ndarray):
        return node
    if isinstance(node, dict):
        return {k: _as_arrays(v) for k, v in node.items()}
    if isinstance(node, (list, tuple)):
        items = [_as_arrays(v) for v in node]
        return items if isinstance(node, list) else tuple(items)
    raise ArgumentTypeError(
        f"tf.data.numpy(): the structure's leaves must be NumPy arrays, got {type(node).__name__}"
    )
