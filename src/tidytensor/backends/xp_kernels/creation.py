"""Creation kernels."""

from __future__ import annotations

from ... import kernel_names as k


def identity(inputs, attrs, backend):
    return backend.share(inputs[0], inputs[0]._shape)


RAW_KERNELS = {
    k.IDENTITY: identity,
}
