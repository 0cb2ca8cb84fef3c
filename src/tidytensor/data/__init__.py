"""``tf.data``: streaming datasets (TF.js's tfjs-data), synchronous and memory-safe.

Sources: :func:`array`, :func:`generator` (sync and async generator functions),
:func:`func`, :func:`csv`, :func:`zip`, :func:`numpy` (arrays, ``.npy``, ``.npz``) and
:func:`image_folder` (needs Pillow). Every :class:`Dataset` chains ``map``, ``map_async``,
``filter``, ``batch``, ``unbatch``, ``shuffle``, ``prefetch``, ``repeat``, ``take``,
``skip`` and ``concatenate``, and is consumed with ``iterator()`` (``next()`` gives
``IteratorResult(value, done)``), Python iteration, ``borrow()``, ``to_array()`` or
``for_each_async(f)``.

Memory: the pipeline owns its elements until it hands them to the consumer; whatever it
drops on the way is disposed, ``map`` functions run in ``tidy``, and closing a stream early
(``break``, ``take``, an error) disposes every buffered element and stops the prefetch
thread. So ``num_tensors`` stays flat across epochs:

>>> ds = tf.data.array([[1, 2], [3, 4], [5, 6]]).map(lambda x: tf.tensor(x).mul(2))
>>> ds = ds.shuffle(3, seed=0).batch(2).prefetch(2)
>>> before = tf.memory().num_tensors
>>> for epoch in range(3):
...     for batch in ds:
...         tf.dispose(batch)
>>> tf.memory().num_tensors - before
0
"""

from __future__ import annotations

from .csv_dataset import CSVDataset, CSVParseError, csv
from .dataset import Dataset, array, dataset_from_iterator_fn, func, generator, zip
from .images import ImageFolderDataset, image_folder
from .iterators import IteratorResult, LazyIterator
from .numpy_source import NumpyDataset, numpy

__all__ = [
    "CSVDataset",
    "CSVParseError",
    "Dataset",
    "ImageFolderDataset",
    "IteratorResult",
    "LazyIterator",
    "NumpyDataset",
    "array",
    "csv",
    "dataset_from_iterator_fn",
    "func",
    "generator",
    "image_folder",
    "numpy",
    "zip",
]
