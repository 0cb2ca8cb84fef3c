"""The per-op core in Python: the reference implementation of ``_handles_c.pyx`` (the same
names and behaviour) and the fallback where the compiled core is not built or
``TIDYTENSOR_PURE_PYTHON=1`` forces it. ``_handles.py`` picks one of the two.

Handles and records here are ``__slots__`` instances, which the cyclic garbage collector
tracks: the compiled core's are C structs it does not (issue 16). Nothing here imports
tidytensor: ``bind`` hands in what ``make_tensor`` needs from the layers above.
"""

from __future__ import annotations

import gc
from typing import Any

KIND = "python"

_new_object = object.__new__


def live_handles() -> list[Any]:
    """Every handle not freed yet (Tensor and Variable), found through the garbage collector
    (which tracks every handle here). For error messages and ``tf.testing`` only."""
    return [obj for obj in gc.get_objects() if isinstance(obj, HandleBase)]


class HandleBase:
    """The fields of a Tensor or Variable handle (``tensor.Tensor`` adds the methods)."""

    __slots__ = (
        "id",
        "data_id",
        "_shape",
        "dtype",
        "scope_id",
        "kept",
        "_disposed",
        "_site",
        "_dispose_site",
        "__weakref__",
    )


class RecordBase:
    """The fields of a backend's buffer record (``array_backend.DataId``)."""

    __slots__ = ("values", "refs", "backend", "nbytes", "shape", "dtype")


class CoreState:
    """The engine's per-op counters (``state.EngineState`` adds the rest)."""

    __slots__ = (
        "num_tensors",
        "num_string_tensors",
        "num_data_buffers",
        "num_bytes",
        "buffer_bytes",
        "peak_bytes",
        "check_bytes",
    )


def bind(
    tensor_cls: type,
    ids: Any,
    scope_var: Any,
    current_context: Any,
    user_site: Any,
    logical_bytes: Any,
    complex64: str,
    string: str,
) -> None:
    """Hands in what ``make_tensor`` needs from the layers above (called once by the engine)."""
    global _tensor_cls, _ids, _get_context, _current_context, _user_site, _logical_bytes
    global _complex64, _string
    _tensor_cls = tensor_cls
    _ids = ids
    _get_context = scope_var.get
    _current_context = current_context
    _user_site = user_site
    _logical_bytes = logical_bytes
    _complex64 = complex64
    _string = string


def new_handle(
    cls: type, data_id: Any, shape: tuple[int, ...], dtype: str, scope_id: int | None, site: Any
) -> Any:
    """The one constructor of handles (``Tensor`` or ``Variable``): a new id and every field."""
    t = _new_object(cls)
    t.id = next(_ids)
    t.data_id = data_id
    t._shape = shape
    t.dtype = dtype
    t.scope_id = scope_id
    t.kept = False
    t._disposed = False
    t._site = site
    t._dispose_site = None
    return t


def new_record(cls: type, values: Any, backend: Any, nbytes: int, dtype: str) -> Any:
    """A buffer record of class ``cls`` holding ``values`` with one handle."""
    rec = _new_object(cls)
    rec.values = values
    rec.refs = 1
    rec.backend = backend
    rec.nbytes = nbytes
    rec.shape = values.shape
    rec.dtype = dtype
    return rec


def make_tensor(
    engine: Any,
    data_id: Any,
    shape: tuple[int, ...],
    dtype: str,
    backend: Any = None,
    ctx: Any = None,
    site: Any = None,
) -> Any:
    """Wraps a buffer in a new handle and counts it (TF.js's ``trackTensor``); the handle
    joins the active scope's track list. ``ctx`` and ``site``, when the caller has them, are
    the calling thread's scope context and the user's creation site."""
    state = engine.state
    if data_id.refs == 1:  # a fresh buffer: shared ones were inc_ref'd by their kernel
        # One in-place add: with the GIL, another thread cannot interleave inside it.
        state.buffer_bytes += data_id.nbytes
        if state.buffer_bytes > state.check_bytes:
            engine._over_budget(data_id, shape, dtype)
        state.num_data_buffers += 1
    state.num_tensors += 1
    if dtype != _complex64:
        # A view may relabel its buffer's dtype (lossless casts), so count its own bytes.
        state.num_bytes += (
            data_id.nbytes
            if dtype is data_id.dtype or dtype == data_id.dtype
            else _logical_bytes(shape, dtype)
        )
        if dtype == _string:
            state.num_string_tensors += 1
    if ctx is None:
        ctx = _get_context(None) or _current_context()
    if site is None and engine.track_sites:
        site = ctx.site or _user_site(2)
    scope = ctx.active
    if scope is None:
        return new_handle(_tensor_cls, data_id, shape, dtype, None, site)
    t = new_handle(_tensor_cls, data_id, shape, dtype, scope.id, site)
    scope.track.append(t)
    return t


def dispose_tensor(engine: Any, t: Any, site: Any = None) -> None:
    """Drops one handle (or a leaked handle's record): counters down, buffer refcount down,
    buffer freed at zero (``Engine.dispose_tensor``)."""
    t._disposed = True
    t._dispose_site = site
    data_id = t.data_id
    if data_id.refs <= 0 or not data_id.backend.alive:  # buffer already gone (engine reset)
        return
    state = engine.state
    state.num_tensors -= 1
    dtype = t.dtype
    if dtype != _complex64:
        state.num_bytes -= (
            data_id.nbytes
            if dtype is data_id.dtype or dtype == data_id.dtype
            else _logical_bytes(t._shape, dtype)
        )
        if dtype == _string:
            state.num_string_tensors -= 1
    if data_id.backend.dispose_data(data_id):
        state.num_data_buffers -= 1
        live = state.buffer_bytes
        if live > state.peak_bytes:
            state.peak_bytes = live
        state.buffer_bytes = live - data_id.nbytes
        if state.alert_fired and state.buffer_bytes < engine.alert_level:
            engine._rearm_alert()
