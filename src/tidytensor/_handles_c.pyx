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
from cpython.object cimport PyObject
from sys import _getframe


cdef extern from "Python.h":
    bint PyObject_IS_GC(object)
    void PyObject_GC_UnTrack(void *)
    ctypedef struct PyFrameObject
    PyFrameObject *PyEval_GetFrame()  # borrowed; NULL when no Python frame runs

# A frame's code and instruction offset, as Python's ``frame.f_code`` and ``frame.f_lasti``
# (PyFrame_GetLasti is 3.11+).
cdef extern from *:
    """
    #if PY_VERSION_HEX < 0x030B0000
    static int tt_frame_lasti(PyFrameObject *f) { return f->f_lasti < 0 ? -1 : f->f_lasti * 2; }
    #else
    #define tt_frame_lasti(f) PyFrame_GetLasti(f)
    #endif
    #define tt_frame_code(f) ((PyObject *)PyFrame_GetCode(f))
    """
    int tt_frame_lasti(PyFrameObject *)
    object tt_frame_code(PyFrameObject *)  # a new reference

# The per-op path's C helpers:
# * ``tt_new_instance(cls, empty)``: ``cls.__new__(cls)`` through the type's ``tp_new`` slot
#   (a Python-level ``Base.__new__(cls)`` call costs a method lookup and an argument tuple).
# * ``tt_enable_vectorcall``: a type's instances are called through the vectorcall function
#   stored at ``offset`` in each (PEP 590): no argument tuple, no keyword dict per call.
# * NumPy's float32 scalar as a C struct (NumPy's ``PyFloatScalarObject``: the object head and
#   the C float): ``SameShapeKernel`` checks that layout against a real ``np.float32`` before
#   it reads or makes one, and otherwise runs the kernel function.
cdef extern from *:
    """
    static PyObject *tt_new_instance(PyObject *cls, PyObject *empty) {
        PyTypeObject *tp = (PyTypeObject *)cls;
        return tp->tp_new(tp, empty, NULL);
    }
    static void tt_enable_vectorcall(PyObject *cls, Py_ssize_t offset) {
        PyTypeObject *tp = (PyTypeObject *)cls;
        tp->tp_vectorcall_offset = offset;
        tp->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
    }
    typedef struct { PyObject_HEAD float obval; } tt_f32_scalar;
    #define tt_f32_value(o) (((tt_f32_scalar *)(o))->obval)
    static PyObject *tt_new_f32(PyObject *cls, float v) {
        PyTypeObject *tp = (PyTypeObject *)cls;
        PyObject *o = tp->tp_alloc(tp, 0);
        if (o != NULL) tt_f32_value(o) = v;
        return o;
    }
    #define tt_f32_size() ((Py_ssize_t)sizeof(tt_f32_scalar))
    /* HandleBase's finalizer: a disposed or kept handle (every handle a scope's end freed)
       returns at once, reading its two flags at their offsets; any other runs the full
       finalizer (``__del__``, which saves and restores the error state around the leak
       hook). Installed on HandleBase and on the Tensor class ``bind`` receives: a class
       statement takes its finalizer from ``__del__``, not from its base's slot. */
    static destructor tt_full_finalize = NULL;
    static Py_ssize_t tt_off_disposed = 0, tt_off_kept = 0;
    static void tt_handle_finalize(PyObject *o) {
        if (*(int *)((char *)o + tt_off_disposed) || *(int *)((char *)o + tt_off_kept)) return;
        tt_full_finalize(o);
    }
    static void tt_set_flag_offsets(Py_ssize_t off_disposed, Py_ssize_t off_kept) {
        tt_off_disposed = off_disposed;
        tt_off_kept = off_kept;
    }
    /* On ``cls`` (HandleBase or a subclass whose finalizer is HandleBase's ``__del__``: a
       class statement takes that one from ``__del__``, not the base's slot). */
    static void tt_install_finalize(PyObject *cls) {
        PyTypeObject *tp = (PyTypeObject *)cls;
        if (tp->tp_finalize == NULL || tp->tp_finalize == tt_handle_finalize) return;
        if (tt_full_finalize == NULL) tt_full_finalize = tp->tp_finalize;
        if (tp->tp_finalize != tt_full_finalize) return;  /* a subclass's own __del__ */
        tp->tp_finalize = tt_handle_finalize;
    }
    """
    object tt_new_instance(object cls, object empty)
    void tt_enable_vectorcall(object cls, Py_ssize_t offset)
    float tt_f32_value(object)
    object tt_new_f32(object cls, float v)
    Py_ssize_t tt_f32_size()
    void tt_set_flag_offsets(Py_ssize_t off_disposed, Py_ssize_t off_kept)
    void tt_install_finalize(object cls)
    ctypedef PyObject *(*vectorcallfunc)(PyObject *, PyObject **, size_t, PyObject *)
    Py_ssize_t PyVectorcall_NARGS(size_t)
    object PyObject_Vectorcall(object, PyObject **, size_t, PyObject *)
    object PyVectorcall_Call(object, object, object)

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

    def __del__(self):
        # A handle collected undisposed while its buffer lives is a leak (TF.js leaks it
        # silently); kept tensors are never reported (``Variable`` overrides this).
        if not self._disposed and not self.kept and _leak_hook is not None:
            try:
                if not _finalizing():
                    _leak_hook(self)
            except Exception:  # never raise from a finalizer (interpreter exit)
                pass

    def __dealloc__(self):
        _unlink(self)


cdef void _install_handle_finalize() except *:
    # ``bint`` fields are C ints; their offsets from a handle's start, for tt_handle_finalize.
    cdef HandleBase probe = HandleBase.__new__(HandleBase)
    probe._disposed = True  # never a leak
    cdef char *start = <char *><PyObject *>probe
    tt_set_flag_offsets(<char *>&probe._disposed - start, <char *>&probe.kept - start)
    tt_install_finalize(HandleBase)


_install_handle_finalize()


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
    #: Whether the memory alert fired and live bytes have not fallen below its level since.
    cdef public bint alert_fired
    #: Whether ``tf.profile`` records kernels, and the next tidy scope's id (``EngineState``
    #: documents them): C fields, which the compiled tape reads per node.
    cdef public bint profiling
    cdef public Py_ssize_t next_scope_id
    # ``check_bytes`` (see the property) and how ``_over_check`` compares with it: never
    # (infinity), as a C integer (``_check_int``), or as a Python object.
    cdef object _check_bytes
    cdef int _check_kind
    cdef Py_ssize_t _check_int

    def __cinit__(self, *args, **kwargs):
        self._check_bytes = _INF
        self._check_kind = _CHECK_NEVER

    @property
    def check_bytes(self):
        """A number (the memory limit, an alert's level, infinity) or any object comparable
        with an int (the failure-injection tests' counter): ``buffer_bytes`` above it sends a
        new buffer to the engine's slow path."""
        return self._check_bytes

    @check_bytes.setter
    def check_bytes(self, value):
        self._check_bytes = value
        if type(value) is float and value == _INF:
            self._check_kind = _CHECK_NEVER
        elif type(value) is int and -_SSIZE_MAX <= value <= _SSIZE_MAX:
            self._check_int = value
            self._check_kind = _CHECK_INT
        else:
            self._check_kind = _CHECK_OBJECT


cdef enum:
    _CHECK_NEVER = 0
    _CHECK_INT = 1
    _CHECK_OBJECT = 2
cdef object _INF = float("inf")
cdef object _SSIZE_MAX = (1 << 62)


cdef inline bint _over_check(CoreState state) except -1:
    """``state.buffer_bytes > state.check_bytes``, without a Python int when it can."""
    if state._check_kind == _CHECK_NEVER:
        return False
    if state._check_kind == _CHECK_INT:
        return state.buffer_bytes > state._check_int
    return bool(state.buffer_bytes > state._check_bytes)


@cython.auto_pickle(False)
cdef class ScopeBase:
    """The fields of a tidy scope (``state.Scope``): its ``track`` list of handles, ``name``,
    ``id`` and ``parent`` scope."""

    cdef public list track
    cdef public object name
    cdef public object id
    cdef public ScopeBase parent


@cython.auto_pickle(False)
cdef class ContextBase:
    """The fields of one thread's (or asyncio task's) scope stack (``state.ScopeContext``)."""

    cdef public ScopeBase active
    cdef public list stack
    cdef public object site
    cdef public ScopeBase top
    cdef public int gradient_depth
    cdef public int kernel_depth
    cdef public object tape


cdef class BackendBase:
    """The fields of an array backend the per-op path reads and writes
    (``array_backend.ArrayBackend``): ``alive`` and ``_num_ids``, its count of buffers.
    ``stock_dispose``: whether its ``dispose_data`` is ``dispose_record``, which the core
    then runs inline."""

    cdef public bint alive
    cdef public Py_ssize_t _num_ids
    cdef readonly bint stock_dispose
    #: Whether its ``share`` is ``share_record``, which the tape then runs inline.
    cdef readonly bint stock_share

    def __cinit__(self, *args, **kwargs):
        self.alive = True
        self.stock_dispose = getattr(type(self), "dispose_data", None) is dispose_record
        self.stock_share = getattr(type(self), "share", None) is share_record


cdef inline bint _free_record(BackendBase backend, RecordBase rec, bint force):
    rec.refs -= 1
    if force or rec.refs <= 0:
        rec.refs = 0
        rec.values = None
        backend._num_ids -= 1
        return True
    return False


def share_record(backend, x, shape, dtype=None):
    """``ArrayBackend.share``: a TensorInfo viewing ``x``'s buffer with another shape (and
    dtype, None: ``x``'s): no copy, refcount + 1."""
    data_id = x.data_id
    if isinstance(data_id, RecordBase):
        (<RecordBase>data_id).refs += 1
    else:
        data_id.refs += 1
    return (data_id, shape, dtype or x.dtype)


@cython.final
@cython.auto_pickle(False)
cdef class ReshapeKernel:
    """The Reshape kernel bound to ``backend`` (``xp_kernels.transformations.reshape``'s
    ``bind``): ``kernel(inputs, attrs)`` is ``backend.share(inputs[0],
    tuple(attrs["shape"]))``, with ``share_record`` inline for the core's backends."""

    cdef object backend
    cdef bint stock

    def __init__(self, backend):
        self.backend = backend
        self.stock = isinstance(backend, BackendBase) and (<BackendBase>backend).stock_share

    def __call__(self, inputs, attrs):
        cdef HandleBase h
        x = inputs[0]
        shape = tuple(attrs["shape"])
        if self.stock and isinstance(x, HandleBase):
            h = <HandleBase>x
            if isinstance(h.data_id, RecordBase):
                (<RecordBase>h.data_id).refs += 1
                return (h.data_id, shape, h.dtype)
        return self.backend.share(x, shape)


def dispose_record(backend, data_id, bint force=False):
    """``ArrayBackend.dispose_data``: drops one reference to a buffer; frees it (and returns
    True) at zero, or at once with ``force``."""
    if isinstance(backend, BackendBase) and isinstance(data_id, RecordBase):
        return _free_record(<BackendBase>backend, <RecordBase>data_id, force)
    data_id.refs -= 1
    if force or data_id.refs <= 0:
        data_id.refs = 0
        data_id.values = None
        backend._num_ids -= 1
        return True
    return False


cdef class EngineBase:
    """The engine's fields the per-op path reads (``engine.Engine`` adds the rest)."""

    cdef public CoreState state
    cdef public object _backend
    cdef public dict _kernels
    cdef public dict _same_shape_kernels
    cdef public bint _slow
    #: Whether a gradient tape is all that watches kernel calls (``Engine.update_mode``):
    #: ``FastOp`` then runs its kernel unwatched and records the call itself.
    cdef public bint _tape_only
    cdef public bint track_sites


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
cdef object _caller_site_py = None
cdef object _logical_bytes = None
cdef object _complex64 = None
cdef object _string = None
cdef object _float32 = None
cdef object _watch_cls = None
cdef object _tidy_error = None
cdef object _leak_hook = None
cdef object _finalizing = None


def bind(*, tensor_cls, ids, scope_var, current_context, caller_site, logical_bytes,
         complex64, string, float32, watch_cls, tidy_error, leak_hook, finalizing):
    """Hands in what the per-op path needs from the layers above (called once by the
    engine): the Tensor class, the id counter, the scope context variable, ``sites.py``'s
    ``caller_site``, the canonical dtype strings, ``KernelWatch``, ``TidyTensorError``, what
    records a leaked handle (``leak_hook(t)``) and ``sys.is_finalizing``."""
    global _tensor_cls, _ids, _scope_var, _current_context, _caller_site_py, _logical_bytes
    global _complex64, _string, _float32, _watch_cls, _tidy_error, _leak_hook, _finalizing
    if not issubclass(tensor_cls, HandleBase):
        raise TypeError(f"bind: tensor_cls must be a HandleBase class, got {tensor_cls!r}")
    _tensor_cls = tensor_cls
    tt_install_finalize(tensor_cls)  # its finalizer is HandleBase's __del__: the fast one
    _ids = ids
    _scope_var = scope_var
    _current_context = current_context
    _caller_site_py = caller_site
    _logical_bytes = logical_bytes
    _complex64 = complex64
    _string = string
    _float32 = float32
    _watch_cls = watch_cls
    _tidy_error = tidy_error
    _leak_hook = leak_hook
    _finalizing = finalizing


cdef object _empty = ()


cdef inline HandleBase _new_handle(cls, data_id, shape, dtype, scope_id, site):
    # cls is HandleBase or a subclass (checked by ``bind`` and ``new_handle``).
    cdef HandleBase t = <HandleBase>tt_new_instance(cls, _empty)
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
    if not issubclass(cls, HandleBase):
        raise TypeError(f"new_handle: cls must be a HandleBase class, got {cls!r}")
    cdef HandleBase t = _new_handle(cls, data_id, shape, dtype, scope_id, site)
    if cls is _tensor_cls:  # variables (and their names) stay tracked
        _untrack(t)
    return t


cdef inline RecordBase _new_record(cls, values, backend, Py_ssize_t nbytes, dtype, shape):
    cdef RecordBase rec = <RecordBase>tt_new_instance(cls, _empty)
    rec.values = values
    rec.refs = 1
    rec.backend = backend
    rec.nbytes = nbytes
    rec.shape = shape
    rec.dtype = dtype
    _untrack(rec)
    return rec


def new_record(cls, values, backend, Py_ssize_t nbytes, dtype):
    """A buffer record of class ``cls`` holding ``values`` with one handle."""
    if not issubclass(cls, RecordBase):
        raise TypeError(f"new_record: cls must be a RecordBase class, got {cls!r}")
    return _new_record(cls, values, backend, nbytes, dtype, values.shape)


cdef inline ContextBase _context():
    """The calling thread's (or task's) scope stack, made on first use."""
    ctx = get_value(_scope_var, None)
    if ctx is None:
        ctx = _current_context()
    return <ContextBase?>ctx


# The last user line an op was called from, as (code, offset) -> its canonical site: in a
# loop every op of one line finds its site without a dict lookup. Holds the code object.
cdef object _last_code = None
cdef int _last_lasti = -1
cdef object _last_site = None


cdef object _caller_site():
    """The creation site of an op called from the running Python frame (``sites.caller_site``
    of that frame, remembered for the last user line)."""
    global _last_code, _last_lasti, _last_site
    cdef PyFrameObject *frame = PyEval_GetFrame()
    if frame == NULL:  # called from C with no Python frame
        return None
    code = tt_frame_code(frame)
    cdef int lasti = tt_frame_lasti(frame)
    if code is _last_code and lasti == _last_lasti:
        return _last_site
    site = _caller_site_py(<object>frame)
    if site is not None and (<tuple>site)[0] is code:
        _last_code, _last_lasti, _last_site = code, lasti, site
    return site


# ``call_site``'s last few user lines, (code, offset) -> site: a loop that calls ``predict``
# and disposes its output finds both sites with no dict lookup. Holds the code objects.
cdef list _site_codes = [None, None, None, None]
cdef list _site_found = [None, None, None, None]
cdef int _site_lastis[4]
cdef int _site_next = 0


def call_site(Py_ssize_t depth):
    """The creation (or disposal) site of a public call: the calling thread's pinned site
    (``ctx.site``), else ``sites.caller_site`` of the frame ``depth`` frames out from the
    caller (0: the caller's own frame; None past the outermost). ``sys._getframe`` reaches
    that frame without building the ones in between, and the sites of the last four user
    lines are remembered."""
    global _site_next
    cdef int i, lasti
    ctx = get_value(_scope_var, None)
    if ctx is not None:
        site = (<ContextBase?>ctx).site
        if site is not None:
            return site
    try:
        f = _getframe(depth)  # called from C, 0 is the calling Python frame
    except ValueError:  # the stack is not that deep: no user frame outside the caller
        return None
    code = tt_frame_code(<PyFrameObject *>f)
    lasti = tt_frame_lasti(<PyFrameObject *>f)
    for i in range(4):
        if _site_codes[i] is code and _site_lastis[i] == lasti:
            return _site_found[i]
    site = _caller_site_py(f)
    if site is not None and (<tuple>site)[0] is code:
        i = _site_next
        _site_next = (i + 1) % 4
        _site_codes[i] = code
        _site_lastis[i] = lasti
        _site_found[i] = site
    return site


cdef inline int _count_bytes(CoreState state, dtype, rdtype, Py_ssize_t nbytes, shape,
                             int sign) except -1:
    """``num_bytes`` (and ``num_string_tensors``) up (``sign`` 1) or down (-1) for one handle
    of ``dtype`` over a buffer of ``rdtype`` holding ``nbytes``: complex handles count no
    bytes (TF.js), a view that relabels its buffer's dtype counts its own."""
    if dtype is _float32:  # the per-op case: no string compares
        if rdtype is _float32:
            state.num_bytes += sign * nbytes
        else:
            state.num_bytes += sign * <Py_ssize_t>_logical_bytes(shape, dtype)
        return 0
    if dtype is _complex64 or dtype == _complex64:
        return 0
    if dtype is rdtype or dtype == rdtype:
        state.num_bytes += sign * nbytes
    else:
        state.num_bytes += sign * <Py_ssize_t>_logical_bytes(shape, dtype)
    if dtype is _string or dtype == _string:
        state.num_string_tensors += sign
    return 0


cdef object _make(EngineBase engine, data_id, shape, dtype, ContextBase ctx, site):
    """``make_tensor`` with the caller's scope context (``ctx``, never None)."""
    cdef CoreState state = engine.state
    cdef HandleBase t
    cdef RecordBase rec
    cdef Py_ssize_t nbytes
    cdef bint fresh
    if isinstance(data_id, RecordBase):
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
        if _over_check(state):
            engine._over_budget(data_id, shape, dtype)
        state.num_data_buffers += 1
    state.num_tensors += 1
    _count_bytes(state, dtype, rdtype, nbytes, shape, 1)
    if site is None and engine.track_sites:
        site = ctx.site
        if site is None:
            site = _caller_site()
    cdef ScopeBase scope = ctx.active
    if scope is None:
        t = _new_handle(_tensor_cls, data_id, shape, dtype, None, site)
    else:
        t = _new_handle(_tensor_cls, data_id, shape, dtype, scope.id, site)
        scope.track.append(t)
    _untrack(t)
    return t


def make_tensor(EngineBase engine, data_id, shape, dtype, backend=None, ctx=None, site=None):
    """Wraps a buffer in a new handle and counts it (TF.js's ``trackTensor``); the handle
    joins the active scope's track list. ``ctx`` and ``site``, when the caller has them, are
    the calling thread's scope context and the user's creation site."""
    return _make(engine, data_id, shape, dtype, _context() if ctx is None else ctx, site)


cdef _dispose(EngineBase engine, t, site):
    """``dispose_tensor``: typed field access for the core's handles, records and backends."""
    cdef CoreState state
    cdef Py_ssize_t live, nbytes, refs
    cdef HandleBase h
    cdef RecordBase rec = None
    cdef BackendBase core_backend = None
    cdef bint alive, freed
    if isinstance(t, HandleBase):
        h = <HandleBase>t
        h._disposed = True
        h._dispose_site = site
        data_id, dtype = h.data_id, h.dtype
    else:  # a leaked handle's record (``LeakedTensor``)
        t._disposed = True
        t._dispose_site = site
        data_id, dtype = t.data_id, t.dtype
    if isinstance(data_id, RecordBase):
        rec = <RecordBase>data_id
        refs, backend, nbytes, rdtype = rec.refs, rec.backend, rec.nbytes, rec.dtype
    else:  # another backend's record class
        refs, backend, nbytes, rdtype = data_id.refs, data_id.backend, data_id.nbytes, data_id.dtype
    if isinstance(backend, BackendBase):
        core_backend = <BackendBase>backend
        alive = core_backend.alive
    else:
        alive = backend.alive
    if refs <= 0 or not alive:  # buffer already gone (engine reset)
        return
    state = engine.state
    state.num_tensors -= 1
    _count_bytes(state, dtype, rdtype, nbytes, t._shape if dtype is not rdtype else None, -1)
    if rec is not None and core_backend is not None and core_backend.stock_dispose:
        freed = _free_record(core_backend, rec, False)
    else:
        freed = backend.dispose_data(data_id)
    if freed:
        state.num_data_buffers -= 1
        live = state.buffer_bytes
        if live > state.peak_bytes:
            state.peak_bytes = live
        state.buffer_bytes = live - nbytes
        if state.alert_fired and state.buffer_bytes < engine.alert_level:
            engine._rearm_alert()


def dispose_tensor(EngineBase engine, t, site=None):
    """Drops one handle (or a leaked handle's record): counters down, buffer refcount down,
    buffer freed at zero (``Engine.dispose_tensor``)."""
    _dispose(engine, t, site)


def dispose_scope(EngineBase engine, ScopeBase scope, list returned):
    """Disposes every handle ``scope`` tracked except those in ``returned`` (by identity),
    kept ones and disposed ones, each noted as disposed by the scope's end
    (``Engine.end_scope``)."""
    cdef HandleBase h
    cdef Py_ssize_t n = len(returned)
    keep_ids = {id(r) for r in returned} if n > 4 else None
    note = None
    for t in scope.track:
        h = <HandleBase?>t
        if h.kept or h._disposed:
            continue
        if n:
            if keep_ids is not None:
                if id(t) in keep_ids:
                    continue
            elif _is_in(t, returned, n):
                continue
        if note is None:
            note = engine._scope_end_note(scope)
        _dispose(engine, h, note)


cdef inline bint _is_in(t, list items, Py_ssize_t n):
    cdef Py_ssize_t i
    for i in range(n):
        if items[i] is t:
            return True
    return False


cdef object _wrap(EngineBase engine, out, backend, ContextBase ctx):
    """A kernel's output as handles: a fresh record, a ``(data_id, shape, dtype)`` view of an
    existing buffer, or a list of those."""
    if type(out) is tuple:
        return _make(engine, out[0], out[1], out[2], ctx, None)
    if type(out) is not list:
        return _make(engine, out, out.shape, out.dtype, ctx, None)
    return [
        _make(engine, o[0], o[1], o[2], ctx, None)
        if type(o) is tuple
        else _make(engine, o, o.shape, o.dtype, ctx, None)
        for o in out
    ]


def dispatch(EngineBase engine, kernel_name, inputs, attrs):
    """The one route of every kernel call (``Engine._dispatch``, which documents it): the
    active backend's kernel runs (rerun or wrapped in a ``KernelError`` when it fails), its
    output records become handles, and while something watches kernels (``_slow``) a
    ``KernelWatch`` runs the kernel and then hands the call to the watchers."""
    kernel = engine._kernels.get(kernel_name)
    if kernel is None:
        kernel = engine._missing_kernel(kernel_name)
    backend = engine._backend
    watch = None
    if engine._slow:
        kernel = watch = _watch_cls(engine, kernel_name, kernel)
    try:
        out = kernel(inputs, attrs)
    except _tidy_error:
        raise
    except Exception as exc:
        out = engine._kernel_retry(kernel_name, kernel, inputs, attrs, exc)
    result = _wrap(engine, out, backend, _context())
    if watch is not None:
        watch.finish(inputs, result, attrs)
    return result


def run_kernel(EngineBase engine, kernel_name, tuple inputs, attrs=None):
    """Runs one kernel on the active backend; returns a Tensor or a list of them
    (``Engine.run_kernel``): inputs are checked live on the active backend first."""
    return _run_kernel(engine, kernel_name, inputs, attrs)


cdef object _run_kernel(EngineBase engine, kernel_name, tuple inputs, attrs):
    backend = engine._backend
    cdef HandleBase h
    for t in inputs:
        if isinstance(t, HandleBase):
            h = <HandleBase>t
            if not h._disposed and h.data_id.backend is backend:
                continue
        elif not t._disposed and t.data_id.backend is backend:
            continue
        engine._check_input(t, kernel_name, backend)
    return engine._dispatch(kernel_name, inputs, attrs)


# ``SameShapeKernel``'s C arithmetic on float32 scalars, by the operator it is given.
cdef enum:
    _OP_NONE = 0
    _OP_ADD = 1
    _OP_SUB = 2
    _OP_MUL = 3
    _OP_DIV = 4

_OPERATORS = {"+": _OP_ADD, "-": _OP_SUB, "*": _OP_MUL, "/": _OP_DIV}


@cython.final
@cython.auto_pickle(False)
cdef class SameShapeKernel:
    """A two-input kernel on two buffer records holding arrays of their tensors' own shape
    and dtype (``XpKernel.bind_same_shape``): ``kernel(ra, rb)`` returns the output's new
    record, or None if the kernel raised (the caller then takes the general path, which
    reports or retries).

    ``float_operator`` ("+", "-", "*", "/" or None): the Python operator the kernel function
    is on float32 inputs. Two NumPy float32 scalars (what 0-d float32 tensors hold) then get
    that operator in C on their C floats: IEEE single precision, as NumPy's own scalar math,
    so bit for bit the same value, with no floating-point warning (the kernel modules filter
    those). Anything else runs the kernel function."""

    cdef object fn
    cdef object xp
    cdef object backend
    cdef object record_cls
    cdef dict storage_dtype
    cdef dict scalar_types
    cdef object write_one
    cdef int c_op
    cdef object f32_type  # NumPy's float32 scalar type, when its C layout was checked

    def __init__(self, fn, xp, backend, record_cls, dict storage_dtype, dict scalar_types,
                 write_one, float_operator=None):
        if not issubclass(record_cls, RecordBase):
            raise TypeError(f"SameShapeKernel: record_cls must be a RecordBase class, "
                            f"got {record_cls!r}")
        if float_operator is not None and float_operator not in _OPERATORS:
            raise ValueError(f"SameShapeKernel: float_operator must be one of "
                             f"{sorted(_OPERATORS)} or None, got {float_operator!r}")
        self.fn = fn
        self.xp = xp
        self.backend = backend
        self.record_cls = record_cls
        self.storage_dtype = storage_dtype
        self.scalar_types = scalar_types
        self.write_one = write_one
        self.c_op = _OP_NONE if float_operator is None else _OPERATORS[float_operator]
        self.f32_type = _checked_f32_type(scalar_types) if self.c_op != _OP_NONE else None
        if self.f32_type is None:
            self.c_op = _OP_NONE

    @property
    def c_arithmetic(self):
        """Whether float32 scalars get the C arithmetic (see the class)."""
        return self.c_op != _OP_NONE

    def __call__(self, ra, rb):
        return self.run(<RecordBase?>ra, <RecordBase?>rb)

    cdef object run(self, RecordBase ra, RecordBase rb):
        cdef float x, y, r
        va, vb = ra.values, rb.values
        if (
            self.c_op != _OP_NONE
            and type(va) is self.f32_type
            and type(vb) is self.f32_type
            and ra.dtype is _float32
            and rb.dtype is _float32
        ):
            x, y = tt_f32_value(va), tt_f32_value(vb)
            if self.c_op == _OP_ADD:
                r = x + y
            elif self.c_op == _OP_SUB:
                r = x - y
            elif self.c_op == _OP_MUL:
                r = x * y
            else:
                r = x / y
            rec = _new_record(self.record_cls, tt_new_f32(self.f32_type, r), self.backend,
                              4, _float32, ())
            _count_buffer(self.backend)
            return rec
        try:
            out = self.fn(va, vb, xp=self.xp)
        except Exception:
            return None
        # A NumPy scalar (what 0-d arithmetic gives): its dtype and size by its type.
        scalar = self.scalar_types.get(type(out))
        backend = self.backend
        if scalar is not None:
            rec = _new_record(self.record_cls, out, backend, (<tuple>scalar)[1],
                              (<tuple>scalar)[0], ())
        else:
            try:
                dtype = self.storage_dtype.get(out.dtype)
            except Exception:
                return None
            if dtype is None or dtype is _string:
                return self.write_one(out)
            rec = _new_record(self.record_cls, out, backend, out.nbytes, dtype, out.shape)
        _count_buffer(backend)
        return rec


cdef inline int _count_buffer(backend) except -1:
    if isinstance(backend, BackendBase):
        (<BackendBase>backend)._num_ids += 1
    else:
        backend._num_ids += 1
    return 0


cdef object _checked_f32_type(dict scalar_types):
    """NumPy's float32 scalar type from ``scalar_types`` (type -> (dtype, itemsize)) if its
    instances have the C layout ``tt_f32_value`` and ``tt_new_f32`` assume, else None."""
    cdef float probe = 1.5
    for cls, spec in scalar_types.items():
        if spec != (_float32, 4):
            continue
        try:
            if cls.__basicsize__ != tt_f32_size() or not isinstance(cls(probe), cls):
                return None
            if tt_f32_value(cls(probe)) != probe:
                return None
            made = tt_new_f32(cls, -2.25)
            if type(made) is not cls or float(made) != -2.25 or made != cls(-2.25):
                return None
        except Exception:
            return None
        return cls
    return None


@cython.final
@cython.auto_pickle(False)
cdef class FastOp:
    """A public op whose calls with two live float32 tensors of one shape on the active
    backend go straight to one binary kernel (``Engine.make_op``'s ``fast_kernel``); any
    other call runs ``op_wrapper`` (the op's own checks). Unwatched, such a call is the
    kernel's math and one new handle; watched (a tape, a profile...), it takes
    ``Engine._dispatch``. The op's creation site is its caller's line.

    Called through vectorcall (PEP 590, ``_fast_op_vectorcall``): the arguments arrive as a
    C array, with no tuple or dict made for them; a call with other arguments passes them on
    to ``op_wrapper`` the same way."""

    cdef vectorcallfunc vectorcall
    cdef EngineBase engine
    cdef object kernel_name
    cdef object op_wrapper
    # The engine's same-shape kernel table last seen and this op's kernel in it: one
    # identity check per call while the table stands (the engine replaces it, never edits it).
    cdef dict _fast_table
    cdef object _fast
    cdef dict __dict__  # functools.wraps' fields
    cdef object __weakref__

    def __cinit__(self, *args, **kwargs):
        self.vectorcall = <vectorcallfunc>_fast_op_vectorcall

    def __init__(self, EngineBase engine, kernel_name, op_wrapper):
        self.engine = engine
        self.kernel_name = kernel_name
        self.op_wrapper = op_wrapper

    def __reduce__(self):
        # Pickled by name, as a function is: ``module.qualname`` (functools.wraps sets both).
        return self.__qualname__

    def __call__(self, *args, **kwargs):
        # Callers that do not use vectorcall (``tp_call``): the same function.
        return PyVectorcall_Call(self, args, kwargs)


cdef object _fast_op_vectorcall(object callable, PyObject **args, size_t nargsf,
                                PyObject *kwnames):
    """``FastOp``'s call: ``args[0:nargs]`` are the positional arguments, ``kwnames`` the
    keyword names (whose values follow them), as PEP 590 passes them."""
    cdef FastOp self = <FastOp>callable
    cdef EngineBase engine = self.engine
    cdef HandleBase a, b
    cdef RecordBase ra, rb
    cdef bint ok = False
    cdef Py_ssize_t nargs = PyVectorcall_NARGS(nargsf)
    backend = engine._backend
    if nargs == 2 and kwnames == NULL:
        x, y = <object>args[0], <object>args[1]
        if type(x) is _tensor_cls and type(y) is _tensor_cls:
            a, b = <HandleBase>x, <HandleBase>y
            if (
                a.dtype is _float32
                and b.dtype is _float32
                and not a._disposed
                and not b._disposed
                and isinstance(a.data_id, RecordBase)
                and isinstance(b.data_id, RecordBase)
            ):
                ra, rb = <RecordBase>a.data_id, <RecordBase>b.data_id
                ok = (
                    ra.backend is backend
                    and rb.backend is backend
                    and (a._shape is b._shape or a._shape == b._shape)
                )
            else:
                ok = (
                    a.dtype is _float32
                    and b.dtype is _float32
                    and not a._disposed
                    and not b._disposed
                    and a.data_id.backend is backend
                    and b.data_id.backend is backend
                    and (a._shape is b._shape or a._shape == b._shape)
                )
    cdef ContextBase ctx = _context()
    site = ctx.site
    if site is None and engine.track_sites:
        site = _caller_site()
    if ok:
        if not engine._slow or engine._tape_only:
            # Both buffers hold float32 arrays of the tensors' shape: the kernel's math
            # and one new handle, nothing else (and, while a tape records, its node).
            table = engine._same_shape_kernels
            if table is self._fast_table:
                fast = self._fast
            else:
                fast = table.get(self.kernel_name) if table is not None else None
                self._fast_table, self._fast = table, fast
            if (
                fast is not None
                and isinstance(a.data_id, RecordBase)
                and isinstance(b.data_id, RecordBase)
            ):
                ra, rb = <RecordBase>a.data_id, <RecordBase>b.data_id
                if (
                    ra.shape is a._shape
                    and rb.shape is b._shape
                    and ra.dtype is _float32
                    and rb.dtype is _float32
                ):
                    if type(fast) is SameShapeKernel:
                        out = (<SameShapeKernel>fast).run(ra, rb)
                    else:  # a backend's own shortcut
                        out = fast(ra, rb)
                    if isinstance(out, RecordBase):
                        res = _make(engine, out, (<RecordBase>out).shape,
                                    (<RecordBase>out).dtype, ctx, site)
                    elif out is not None:
                        res = _make(engine, out, out.shape, out.dtype, ctx, site)
                    else:
                        res = None
                    if res is not None:
                        if engine._slow:
                            _tape_fast_call(engine, ctx, self.kernel_name, x, y, res, site)
                        return res
        if ctx.site is not None or site is None:
            return engine._dispatch(self.kernel_name, (x, y), None)
    elif ctx.site is not None or site is None:
        return PyObject_Vectorcall(self.op_wrapper, args, nargsf, kwnames)
    # Pin the caller's site for the call (the op's inner ops would find library frames).
    ctx.site = site
    try:
        if ok:
            return engine._dispatch(self.kernel_name, (x, y), None)
        return PyObject_Vectorcall(self.op_wrapper, args, nargsf, kwnames)
    finally:
        ctx.site = None


# FastOp's instances are called through the function at their ``vectorcall`` field.
cdef Py_ssize_t _vectorcall_offset():
    cdef FastOp probe = FastOp.__new__(FastOp)
    return <Py_ssize_t>(<char *>&probe.vectorcall - <char *><PyObject *>probe)


tt_enable_vectorcall(FastOp, _vectorcall_offset())


def fast_op(engine, kernel_name, op_wrapper):
    """The public op of ``Engine.make_op`` with a ``fast_kernel`` (see ``FastOp``)."""
    return FastOp(engine, kernel_name, op_wrapper)


include "_tape_core.pxi"
include "_replay_core.pxi"
