"""Small datasets shipped with the package (no network needed).

``load_iris()``: Fisher's Iris data (1936), 150 flowers of three species, 50 each, with four
measurements in centimetres. The values are Fisher's, as in scikit-learn's copy (the UCI
file has two transcription errors, in samples 35 and 38).

>>> iris = load_iris()
>>> iris.data.shape, iris.data.dtype, iris.target.shape, iris.target.dtype
((150, 4), dtype('float32'), (150,), dtype('int32'))
>>> iris.feature_names
('sepal_length', 'sepal_width', 'petal_length', 'petal_width')
>>> iris.target_names
('setosa', 'versicolor', 'virginica')
>>> [round(float(v), 1) for v in iris.data[0]], int(iris.target[0])
([5.1, 3.5, 1.4, 0.2], 0)
>>> xs = tf.tensor2d(iris.data)  # NumPy arrays become tensors where you need them
>>> xs.shape
[150, 4]
"""

from __future__ import annotations

import csv
from importlib import resources
from pathlib import Path
from typing import NamedTuple

import numpy as np

__all__ = ["IrisData", "iris_csv_path", "load_iris"]

_IRIS_CLASSES = ("setosa", "versicolor", "virginica")
_IRIS_FEATURES = ("sepal_length", "sepal_width", "petal_length", "petal_width")


class IrisData(NamedTuple):
    """The Iris data: ``data`` (float32 ``[150, 4]``), ``target`` (int32 class indices
    ``[150]``, 0 setosa, 1 versicolor, 2 virginica), ``feature_names`` and
    ``target_names``."""

    data: np.ndarray
    target: np.ndarray
    feature_names: tuple[str, ...]
    target_names: tuple[str, ...]


def iris_csv_path() -> Path:
    """The path of the bundled ``iris.csv`` (header ``sepal_length,sepal_width,
    petal_length,petal_width,species``), e.g. for ``tf.data.csv``."""
    return Path(str(resources.files(__name__).joinpath("iris.csv")))


def load_iris() -> IrisData:
    """Fisher's Iris data as NumPy arrays (rows in the classic order: 50 setosa, 50
    versicolor, 50 virginica). Turn them into tensors with ``tf.tensor2d(iris.data)``."""
    text = resources.files(__name__).joinpath("iris.csv").read_text(encoding="utf-8")
    rows = list(csv.reader(text.splitlines()))
    header, body = rows[0], [r for r in rows[1:] if r]
    if tuple(header[:4]) != _IRIS_FEATURES or len(body) != 150:
        raise ValueError("the bundled iris.csv is damaged (expected a header and 150 rows)")
    data = np.array([[float(v) for v in r[:4]] for r in body], dtype=np.float32)
    target = np.array([_IRIS_CLASSES.index(r[4]) for r in body], dtype=np.int32)
    return IrisData(data, target, _IRIS_FEATURES, _IRIS_CLASSES)
