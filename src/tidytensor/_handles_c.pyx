# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled core of the per-op path (issue 16): handles, buffer records and the engine's
counters as C structs the cyclic garbage collector does not track, and ``make_tensor``, which
counts a kernel's output and wraps it in a handle tracked by the active scope.

``_handles_py.py`` is the readable reference: the same names, the same behaviour, in Python.
``_handles.py`` picks one of the two (``TIDYTENSOR_PURE_PYTHON=1`` forces the reference).
Nothing here imports tidytensor: ``bind`` hands in the Tensor class, the scope context
variable and the few helpers ``make_tensor`` calls.
"""

cimport cython
from cpython.contextvars cimport get_value


cdef extern from "Python.h":
    bint PyObject_IS_GC(object)
    void PyObject_GC_UnTrack(void *)

# CPython gives every instance of a class made by a ``class`` statement a GC header (its
# instances could reach their own class): ``tensor.Tensor`` and ``array_backend.DataId`` are
# such classes over HandleBase and RecordBase. The handles and records made here are untracked
# right away, so the collector never walks them: no reference cycle may go through one (a
# handle holds its record, shape, dtype string and creation site; a record its array, backend,
# shape and dtype string).
cdef inline void _untrack(object o):
    if PyObject_IS_GC(o):
        PyObject_GC_UnTrack(<void *>o)

KIND = "compiled"


@cython.no_gc
@cython.auto_pickle(False)
cdef class HandleBase:
    """The fields of a Tensor or Variable handle (``tensor.Tensor`` adds the methods). Not
    tracked by the GC: no reference cycle may go through a handle."""

    cdef public object id
    cdef public object data_id
    cdef public object _shape
    cdef public object dtype
    cdef public object scope_id
    cdef public object _site
    cdef public object _dispose_site
    cdef public bint kept
    cdef public bint _disposed
    cdef object __weakref__
    # Every live handle is on one list (not owning references: a handle unlinks itself when
    # it is freed), so that ``live_handles`` finds handles the GC does not track.
    cdef void *_prev
    cdef void *_next
    cdef bint _linked

    def __dealloc__(self):
        _unlink(self)


@cython.no_gc
@cython.auto_pickle(False)
cdef class RecordBase:
    """The fields of a backend's buffer record (``array_backend.DataId``)."""

    cdef public object values
    cdef public object backend
    cdef public object shape
    cdef public object dtype
    cdef public Py_ssize_t refs
    cdef public Py_ssize_t nbytes


@cython.auto_pickle(False)
cdef class CoreState:
    """The engine's per-op counters (``state.EngineState`` adds the rest)."""

    cdef public Py_ssize_t num_tensors
    cdef public Py_ssize_t num_string_tensors
    cdef public Py_ssize_t num_data_buffers
    cdef public Py_ssize_t num_bytes
    cdef public Py_ssize_t buffer_bytes
    cdef public Py_ssize_t peak_bytes
    #: A number (the memory limit, an alert's level, infinity) or any object comparable
    #: with an int (the failure-injection tests' counter).
    cdef public object check_bytes


# The live-handle list's head; its links are borrowed pointers (see HandleBase).
cdef void *_head = NULL


cdef inline void _link(HandleBase t):
    global _head
    t._prev = NULL
    t._next = _head
    if _head != NULL:
        (<HandleBase>_head)._prev = <void *>t
    _head = <void *>t
    t._linked = True


cdef inline void _unlink(HandleBase t):
    global _head
    if not t._linked:
        return
    if t._prev != NULL:
        (<HandleBase>t._prev)._next = t._next
    else:
        _head = t._next
    if t._next != NULL:
        (<HandleBase>t._next)._prev = t._prev
    t._prev = t._next = NULL
    t._linked = False


def live_handles():
    """Every handle not freed yet (Tensor and Variable): the ones the cyclic GC does not
    track included (``gc.get_objects()`` misses those). For error messages and
    ``tf.testing``: a walk of the list, never on the per-op path."""
    cdef list found = []
    cdef void *p = _head
    while p != NULL:
        found.append(<object>p)
        p = (<HandleBase>p)._next
    return found


cdef object _tensor_cls = None
cdef object _ids = None
cdef object _scope_var = None
cdef object _current_context = None
cdef object _user_site = None
cdef object _logical_bytes = None
cdef object _complex64 = None
cdef object _string = None


def bind(tensor_cls, ids, scope_var, current_context, user_site, logical_bytes, complex64, string):
    """Hands in what ``make_tensor`` needs from the layers above (called once by the engine)."""
    global _tensor_cls, _ids, _scope_var, _current_context, _user_site, _logical_bytes
    global _complex64, _string
    _tensor_cls = tensor_cls
    _ids = ids
    _scope_var = scope_var
    _current_context = current_context
    _user_site = user_site
    _logical_bytes = logical_bytes
    _complex64 = complex64
    _string = string


cdef inline HandleBase _new_handle(cls, data_id, shape, dtype, scope_id, site):
    cdef HandleBase t = HandleBase.__new__(cls)
    _link(t)
    t.id = next(_ids)
    t.data_id = data_id
    t._shape = shape
    t.dtype = dtype
    t.scope_id = scope_id
    t._site = site
    return t


def new_handle(cls, data_id, shape, dtype, scope_id, site):
    """The one constructor of handles (``Tensor`` or ``Variable``): a new id and every field."""
    cdef HandleBase t = _new_handle(cls, data_id, shape, dtype, scope_id, site)
    if cls is _tensor_cls:  # variables (and their names) stay tracked
        _untrack(t)
    return t


def new_record(cls, values, backend, Py_ssize_t nbytes, dtype):
    """A buffer record of class ``cls`` holding ``values`` with one handle."""
    cdef RecordBase rec = RecordBase.__new__(cls)
    rec.values = values
    rec.refs = 1
    rec.backend = backend
    rec.nbytes = nbytes
    rec.shape = values.shape
    rec.dtype = dtype
    _untrack(rec)
    return rec


def make_tensor(engine, data_id, shape, dtype, backend=None, ctx=None, site=None):
    """Wraps a buffer in a new handle and counts it (TF.js's ``trackTensor``); the handle
    joins the active scope's track list. ``ctx`` and ``site``, when the caller has them, are
    the calling thread's scope context and the user's creation site."""
    cdef CoreState state = engine.state
    cdef HandleBase t
    cdef RecordBase rec
    cdef Py_ssize_t nbytes
    cdef bint fresh
    if type(data_id).__base__ is RecordBase:
        rec = <RecordBase>data_id
        fresh = rec.refs == 1
        nbytes = rec.nbytes
        rdtype = rec.dtype
    else:  # another backend's record class
        fresh = data_id.refs == 1
        nbytes = data_id.nbytes
        rdtype = data_id.dtype
    if fresh:  # a fresh buffer: shared ones were inc_ref'd by their kernel
        state.buffer_bytes += nbytes
        if state.buffer_bytes > state.check_bytes:
            engine._over_budget(data_id, shape, dtype)
        state.num_data_buffers += 1
    state.num_tensors += 1
    if dtype is not _complex64 and dtype != _complex64:
        # A view may relabel its buffer's dtype (lossless casts), so count its own bytes.
        if dtype is rdtype or dtype == rdtype:
            state.num_bytes += nbytes
        else:
            state.num_bytes += _logical_bytes(shape, dtype)
        if dtype is _string or dtype == _string:
            state.num_string_tensors += 1
    if ctx is None:
        ctx = get_value(_scope_var, None)
        if ctx is None:
            ctx = _current_context()
    if site is None and engine.track_sites:
        site = ctx.site
        if site is None:
            site = _user_site(1)  # no frame of ours: 1 is our caller
    scope = ctx.active
    if scope is None:
        t = _new_handle(_tensor_cls, data_id, shape, dtype, None, site)
    else:
        t = _new_handle(_tensor_cls, data_id, shape, dtype, scope.id, site)
        scope.track.append(t)
    _untrack(t)
    return t


def dispose_tensor(engine, t, site=None):
    """Drops one handle (or a leaked handle's record): counters down, buffer refcount down,
    buffer freed at zero (``Engine.dispose_tensor``)."""
    cdef CoreState state
    cdef Py_ssize_t live
    t._disposed = True
    t._dispose_site = site
    data_id = t.data_id
    backend = data_id.backend
    if data_id.refs <= 0 or not backend.alive:  # buffer already gone (engine reset)
        return
    state = engine.state
    state.num_tensors -= 1
    dtype = t.dtype
    if dtype is not _complex64 and dtype != _complex64:
        rdtype = data_id.dtype
        if dtype is rdtype or dtype == rdtype:
            state.num_bytes -= data_id.nbytes
        else:
            state.num_bytes -= _logical_bytes(t._shape, dtype)
        if dtype is _string or dtype == _string:
            state.num_string_tensors -= 1
    if backend.dispose_data(data_id):
        state.num_data_buffers -= 1
        live = state.buffer_bytes
        if live > state.peak_bytes:
            state.peak_bytes = live
        state.buffer_bytes = live - data_id.nbytes
        if (<object>state).alert_fired and state.buffer_bytes < engine.alert_level:
            engine._rearm_alert()
