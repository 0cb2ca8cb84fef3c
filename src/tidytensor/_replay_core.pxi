# The quick route of a compiled function's replay (issue 15), included by ``_handles_c.pyx``:
# ``QuickReplay`` runs a replay with one fresh output (a one-row ``predict``) from its bound
# handles to its output handle with no Python frame in between but the kernels'. Its
# readable reference, by the same name, is ``_handles_py.QuickReplay``; ``compiled/replay.py``
# (``Replay``) builds one of the two and documents what each step stands for.


@cython.auto_pickle(False)
cdef class QuickReplay:
    """``quick(leaves, site)``: the output handle of a replay whose one output is a buffer of
    its own (``Replay.fresh``), its scratch arrays allocated (``ScratchSet``) and no budget
    or memory alert armed; None (nothing ran) for any other call, which takes ``Replay``'s
    general route. (Holding no reference to its ``Replay``, it keeps none alive: a dropped
    trace's scratch arrays are freed when it goes.)

    ``leaf_of[i]``/``handles[i]``: where the i-th bound array comes from: the argument
    ``leaves[leaf_of[i]]`` (``leaf_of[i] >= 0``), else the captured handle ``handles[i]``. A
    disposed handle, a buffer gone or one on another backend raises ``refused(stale)``
    (``stale``: a captured handle, which the trace holds) before any kernel runs. ``out``:
    ``(at, shape, dtype, root_dtype)``, the output's place among the arrays ``compute``
    returns, its handle's shape and dtype and its buffer's dtype."""

    cdef EngineBase engine
    cdef BackendBase backend
    cdef tuple leaf_of
    cdef tuple handles
    cdef object refused
    cdef object relabel
    cdef object compute
    cdef object plain_compute
    cdef object scratch
    cdef object acquire
    cdef object release
    cdef Py_ssize_t peak
    cdef Py_ssize_t at
    cdef object shape
    cdef object dtype
    cdef object root_dtype
    cdef object record_cls

    def __init__(self, EngineBase engine, BackendBase backend, tuple leaf_of, tuple handles,
                 refused, relabel, compute, plain_compute, scratch, Py_ssize_t peak,
                 tuple out, record_cls):
        if not issubclass(record_cls, RecordBase):
            raise TypeError(f"QuickReplay: record_cls must be a RecordBase class, got {record_cls!r}")
        if len(leaf_of) != len(handles):
            raise ValueError("QuickReplay: leaf_of and handles must have one item per array")
        self.engine = engine
        self.backend = backend
        self.leaf_of = leaf_of
        self.handles = handles
        self.refused = refused
        self.relabel = relabel
        self.compute = compute
        self.plain_compute = plain_compute
        self.scratch = scratch
        self.acquire = scratch.lock.acquire  # (a ScratchSet's lock is its own for life)
        self.release = scratch.lock.release
        self.peak = peak
        self.at, self.shape, self.dtype, self.root_dtype = out
        self.record_cls = record_cls

    cdef tuple _bind(self, leaves):
        """The bound arrays (``replay.py``'s generated ``bind``, with C field access)."""
        cdef Py_ssize_t i, leaf, n = len(self.leaf_of)
        cdef HandleBase h
        cdef RecordBase rec
        cdef list arrays = []
        for i in range(n):
            leaf = self.leaf_of[i]
            h = <HandleBase?>(leaves[leaf] if leaf >= 0 else self.handles[i])
            rec = <RecordBase?>h.data_id
            if h._disposed or rec.refs <= 0 or rec.backend is not self.backend:
                raise self.refused(leaf < 0)
            s = h._shape
            a = rec.values if rec.shape is s or rec.shape == s else rec.values.reshape(s)
            if rec.dtype is not h.dtype:
                a = self.relabel(a, h.dtype)
            arrays.append(a)
        return tuple(arrays)

    def bind(self, leaves):
        """The bound arrays of a call on ``leaves``, each handle checked (for tests)."""
        return self._bind(leaves)

    def __call__(self, leaves, site=None):
        cdef CoreState state = self.engine.state
        cdef Py_ssize_t peak
        cdef RecordBase rec
        scratch = self.scratch
        if (
            state._check_kind != _CHECK_NEVER
            or scratch.state is not state
            or (<object>state).byte_limit != _INF
        ):
            return None
        arrays = self._bind(leaves)
        if self.acquire(False):  # one replay at a time writes into the scratch arrays
            try:
                made = self.compute(*arrays)
            finally:
                self.release()
            peak = scratch.fresh_peak
        else:
            made = self.plain_compute(*arrays)
            peak = self.peak
        del arrays
        peak += state.buffer_bytes
        if peak > state.peak_bytes:
            state.peak_bytes = peak
        values = made[self.at]
        self.backend._num_ids += 1
        rec = _new_record(
            self.record_cls, values, self.backend, values.nbytes, self.root_dtype, values.shape
        )
        return _make(self.engine, rec, self.shape, self.dtype, _context(), site)
