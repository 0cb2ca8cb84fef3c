"""Slice geometry (TF.js's ``slice_util``): where a ``slice`` begins and how far it reaches,
checked against the input's shape. Shared by the slice kernel and its gradient."""

from __future__ import annotations

from ..errors import InvalidArgumentError, ShapeError


def _js(values) -> str:
    return ",".join(str(v) for v in values)


def parse_slice_params(shape, begin, size):
    """TF.js's ``parseSliceParams`` + ``assertParamsValid``: a number or short list is
    completed with zeros (begin) or -1 (size, meaning "to the end")."""
    rank = len(shape)
    if isinstance(begin, (int, float)):
        begin = [begin] + [0] * (rank - 1)
    begin = [int(b) for b in begin]
    begin += [0] * (rank - len(begin))
    if any(b < 0 for b in begin):
        raise InvalidArgumentError("slice() does not support negative begin indexing.")
    if size is None:
        size = [-1] * rank
    elif isinstance(size, (int, float)):
        size = [size] + [-1] * (rank - 1)
    size = [int(s) for s in size]
    size += [-1] * (rank - len(size))
    out_size = []
    for i, s in enumerate(size):
        if s >= 0:
            out_size.append(s)
        elif s == -1:
            out_size.append(shape[i] - begin[i] if i < rank and i < len(begin) else 0)
        else:
            raise InvalidArgumentError(
                f"Negative size values should be exactly -1 but got {s} for the slice() size at index {i}."
            )
    if len(begin) != rank:
        raise ShapeError(
            f"Error in slice{rank}D: Length of begin {_js(begin)} must match the rank of the array ({rank})."
        )
    if len(out_size) != rank:
        raise ShapeError(
            f"Error in slice{rank}D: Length of size {_js(out_size)} must match the rank of the array ({rank})."
        )
    for i in range(rank):
        if begin[i] + out_size[i] > shape[i]:
            raise ShapeError(
                f"Error in slice{rank}D: begin[{i}] + size[{i}] ({begin[i] + out_size[i]}) would "
                f"overflow input.shape[{i}] ({shape[i]})"
            )
    return begin, out_size
