# The compiled gradient tape (issue 16), included by ``_handles_c.pyx``: recording a kernel
# call (``record``, ``save_tensors``), the filter (``filter_tape``), the reverse walk
# (``backprop``) and the end of a tape (``free_saved``). ``engine/tape.py`` and
# ``engine/recording.py`` hold the readable reference of each, by the same names, and run
# where the pure-Python engine does; where this core runs, they hand their names to these
# (``bind_tape``). ``FastOp`` records its taped calls here without a ``KernelWatch``.


@cython.auto_pickle(False)
cdef class TapeNodeBase:
    """The fields of one recorded kernel call (``tape.TapeNode``): ``gradient(dy, saved,
    attrs)`` gives one thunk per input (None: no gradient function); ``live`` says which
    inputs depend on some x (set by ``filter_tape``)."""

    cdef public object id
    cdef public object kernel_name
    cdef public object inputs
    cdef public object outputs
    cdef public object saved
    cdef public object gradient
    cdef public object attrs
    cdef public object live


cdef object _node_cls = None
cdef object _node_ids = None
cdef object _registry = None
cdef object _stock_get_gradient = None
cdef dict _gradient_table = None
cdef object _identity_grad = None
cdef object _save_profiled = None
cdef object _gradient_error = None
cdef object _check_gradient_py = None
cdef object _input_name = None
cdef object _interruption_point = None
cdef object _held = None
cdef object _scope_cls = None
cdef object _tape_engine = None
cdef object _UNNAMED_SCOPE = "unnamed scope"
cdef object _IDENTITY = "Identity"


def bind_tape(*, engine, node_cls, node_ids, registry, identity_grad, save_profiled,
              gradient_error, check_gradient, input_name, interruption_point, held,
              scope_cls):
    """Hands in what the tape needs from the layers above (called once by
    ``engine/recording.py``): the engine, the ``TapeNode`` class and its id counter, the
    gradient registry (``registry.get_gradient``, looked up per call as the reference does:
    tools wrap it; while it is not wrapped, its ``gradient_table()`` is read directly), a saved clone's gradient, ``save_tensors``' profiled route
    (clones through the Identity kernel), ``GradientError``, the checks and names of the
    reference (error paths), ``interruption_point`` and what it reads (``held.pending``:
    the signals held; it does nothing while that is empty) and the ``Scope`` class."""
    global _node_cls, _node_ids, _registry, _identity_grad, _save_profiled
    global _stock_get_gradient, _gradient_table
    global _gradient_error, _check_gradient_py, _input_name, _interruption_point, _scope_cls
    global _tape_engine, _held
    if not issubclass(node_cls, TapeNodeBase):
        raise TypeError(f"bind_tape: node_cls must be a TapeNodeBase class, got {node_cls!r}")
    if not issubclass(scope_cls, ScopeBase):
        raise TypeError(f"bind_tape: scope_cls must be a ScopeBase class, got {scope_cls!r}")
    _tape_engine = <EngineBase?>engine
    _node_cls = node_cls
    _node_ids = node_ids
    _registry = registry
    _stock_get_gradient = registry.get_gradient
    _gradient_table = registry.gradient_table()
    _identity_grad = identity_grad
    _save_profiled = save_profiled
    _gradient_error = gradient_error
    _check_gradient_py = check_gradient
    _input_name = input_name
    _interruption_point = interruption_point
    _held = held
    _scope_cls = scope_cls


cdef inline object _tid(t):
    """``t.id``, read from the C field of the core's handles."""
    if isinstance(t, HandleBase):
        return (<HandleBase>t).id
    return t.id


cdef inline object _tshape(t):
    """``t._shape``, read from the C field of the core's handles."""
    if isinstance(t, HandleBase):
        return (<HandleBase>t)._shape
    return t._shape


cdef inline TapeNodeBase _new_node(kernel_name, inputs, outputs, saved, gradient, attrs):
    cdef TapeNodeBase node = <TapeNodeBase>tt_new_instance(_node_cls, _empty)
    node.id = next(_node_ids)
    node.kernel_name = kernel_name
    node.inputs = inputs
    node.outputs = outputs
    node.saved = saved
    node.gradient = gradient
    node.attrs = attrs
    node.live = ()
    return node


cdef list _save(EngineBase engine, ContextBase ctx, tensors, site):
    """``save_tensors`` for the calling thread's context ``ctx``; ``site``: the clones'
    creation site (None: the pinned one, else the caller's line)."""
    cdef HandleBase clone
    cdef list saved = []
    if engine.state.profiling:  # TF.js clones through the Identity kernel: profiles list it
        return _save_profiled(tensors)
    tape = ctx.tape if ctx.gradient_depth > 1 else None
    cdef HandleBase h
    for t in tensors:
        if isinstance(t, HandleBase):
            h = <HandleBase>t
            data_id = h.data_id
            backend = (
                (<RecordBase>data_id).backend if isinstance(data_id, RecordBase)
                else data_id.backend
            )
            if (
                isinstance(data_id, RecordBase)
                and isinstance(backend, BackendBase)
                and (<BackendBase>backend).stock_share
            ):  # ``backend.share(t, t._shape)`` inline
                (<RecordBase>data_id).refs += 1
                clone = <HandleBase>_make(engine, data_id, h._shape, h.dtype, ctx, site)
            else:
                info = backend.share(t, h._shape)
                clone = <HandleBase>_make(engine, info[0], info[1], info[2], ctx, site)
        else:
            backend = t.data_id.backend
            info = backend.share(t, t._shape)
            clone = <HandleBase>_make(engine, info[0], info[1], info[2], ctx, site)
        clone.kept = True
        saved.append(clone)
        if tape is not None:
            tape.append(_new_node(_IDENTITY, (t,), [clone], [], _identity_grad, None))
    return saved


def save_tensors(tensors):
    """Kept clones of tensors a gradient needs (``recording.save_tensors``)."""
    return _save(_tape_engine, _context(), tensors, None)


cdef int _record(EngineBase engine, ContextBase ctx, list tape, kernel_name, inputs,
                 list outputs, attrs, site) except -1:
    if _registry.get_gradient is _stock_get_gradient:  # not wrapped: its table, read here
        config = _gradient_table.get(kernel_name)
    else:
        config = _registry.get_gradient(kernel_name)
    if config is None:
        tape.append(_new_node(kernel_name, inputs, outputs, [], None, attrs))
        return 0
    if config.save_all_inputs:
        to_save = list(inputs)
    else:
        to_save = [inputs[i] for i in config.inputs_to_save]
    keep_outputs = config.outputs_to_save
    if keep_outputs:
        to_save += [o for o, keep in zip(outputs, keep_outputs) if keep]
    saved = _save(engine, ctx, to_save, site) if to_save else []
    tape.append(_new_node(kernel_name, inputs, outputs, saved, config.grad_func, attrs))
    return 0


def record(kernel_name, inputs, list outputs, attrs):
    """Engine hook: adds one kernel call to the calling thread's tape
    (``recording.record``)."""
    cdef ContextBase ctx = _context()
    tape = ctx.tape
    if tape is None:
        return
    _record(_tape_engine, ctx, <list?>tape, kernel_name, inputs, outputs, attrs, None)


cdef inline int _tape_fast_call(EngineBase engine, ContextBase ctx, kernel_name, x, y, out,
                                site) except -1:
    """What a ``KernelWatch`` would do after a ``FastOp`` call while only a tape watches
    kernels (``EngineBase._tape_only``): record it on the calling thread's tape."""
    if ctx.gradient_depth > 0 and ctx.kernel_depth == 0 and ctx.tape is not None:
        _record(engine, ctx, <list?>ctx.tape, kernel_name, (x, y), [out], None, site)
    return 0


def free_saved(EngineBase engine, list tape, note):
    """Disposes every node's saved tensors not disposed yet (``recording.free_tape``)."""
    cdef TapeNodeBase node
    cdef HandleBase h
    for n in tape:
        node = <TapeNodeBase?>n
        for t in node.saved:
            if isinstance(t, HandleBase):
                h = <HandleBase>t
                if h._disposed:
                    continue
            elif t._disposed:
                continue
            _dispose(engine, t, note)


def filter_tape(list tape, xs, y):
    """The nodes on a path from any of ``xs`` to ``y``, with ``live`` set on each
    (``tape.filter_tape``)."""
    cdef Py_ssize_t n = len(tape), k, i, m
    cdef TapeNodeBase node
    cdef bytearray reach = bytearray(n)  # 1: from some x, 2: to y
    cdef set from_x = {_tid(x) for x in xs}
    cdef set to_y = {_tid(y)}
    cdef bint hit
    for k in range(n):
        node = <TapeNodeBase?>tape[k]
        for t in node.inputs:
            if _tid(t) in from_x:
                reach[k] = 1
                for o in node.outputs:
                    from_x.add(_tid(o))
                break
    for k in range(n - 1, -1, -1):
        node = <TapeNodeBase>tape[k]
        hit = False
        for o in node.outputs:
            if _tid(o) in to_y:
                hit = True
                break
        if hit:
            if reach[k]:
                reach[k] = 3
            for t in node.inputs:
                to_y.add(_tid(t))
    cdef list filtered = []
    for k in range(n):
        if reach[k] == 3:
            node = <TapeNodeBase>tape[k]
            inputs = node.inputs
            m = len(inputs)
            node.live = tuple([_tid(inputs[i]) in from_x for i in range(m)])
            filtered.append(node)
    return filtered


@cython.final
@cython.auto_pickle(False)
cdef class KernelThunk:
    """A gradient thunk that runs one kernel: ``KernelThunk(kernel_name, inputs, attrs)()``
    is ``engine.run_kernel(kernel_name, inputs, attrs)`` (the tape's engine), with no Python
    frame; ``backprop`` runs it in its scope directly."""

    cdef object kernel_name
    cdef tuple inputs
    cdef object attrs

    def __init__(self, kernel_name, tuple inputs, attrs=None):
        self.kernel_name = kernel_name
        self.inputs = inputs
        self.attrs = attrs

    def __call__(self):
        return _run_kernel(<EngineBase>_tape_engine, self.kernel_name, self.inputs, self.attrs)


cdef object _tidy_call(EngineBase engine, fn):
    """``engine.tidy(fn)`` for a gradient thunk: a scope around ``fn`` that disposes what
    it made but its result. Profiles (scope events), functions that are not plain ones
    (the coroutine check) and results other than one tensor take ``engine.tidy``'s own
    route."""
    cdef CoreState state = engine.state
    cdef bint kernel_thunk = type(fn) is KernelThunk
    if state.profiling or not kernel_thunk and (
        type(fn) is not _function_type or (<object>fn).__code__.co_flags & _ASYNC_FLAGS
    ):
        return engine.tidy(fn)
    cdef HandleBase h
    cdef KernelThunk kt
    cdef ContextBase ctx = _context()
    cdef ScopeBase scope = <ScopeBase>tt_new_instance(_scope_cls, _empty)
    scope.track = []
    scope.name = _UNNAMED_SCOPE
    scope.id = state.next_scope_id
    scope.parent = ctx.active
    state.next_scope_id += 1
    ctx.stack.append(scope)
    ctx.active = scope
    try:
        if kernel_thunk:
            kt = <KernelThunk>fn
            result = _run_kernel(engine, kt.kernel_name, kt.inputs, kt.attrs)
        else:
            result = fn()
    except BaseException:
        engine.end_scope(None)
        raise
    if (
        type(result) is not _tensor_cls
        or state.profiling
        or ctx.active is not scope
        or not ctx.stack
        or ctx.stack[len(ctx.stack) - 1] is not scope
    ):
        engine._finish_tidy(result)  # tidy's own end: its checks, events and messages
        return result
    cdef HandleBase t = <HandleBase>result
    note = None
    for made in scope.track:  # ``dispose_scope(engine, scope, [result])``
        if made is result:
            continue
        h = <HandleBase?>made
        if h.kept or h._disposed:
            continue
        if note is None:
            note = engine._scope_end_note(scope)
        _dispose(engine, h, note)
    ctx.stack.pop()
    parent = scope.parent
    ctx.active = parent
    if not t.kept and t.scope_id == scope.id:
        if parent is not None:
            (<ScopeBase>parent).track.append(t)
            t.scope_id = (<ScopeBase>parent).id
        else:
            t.scope_id = None
    return result


# A Python function (Cython's own lambdas are not), and the code flags of a coroutine
# function or an async generator function (``inspect.CO_COROUTINE`` and the like).
cdef object _function_type = __import__("types").FunctionType
cdef int _ASYNC_FLAGS = 0x80 | 0x100 | 0x200


def backprop(dict grads, list tape, tidy, add, zeros):
    """Walks ``tape`` backwards, accumulating into ``grads`` (tensor id -> gradient)
    (``tape.backprop``)."""
    cdef TapeNodeBase node
    cdef Py_ssize_t k, i, n_in, n_out
    cdef bint fast_tidy = tidy == _tape_engine.tidy
    cdef EngineBase engine = _tape_engine
    for k in range(len(tape) - 1, -1, -1):
        node = <TapeNodeBase?>tape[k]
        if _held.pending:  # a Ctrl-C held by an optimizer step stops it here
            _interruption_point()
        outputs = node.outputs
        n_out = len(outputs)
        if n_out == 1:
            dy = grads.get(_tid(outputs[0]))
            if dy is None:
                continue  # the node's output does not reach y through any recorded gradient
        else:
            dy = [grads.get(o.id) for o in outputs]
            if all(d is None for d in dy):
                continue
        if node.gradient is None:
            raise _gradient_error(
                f"Cannot compute gradient: gradient function not found for {node.kernel_name}."
            )
        if n_out != 1:
            dy = [
                d if d is not None else zeros(list(o._shape), o.dtype)
                for d, o in zip(dy, outputs)
            ]
        thunks = node.gradient(dy, node.saved, node.attrs)
        inputs = node.inputs
        live = node.live
        n_in = len(inputs)
        for i in range(n_in):
            if not live[i]:
                continue
            thunk = thunks[i] if i < len(thunks) else None
            if thunk is None:
                raise _gradient_error(
                    f"Cannot backprop through input {_input_name(node.kernel_name, i)} of "
                    f"'{node.kernel_name}': its gradient function gives none."
                )
            dx = _tidy_call(engine, thunk) if fast_tidy else tidy(thunk)
            x = inputs[i]
            x_shape = _tshape(x)
            if not (
                type(dx) is _tensor_cls
                and (<HandleBase>dx).dtype is _float32
                and ((<HandleBase>dx)._shape is x_shape or (<HandleBase>dx)._shape == x_shape)
            ):
                _check_gradient_py(node.kernel_name, i, x, dx)  # raises unless it is fine
            key = _tid(x)
            current = grads.get(key)
            if current is None:
                grads[key] = dx
            else:
                grads[key] = add(current, dx)
                current.dispose()
                dx.dispose()
