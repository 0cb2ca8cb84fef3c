"""Weight bytes: TF.js's binary layout (``io_utils.ts`` ``encodeWeights`` / ``decodeWeights``)
and the converter's quantization (``tensorflowjs/quantization.py``).

Layout: the weights of a manifest are stored one after the other, in manifest order, with no
padding, little-endian: float32 and int32 take 4 bytes a value, bool 1, complex64 8
(interleaved real, imaginary float32), a string a uint32 byte length followed by that many
UTF-8 bytes. A quantized weight stores ``uint8``/``uint16`` affine codes (decoded as
``q * scale + min``, rounded for int32 weights) or IEEE ``float16`` values.

Decoding is done in two steps so nothing is allocated before everything is checked:
:func:`layout_weights` cuts the bytes into one slice per weight (checking every length), and
:func:`decode_host` turns one slice into a NumPy array (a view of the bytes when the layout
allows). :func:`decode_weights` does both and makes tensors, as TF.js's ``tf.io.decodeWeights``.

>>> data, specs = encode_weights({'w': tf.tensor([1.5, -2]), 'n': tf.tensor([7], None, 'int32')})
>>> specs
[{'name': 'w', 'shape': [2], 'dtype': 'float32'}, {'name': 'n', 'shape': [1], 'dtype': 'int32'}]
>>> out = decode_weights(data, specs)
>>> out['w'].array_sync(), out['n'].array_sync()
([1.5, -2.0], [7])
>>> tf.dispose(out)
"""

from __future__ import annotations

import fnmatch
import struct
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..dtypes import DTYPES, NUMPY_DTYPE
from ..tensor import Tensor
from ..tensor_util import host_tensor
from .artifacts import DTYPE_VALUE_SIZE, check_weight_spec
from .errors import ModelFormatError

__all__ = [
    "WeightSlice",
    "concatenate_array_buffers",
    "decode_host",
    "decode_weights",
    "encode_weights",
    "layout_weights",
    "quantize_array",
    "stored_byte_length",
]

NUM_BYTES_STRING_LENGTH = 4
_LITTLE = sys.byteorder == "little"
_HOST_DTYPE = {
    "float32": "<f4",
    "int32": "<i4",
    "complex64": "<c8",
    "uint8": "<u1",
    "uint16": "<u2",
    "float16": "<f2",
}


def _size(shape: list[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def stored_byte_length(spec: dict[str, Any]) -> int | None:
    """Bytes ``spec`` takes in the weight data; ``None`` for (unquantized) strings, whose
    length is only known from the data."""
    if "quantization" in spec:
        return _size(spec["shape"]) * DTYPE_VALUE_SIZE[spec["quantization"]["dtype"]]
    if spec["dtype"] == "string":
        return None
    return _size(spec["shape"]) * DTYPE_VALUE_SIZE[spec["dtype"]]


def minimum_byte_length(spec: dict[str, Any]) -> int:
    """Bytes ``spec`` takes at least (a string weight: 4 bytes of length per element)."""
    n = stored_byte_length(spec)
    return _size(spec["shape"]) * NUM_BYTES_STRING_LENGTH if n is None else n


class Chunks:
    """Several byte buffers read as one (TF.js's ``CompositeArrayBuffer``)."""

    def __init__(self, data: Any):
        parts = data if isinstance(data, (list, tuple)) else [data]
        self.parts = [memoryview(p).cast("B") for p in parts]
        self.starts = []
        total = 0
        for p in self.parts:
            self.starts.append(total)
            total += p.nbytes
        self.nbytes = total

    def slice(self, start: int, end: int) -> memoryview:
        """Bytes ``[start, end)``: a view when they lie in one part, else a joined copy."""
        for part, first in zip(self.parts, self.starts, strict=True):
            if first <= start and end <= first + part.nbytes:
                return part[start - first : end - first]
        out = bytearray()
        for part, first in zip(self.parts, self.starts, strict=True):
            lo, hi = max(start, first), min(end, first + part.nbytes)
            if lo < hi:
                out += part[lo - first : hi - first]
        return memoryview(out)


@dataclass
class WeightSlice:
    """One weight's spec and its stored bytes (see :func:`layout_weights`)."""

    spec: dict[str, Any]
    data: memoryview
    #: For a string weight: the decoded values (checked while laying out).
    strings: list[str] | None = None


def layout_weights(
    weight_data: Any, specs: list[dict[str, Any]], source: str, exact: bool = True
) -> list[WeightSlice]:
    """Cuts ``weight_data`` into one slice per spec, checking that the bytes are exactly what
    the specs describe (``exact=False`` allows trailing bytes). Nothing is allocated but
    string values; errors name ``source``."""
    chunks = Chunks(weight_data)
    out: list[WeightSlice] = []
    offset = 0
    for spec in specs:
        check_weight_spec(spec, source)
        length = stored_byte_length(spec)
        strings = None
        if length is None:
            strings, length = _read_strings(chunks, offset, _size(spec["shape"]), spec, source)
        elif offset + length > chunks.nbytes:
            raise ModelFormatError(
                f"{source}: the weight data is too short: weight {spec['name']!r} "
                f"({spec['dtype']}{spec['shape']}) needs bytes {offset}..{offset + length} "
                f"but the data holds {chunks.nbytes} bytes (a weight file is missing or "
                "truncated, or the manifest does not match it)"
            )
        out.append(WeightSlice(spec, chunks.slice(offset, offset + length), strings))
        offset += length
    if exact and offset != chunks.nbytes:
        raise ModelFormatError(
            f"{source}: the manifest describes {offset} bytes of weights but the weight data "
            f"holds {chunks.nbytes} bytes ({chunks.nbytes - offset} bytes unaccounted for): the "
            "manifest and the weight files disagree"
        )
    return out


def _read_strings(
    chunks: Chunks, offset: int, count: int, spec: dict[str, Any], source: str
) -> tuple[list[str], int]:
    values: list[str] = []
    start = offset
    for i in range(count):
        if offset + NUM_BYTES_STRING_LENGTH > chunks.nbytes:
            raise ModelFormatError(
                f"{source}: the weight data ends inside string weight {spec['name']!r} (element "
                f"{i} of {count}: no room for its length at byte {offset}; the data holds "
                f"{chunks.nbytes} bytes)"
            )
        (n,) = struct.unpack("<I", chunks.slice(offset, offset + 4))
        offset += NUM_BYTES_STRING_LENGTH
        if offset + n > chunks.nbytes:
            raise ModelFormatError(
                f"{source}: string weight {spec['name']!r} element {i} claims {n} bytes at byte "
                f"{offset}, past the end of the weight data ({chunks.nbytes} bytes)"
            )
        try:
            values.append(bytes(chunks.slice(offset, offset + n)).decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise ModelFormatError(
                f"{source}: string weight {spec['name']!r} element {i} is not valid UTF-8 ({exc})"
            ) from None
        offset += n
    return values, offset - start


def _view(data: memoryview, host_dtype: str) -> np.ndarray:
    arr = np.frombuffer(data, dtype=host_dtype)
    if arr.ctypes.data % arr.dtype.itemsize != 0 or not _LITTLE:
        arr = arr.astype(arr.dtype.newbyteorder("="))  # aligned, native copy
    return arr


def decode_host(piece: WeightSlice) -> np.ndarray:
    """The values of one weight as a NumPy array in tidytensor's storage dtype (shaped)."""
    spec = piece.spec
    dtype, shape = spec["dtype"], tuple(spec["shape"])
    q = spec.get("quantization")
    if q is not None:
        codes = _view(piece.data, _HOST_DTYPE[q["dtype"]])
        if q["dtype"] == "float16":
            values = codes.astype(np.float32)
        else:
            decoded = codes.astype(np.float64) * float(q["scale"]) + float(q["min"])
            if dtype == "int32":
                # JS: Math.round, then stored in an Int32Array (wraps modulo 2**32)
                values = np.floor(decoded + 0.5).astype(np.int64).astype(np.int32)
            else:
                values = decoded.astype(np.float32)
    elif dtype == "string":
        values = np.empty(len(piece.strings or []), dtype=object)
        values[:] = piece.strings or []
    elif dtype == "bool":
        values = np.frombuffer(piece.data, dtype=np.uint8) != 0
    else:
        values = _view(piece.data, _HOST_DTYPE[dtype])
    return values.reshape(shape)


#: The engine compares dtype names by identity: use its own string objects, not JSON's.
_CANONICAL_DTYPE = {d: d for d in DTYPES}


def make_weight_tensor(piece: WeightSlice) -> Tensor:
    """A new tensor holding one weight (TF.js's ``decodeWeight``)."""
    dtype = _CANONICAL_DTYPE[piece.spec["dtype"]]
    return host_tensor(decode_host(piece), tuple(piece.spec["shape"]), dtype)


def decode_weights(weight_data: Any, specs: list[dict[str, Any]]) -> dict[str, Tensor]:
    """``{name: tensor}`` from weight bytes and their specs (``tf.io.decode_weights``).

    Raises:
        ModelFormatError: a spec that cannot be decoded, or bytes that do not match the specs.
    """
    pieces = layout_weights(weight_data, specs, "decode_weights", exact=False)
    return {p.spec["name"]: make_weight_tensor(p) for p in pieces}


# ---------------------------------------------------------------------------- encoding
def quantize_array(values: np.ndarray, dtype: str) -> tuple[np.ndarray, dict[str, Any]]:
    """Quantizes a float32 or int32 array as the converter does: affine ``uint8``/``uint16``
    codes over ``[min, max]`` nudged so that 0 is exact, or ``float16``.

    Returns the codes and the manifest's ``quantization`` entry.

    >>> q, meta = quantize_array(np.array([-1.0, 0.0, 0.5, 1.0], np.float32), 'uint8')
    >>> q.tolist(), meta['dtype'], round(meta['scale'] * 255, 6)
    ([0, 128, 192, 255], 'uint8', 2.0)
    """
    original = "int32" if values.dtype == np.int32 else "float32"
    if dtype == "float16":
        if original != "float32":
            raise ModelFormatError(
                f"float16 quantization only supports float32 weights, not {original}"
            )
        return values.astype(np.float16), {"dtype": "float16"}
    if dtype not in ("uint8", "uint16"):
        raise ModelFormatError(
            f"Unknown quantization dtype {dtype!r}. Supported quantization dtypes are: "
            "'uint8', 'uint16', and 'float16'."
        )
    np_dtype = np.uint8 if dtype == "uint8" else np.uint16
    data = values.astype(np.float64)
    lo = float(data.min()) if data.size else 0.0
    hi = float(data.max()) if data.size else 0.0
    if lo == hi:
        codes = np.zeros(data.shape, dtype=np_dtype)
        scale = 1.0
        nudged_min = lo
    else:
        quant_max = float(np.iinfo(np_dtype).max)
        scale = (hi - lo) / quant_max
        if lo <= 0 <= hi:
            quantized_min = float(np.round(-lo / scale))
            nudged_min = -quantized_min * scale
        else:
            nudged_min = lo
        nudged_max = quant_max * scale + nudged_min
        codes = np.round((np.clip(data, nudged_min, nudged_max) - nudged_min) / scale)
        codes = np.clip(codes, 0, quant_max).astype(np_dtype)
    meta = {
        "dtype": dtype,
        "min": float(nudged_min),
        "scale": float(scale),
        "original_dtype": original,
    }
    return codes, meta


def _quantization_for(name: str, dtype: str, quantize: Any) -> str | None:
    """Which quantization (if any) applies to weight ``name`` of ``dtype``."""
    if quantize is None:
        return None
    if isinstance(quantize, str):
        chosen = quantize
    elif isinstance(quantize, dict):
        chosen = None
        for qdtype, patterns in quantize.items():
            pats = [patterns] if isinstance(patterns, str) else list(patterns or ["*"])
            if any(fnmatch.fnmatchcase(name, p) for p in pats):
                chosen = qdtype
                break
        if chosen is None:
            return None
    else:
        raise ModelFormatError(
            f"quantize must be None, 'uint8', 'uint16', 'float16' or a dict of those to weight-name "
            f"patterns, got {quantize!r}"
        )
    if chosen not in ("uint8", "uint16", "float16"):
        raise ModelFormatError(
            f"Unknown quantization dtype {chosen!r}. Supported quantization dtypes are: "
            "'uint8', 'uint16', and 'float16'."
        )
    if dtype == "float32" or (dtype == "int32" and chosen != "float16"):
        return chosen
    return None  # other dtypes are stored as they are (as the converter does)


def _named_tensors(tensors: Any) -> list[tuple[str, Tensor]]:
    if isinstance(tensors, dict):
        return list(tensors.items())
    out = []
    for item in tensors:
        if isinstance(item, dict):
            out.append((item["name"], item["tensor"]))
        else:
            name, tensor = item
            out.append((name, tensor))
    return out


def encode_weights(
    tensors: Any, group: str | None = None, quantize: Any = None
) -> tuple[bytes, list[dict[str, Any]]]:
    """Weight bytes and manifest entries for ``tensors`` (a ``{name: tensor}`` dict or a list
    of ``{'name', 'tensor'}`` dicts), in order (``tf.io.encode_weights``).

    Args:
        group: written as each entry's ``group`` (``'model'`` or ``'optimizer'``).
        quantize: ``'uint8'``, ``'uint16'``, ``'float16'``, or ``{dtype: [name patterns]}``:
            quantizes matching float32 weights (and int32 ones for the affine kinds).
    """
    pieces: list[bytes] = []
    specs: list[dict[str, Any]] = []
    for name, t in _named_tensors(tensors):
        if not isinstance(t, Tensor):
            raise ModelFormatError(f"encode_weights: weight {name!r} is not a tensor: {t!r}")
        if t.dtype not in ("float32", "int32", "bool", "string", "complex64"):
            raise ModelFormatError(f"Unsupported dtype in weight '{name}': {t.dtype}")
        spec: dict[str, Any] = {"name": name, "shape": list(t.shape), "dtype": t.dtype}
        values = np.asarray(t.numpy())
        qdtype = _quantization_for(name, t.dtype, quantize)
        if qdtype is not None:
            codes, meta = quantize_array(values.astype(NUMPY_DTYPE[t.dtype]), qdtype)
            pieces.append(codes.astype(_HOST_DTYPE[qdtype]).tobytes())
            spec["quantization"] = meta
        elif t.dtype == "string":
            buf = bytearray()
            for s in values.reshape(-1):
                raw = s.encode("utf-8") if isinstance(s, str) else bytes(s)
                buf += struct.pack("<I", len(raw))
                buf += raw
            pieces.append(bytes(buf))
        elif t.dtype == "bool":
            pieces.append(values.astype(np.uint8).tobytes())
        else:
            pieces.append(values.astype(_HOST_DTYPE[t.dtype]).tobytes())
        if group is not None:
            spec["group"] = group
        specs.append(spec)
    return b"".join(pieces), specs


def concatenate_array_buffers(buffers: list[Any]) -> bytes:
    """One buffer from several (TF.js's ``tf.io.concatenateArrayBuffers``)."""
    return b"".join(bytes(memoryview(b)) for b in buffers)
