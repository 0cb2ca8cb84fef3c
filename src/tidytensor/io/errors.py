"""The errors ``tf.io`` raises. Each derives from :class:`tidytensor.TidyTensorError` and from
the builtin that fits, so ``except ValueError`` catches a malformed ``model.json`` and
``except FileNotFoundError`` a missing shard. Every message names the file (or URL) and the
problem."""

from __future__ import annotations

from ..errors import ResourceExhaustedError, TidyTensorError

__all__ = [
    "IOHandlerError",
    "ModelFileNotFoundError",
    "ModelFormatError",
    "ModelTooLargeError",
]


class ModelFormatError(TidyTensorError, ValueError):
    """A model (``model.json``, its weights manifest, its weight files, its topology) that
    cannot be loaded as it is: not a layers model, unknown layer class, unsafe or missing
    weight paths, sizes, shapes or dtypes that disagree, missing quantization metadata,
    weights without a target (strict mode)."""


class ModelFileNotFoundError(ModelFormatError, FileNotFoundError):
    """A ``model.json`` or weight file that does not exist."""


class ModelTooLargeError(ModelFormatError, ResourceExhaustedError):
    """A manifest (or a topology) that would allocate more than the load's byte limit."""


class IOHandlerError(TidyTensorError, OSError):
    """A URL no handler accepts, an HTTP request that failed, a model store entry that does not
    exist, or a save that could not be written."""
