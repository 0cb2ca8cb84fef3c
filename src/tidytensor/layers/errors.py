"""The errors the Layers API raises (TF.js's ``tfjs-layers/src/errors.ts``).

Each one derives from :class:`tidytensor.TidyTensorError` and from the builtin that fits, so
``except ValueError`` catches a bad layer argument, as it does for ops.
"""

from __future__ import annotations

from ..errors import TidyTensorError

__all__ = [
    "LayersAttributeError",
    "LayersNotImplementedError",
    "LayersRuntimeError",
    "LayersValueError",
]


class LayersValueError(TidyTensorError, ValueError):
    """An argument, shape or config the layer or model does not accept (TF.js's ``ValueError``)."""


class LayersRuntimeError(TidyTensorError, RuntimeError):
    """A call in the wrong state: disposed, not built, not compiled (TF.js's ``RuntimeError``
    and plain ``Error`` for disposal)."""


class LayersAttributeError(TidyTensorError, AttributeError):
    """A property that is not defined for this layer yet (TF.js's ``AttributeError``)."""


class LayersNotImplementedError(TidyTensorError, NotImplementedError):
    """A feature TF.js does not implement either (TF.js's ``NotImplementedError``)."""
