"""TensorFlow's ``TensorArray`` (``TensorArrayV3`` ops) and ``TensorList`` (``TensorList*``
ops) as a graph model's control flow uses them: element tensors kept while they are in the
container, each container named by a kept scalar handle tensor that the graph passes along
(TF.js's ``tensor_array.ts`` and ``tensor_list.ts`` semantics)."""

from __future__ import annotations

from typing import Any

from .. import ops as tf
from ..errors import InvalidArgumentError
from ..scopes import keep, tidy

__all__ = ["TensorArray", "TensorList", "infer_element_shape", "merge_element_shape"]

Shape = Any  # a list of sizes (-1 unknown) or the number -1 (unknown rank)


def shapes_match(a: Shape, b: Shape, prefix: str) -> None:
    if isinstance(a, int) or isinstance(b, int) or a is None or b is None:
        return
    if len(a) != len(b):
        raise InvalidArgumentError(f"{prefix} Shapes {list(a)} and {list(b)} must match")
    for d0, d1 in zip(a, b, strict=True):
        if d0 >= 0 and d1 >= 0 and d0 != d1:
            raise InvalidArgumentError(f"{prefix} Shapes {list(a)} and {list(b)} must match")


def merge_element_shape(a: Shape, b: Shape) -> Shape:
    if isinstance(a, int) or a is None:
        return b
    if isinstance(b, int) or b is None:
        return a
    if len(a) != len(b):
        raise InvalidArgumentError(f"Incompatible ranks during merge: {list(a)} vs. {list(b)}")
    merged = []
    for d0, d1 in zip(a, b, strict=True):
        if d0 >= 0 and d1 >= 0 and d0 != d1:
            raise InvalidArgumentError(f"Incompatible shape during merge: {list(a)} vs. {list(b)}")
        merged.append(d0 if d0 >= 0 else d1)
    return merged


def _defined(shape: Shape) -> bool:
    return not isinstance(shape, int) and shape is not None and all(d >= 0 for d in shape)


def infer_element_shape(list_shape: Shape, tensors: list[Any], shape: Shape) -> list[int]:
    partial = merge_element_shape(list_shape, shape)
    if not _defined(partial):
        if not tensors:
            raise InvalidArgumentError(
                "Tried to calculate elements of an empty list with non-fully-defined "
                f"element_shape: {partial}"
            )
        for t in tensors:
            if t is not None:
                partial = merge_element_shape(list(t.shape), partial)
    if not _defined(partial):
        raise InvalidArgumentError(f"Non-fully-defined element_shape: {partial}")
    return list(partial)


def _check_dtype(op_dtype: str, list_dtype: str) -> None:
    if op_dtype != list_dtype:
        raise InvalidArgumentError(
            f"Invalid data types; op elements {op_dtype}, but list elements {list_dtype}"
        )


def _check_total(tensor: Any, lengths: list[int]) -> None:
    total = sum(lengths)
    if total != tensor.shape[0]:
        raise InvalidArgumentError(
            f"Expected sum of lengths to be equal to tensor.shape[0], but sum of lengths is "
            f"{total}, and tensor's shape is: {list(tensor.shape)}"
        )


def _split_rows(tensor: Any, lengths: list[int], shape_for: Any) -> list[Any]:
    """``tensor`` cut along its first dimension into pieces of ``lengths`` rows, each piece
    reshaped to ``shape_for(length)`` (TF.js's TensorArray/TensorList ``split``)."""
    _check_total(tensor, lengths)
    total = sum(lengths)
    per_row = 0 if total == 0 else tensor.size // total

    def pieces() -> list[Any]:
        flat = tf.reshape(tensor, [1, total, per_row])
        out, start = [], 0
        for length in lengths:
            piece = tf.slice(flat, [0, start, 0], [1, length, per_row])
            out.append(tf.reshape(piece, shape_for(length)))
            start += length
        return out

    return tidy(pieces)


def _unkeep(tensor: Any) -> None:
    """Gives an element back to the scopes (TF.js sets ``kept = false``)."""
    tensor.kept = False


class TensorList:
    """A list of same-dtype tensors whose shapes match ``element_shape``."""

    def __init__(
        self, tensors: list[Any], element_shape: Shape, dtype: str, max_num_elements: int = -1
    ):
        for t in tensors:
            _check_dtype(dtype, t.dtype)
            shapes_match(element_shape, list(t.shape), "TensorList shape mismatch: ")
            keep(t)
        self.tensors: list[Any] = list(tensors)
        self.element_shape = element_shape
        self.dtype = dtype
        self.max_num_elements = max_num_elements
        self.id_tensor = keep(tf.scalar(0))

    def size(self) -> int:
        return len(self.tensors)

    def clear_and_close(self, keep_ids: set[int] | None = None) -> None:
        for t in self.tensors:
            if t is not None and (keep_ids is None or t.id not in keep_ids):
                t.dispose()
        self.tensors = []
        self.id_tensor.dispose()

    def stack(self, element_shape: Shape, dtype: str) -> Any:
        _check_dtype(dtype, self.dtype)
        shapes_match(element_shape, self.element_shape, "TensorList shape mismatch: ")
        shape = infer_element_shape(self.element_shape, self.tensors, element_shape)
        return tidy(lambda: tf.stack([tf.reshape(t, shape) for t in self.tensors], 0))

    def pop_back(self, element_shape: Shape, dtype: str) -> Any:
        _check_dtype(dtype, self.dtype)
        if not self.tensors:
            raise InvalidArgumentError("Trying to pop from an empty list.")
        shape = infer_element_shape(self.element_shape, self.tensors, element_shape)
        tensor = self.tensors.pop()
        _unkeep(tensor)
        shapes_match(list(tensor.shape), element_shape, "TensorList shape mismatch: ")
        return tf.reshape(tensor, shape)

    def push_back(self, tensor: Any) -> None:
        _check_dtype(tensor.dtype, self.dtype)
        shapes_match(list(tensor.shape), self.element_shape, "TensorList shape mismatch: ")
        if self.max_num_elements == self.size():
            raise InvalidArgumentError("Trying to push element into a full list.")
        keep(tensor)
        self.tensors.append(tensor)

    def resize(self, size: int) -> TensorList:
        if size < 0:
            raise InvalidArgumentError(
                f"TensorListResize expects size to be non-negative. Got: {size}"
            )
        if self.max_num_elements != -1 and size > self.max_num_elements:
            raise InvalidArgumentError(
                f"TensorListResize input size {size} is greater than max_num_elements "
                f"{self.max_num_elements}."
            )
        resized = TensorList([], self.element_shape, self.dtype, self.max_num_elements)
        resized.tensors = (self.tensors + [None] * size)[:size]
        return resized

    def get_item(self, index: int, element_shape: Shape, dtype: str) -> Any:
        _check_dtype(dtype, self.dtype)
        if index < 0 or index > len(self.tensors):
            raise InvalidArgumentError(
                f"Trying to access element {index} in a list with {len(self.tensors)} elements."
            )
        if index == len(self.tensors) or self.tensors[index] is None:
            raise InvalidArgumentError(f"TensorList: element at index {index} has not been set.")
        shapes_match(list(self.tensors[index].shape), element_shape, "TensorList shape mismatch: ")
        shape = infer_element_shape(self.element_shape, self.tensors, element_shape)
        return tf.reshape(self.tensors[index], shape)

    def set_item(self, index: int, tensor: Any) -> None:
        _check_dtype(tensor.dtype, self.dtype)
        if index < 0 or (self.max_num_elements != -1 and index >= self.max_num_elements):
            raise InvalidArgumentError(
                f"Trying to set element {index} in a list with max {self.max_num_elements} "
                "elements."
            )
        shapes_match(self.element_shape, list(tensor.shape), "TensorList shape mismatch: ")
        keep(tensor)
        if index < len(self.tensors) and self.tensors[index] is not None:
            _unkeep(self.tensors[index])
        if index >= len(self.tensors):
            self.tensors.extend([None] * (index + 1 - len(self.tensors)))
        self.tensors[index] = tensor

    def gather(self, indices: list[int], dtype: str, element_shape: Shape) -> Any:
        _check_dtype(dtype, self.dtype)
        shapes_match(self.element_shape, element_shape, "TensorList shape mismatch: ")
        indices = list(indices)[: self.size()]
        shape = infer_element_shape(self.element_shape, self.tensors, element_shape)
        if not indices:
            return tf.tensor([], [0, *shape], self.dtype)
        return tidy(lambda: tf.stack([tf.reshape(self.tensors[i], shape) for i in indices], 0))

    def concat(self, dtype: str | None, element_shape: Shape) -> Any:
        if dtype and dtype != self.dtype:
            raise InvalidArgumentError(
                f"TensorList dtype is {self.dtype} but concat requested dtype {dtype}"
            )
        shapes_match(self.element_shape, element_shape, "TensorList shape mismatch: ")
        shape = infer_element_shape(self.element_shape, self.tensors, element_shape)
        if not self.tensors:
            return tf.tensor([], [0, *shape], self.dtype)
        return tidy(lambda: tf.concat([tf.reshape(t, shape) for t in self.tensors], 0))

    @staticmethod
    def from_tensor(tensor: Any, element_shape: Shape, dtype: str) -> TensorList:
        if tensor.rank < 1:
            raise InvalidArgumentError(
                f"Tensor must be at least a vector, but saw shape: {list(tensor.shape)}"
            )
        _check_dtype(tensor.dtype, dtype)
        shapes_match(list(tensor.shape[1:]), element_shape, "TensorList shape mismatch: ")
        return TensorList(tf.unstack(tensor), element_shape, tensor.dtype)

    @staticmethod
    def scatter(
        tensor: Any, indices: list[int], element_shape: Shape, num_elements: int | None
    ) -> TensorList:
        if len(indices) != tensor.shape[0]:
            raise InvalidArgumentError(
                "Expected len(indices) == tensor.shape[0], but saw: "
                f"{len(indices)} vs. {tensor.shape[0]}"
            )
        if num_elements not in (None, -1) and indices and max(indices) >= num_elements:
            raise InvalidArgumentError(
                f"Max index must be < array size ({max(indices)}  vs. {num_elements})"
            )
        result = TensorList(
            [], element_shape, tensor.dtype, -1 if num_elements is None else num_elements
        )
        for index, t in zip(indices, tf.unstack(tensor, 0), strict=True):
            result.set_item(index, t)
        return result

    @staticmethod
    def split(tensor: Any, lengths: list[int], element_shape: Shape) -> TensorList:
        out_shape = merge_element_shape(list(tensor.shape[1:]), element_shape)
        pieces = _split_rows(tensor, lengths, lambda length: out_shape)
        result = TensorList([], element_shape, tensor.dtype, len(lengths))
        for i, t in enumerate(pieces):
            result.set_item(i, t)
        return result


class TensorArray:
    """A ``TensorArrayV3``: fixed or dynamic size, each index written once."""

    def __init__(
        self,
        name: str,
        dtype: str,
        max_size: int,
        element_shape: Shape,
        identical_element_shapes: bool,
        dynamic_size: bool,
        clear_after_read: bool,
    ):
        self.name = name
        self.dtype = dtype
        self.max_size = max_size
        self.element_shape = element_shape
        self.identical_element_shapes = identical_element_shapes
        self.dynamic_size = dynamic_size
        self.clear_after_read = clear_after_read
        self.entries: list[dict[str, Any]] = []
        self.closed = False
        self.id_tensor = keep(tf.scalar(0))

    def size(self) -> int:
        return len(self.entries)

    def clear_and_close(self, keep_ids: set[int] | None = None) -> None:
        for entry in self.entries:
            t = entry.get("tensor")
            if t is not None and (keep_ids is None or t.id not in keep_ids):
                t.dispose()
        self.entries = []
        self.closed = True
        self.id_tensor.dispose()

    def _open(self) -> None:
        if self.closed:
            raise InvalidArgumentError(f"TensorArray {self.name} has already been closed.")

    def read(self, index: int) -> Any:
        self._open()
        if index < 0 or index >= self.size():
            raise InvalidArgumentError(
                f"Tried to read from index {index}, but array size is: {self.size()}"
            )
        entry = self.entries[index]
        if entry.get("cleared"):
            raise InvalidArgumentError(
                f"TensorArray {self.name}: Could not read index {index} twice because it was "
                "cleared after a previous read (perhaps try setting clear_after_read=False?)."
            )
        if self.clear_after_read:
            entry["cleared"] = True
        entry["read"] = True
        return entry["tensor"]

    def write(self, index: int, tensor: Any) -> None:
        self._open()
        if index < 0 or (not self.dynamic_size and index >= self.max_size):
            raise InvalidArgumentError(
                f"Tried to write to index {index}, but array is not resizeable and size is: "
                f"{self.max_size}"
            )
        if tensor.dtype != self.dtype:
            raise InvalidArgumentError(
                f"TensorArray {self.name}: Could not write to TensorArray index {index}, because "
                f"the value dtype is {tensor.dtype}, but TensorArray dtype is {self.dtype}."
            )
        if self.size() == 0 and not self.element_shape:
            self.element_shape = list(tensor.shape)
        shapes_match(
            self.element_shape,
            list(tensor.shape),
            f"TensorArray {self.name}: Could not write to TensorArray index {index}.",
        )
        while len(self.entries) <= index:
            self.entries.append({})
        entry = self.entries[index]
        if entry.get("read"):
            raise InvalidArgumentError(
                f"TensorArray {self.name}: Could not write to TensorArray index {index}, "
                "because it has already been read."
            )
        if entry.get("written"):
            raise InvalidArgumentError(
                f"TensorArray {self.name}: Could not write to TensorArray index {index}, "
                "because it has already been written."
            )
        entry["tensor"] = keep(tensor)
        entry["written"] = True

    def _check_dtype(self, dtype: str | None, what: str) -> None:
        if dtype and dtype != self.dtype:
            raise InvalidArgumentError(
                f"TensorArray dtype is {self.dtype} but {what} requested dtype {dtype}"
            )

    def gather(self, indices: list[int] | None, dtype: str | None) -> Any:
        self._check_dtype(dtype, "gather")
        if indices is None:
            indices = list(range(self.size()))
        else:
            indices = list(indices)[: self.size()]
        if not indices:
            return tf.tensor([], [0, *(self.element_shape or [])], self.dtype)
        tensors = [self.read(i) for i in indices]
        return tf.stack(tensors, 0)

    def concat(self, dtype: str | None) -> Any:
        self._check_dtype(dtype, "concat")
        if self.size() == 0:
            return tf.tensor([], [0, *(self.element_shape or [])], self.dtype)
        return tf.concat([self.read(i) for i in range(self.size())], 0)

    def scatter(self, indices: list[int], tensor: Any) -> None:
        if tensor.dtype != self.dtype:
            raise InvalidArgumentError(
                f"TensorArray dtype is {self.dtype} but tensor has dtype {tensor.dtype}"
            )
        indices = list(indices)[: tensor.shape[0]]
        if not self.dynamic_size and indices and max(indices) >= self.max_size:
            raise InvalidArgumentError(
                f"Max index must be < array size ({max(indices)}  vs. {self.max_size})"
            )
        for index, t in zip(indices, tf.unstack(tensor, 0), strict=True):
            self.write(index, t)

    def split(self, lengths: list[int], tensor: Any) -> None:
        if tensor.dtype != self.dtype:
            raise InvalidArgumentError(
                f"TensorArray dtype is {self.dtype} but tensor has dtype {tensor.dtype}"
            )
        _check_total(tensor, lengths)
        if not self.dynamic_size and len(lengths) != self.max_size:
            raise InvalidArgumentError(
                f"TensorArray's size is not equal to the size of lengths ({self.max_size} vs. "
                f"{len(lengths)}), and the TensorArray is not marked as dynamically resizeable"
            )
        shape, rest = self.element_shape, list(tensor.shape[1:])
        pieces = _split_rows(
            tensor, lengths, lambda length: shape if _defined(shape) else [length, *rest]
        )
        for i, t in enumerate(pieces):
            self.write(i, t)
