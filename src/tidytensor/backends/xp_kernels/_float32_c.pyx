# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled float32 elementwise loops for the hottest NumPy kernels (issues 15 and 16: Adam's
update, the LSTM sequence kernels' time steps): one pass over
the elements doing exactly the float32 operations, in the same order, as the NumPy reference
in the kernel's module (each operation rounded to float32, as each NumPy float32 ufunc call
rounds its result), so the results are bit-identical to it. The one exception is a NaN's
sign and payload: which of two NaN operands an operation passes on is the compiler's and the
CPU's choice (C compilers swap a commutative operation's operands, as NumPy's own loops may),
so a NaN result is a NaN, not always the same one (TF.js cannot tell NaNs apart). The LSTM
steps' clip keeps -0.0, as NumPy's scalar clip loop does; its SIMD loop, on some CPUs, gives
+0.0 there (the products that read it then differ at most in a zero's sign).

Built by ``setup.py`` beside the per-op core with ``-ffp-contract=off`` (no fused
multiply-add ever replaces a multiplication and an addition, each rounded). x86-64 and
arm64 compute float32 arithmetic in float32 registers (no excess precision), as NumPy's
loops do. ``float32_loops.py`` loads this module (or not: the NumPy reference runs where it
is missing or ``TIDYTENSOR_PURE_PYTHON=1`` is set).

A loop reads its arrays through the buffer protocol and takes only C-contiguous, native
float32 buffers; given anything else it writes nothing and returns False, and the kernel
runs its NumPy reference instead.
"""

from cpython.buffer cimport (
    PyBUF_C_CONTIGUOUS,
    PyBUF_FORMAT,
    PyBUF_WRITABLE,
    PyBuffer_Release,
    PyObject_GetBuffer,
)
from libc.stdlib cimport free, malloc


cdef bint _acquire(object array, Py_buffer *view, bint writable):
    """``array``'s buffer as C-contiguous native float32 (format ``'f'``) in ``view``, or
    False (nothing held) where it is not one."""
    cdef int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT
    if writable:
        flags |= PyBUF_WRITABLE
    try:
        PyObject_GetBuffer(array, view, flags)
    except (BufferError, TypeError, ValueError):
        return False
    if view.itemsize != 4 or view.format == NULL or view.format[0] != b"f" or view.format[1] != 0:
        PyBuffer_Release(view)
        return False
    return True


# The loops themselves, in C: ``restrict`` (an output shares no memory with any other array;
# ``adam`` checks it) lets the compiler vectorize them. Where GCC or Clang build for x86-64
# Linux, each loop is also compiled for AVX2 and picked at load time (target_clones): the
# same IEEE float32 operations, eight elements at a time (AVX2 enables no FMA here:
# -ffp-contract=off, and the loop has no multiply-add to contract anyway).
cdef extern from *:
    """
    #include <math.h>
    #if defined(__x86_64__) && defined(__linux__) && (defined(__clang__) || defined(__GNUC__)) \\
        && !defined(TT_NO_TARGET_CLONES)
    #define TT_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define TT_CLONES
    #endif

    /* Adam on n elements: optimizers._gradient_terms then optimizers._adam_rest, operation
       by operation (each line one NumPy call there, its operands in its order). */
    TT_CLONES static void tt_adam(
        const float *restrict g, const float *restrict w, const float *restrict m,
        const float *restrict v, float *restrict new_m, float *restrict new_v,
        float *restrict new_w, Py_ssize_t n, const float *restrict c)
    {
        const float one_minus_acc_beta1 = c[0], one_minus_acc_beta2 = c[1];
        const float one_minus_beta1 = c[2], one_minus_beta2 = c[3];
        const float beta1 = c[4], beta2 = c[5], epsilon = c[6], neg_lr = c[7];
        for (Py_ssize_t i = 0; i < n; i++) {
            float g_scaled = g[i] * one_minus_beta1;
            float g_squared = g[i] * g[i];
            float nm = m[i] * beta1;
            nm = nm + g_scaled;
            float nv = v[i] * beta2;
            float s = g_squared * one_minus_beta2;
            nv = nv + s;
            float nw = nm / one_minus_acc_beta1;
            s = nv / one_minus_acc_beta2;
            s = sqrtf(s);
            s = s + epsilon;
            nw = nw / s;
            nw = nw * neg_lr;
            nw = nw + w[i];
            new_m[i] = nm;
            new_v[i] = nv;
            new_w[i] = nw;
        }
    }
    """
    void tt_adam(
        const float *g, const float *w, const float *m, const float *v, float *new_m,
        float *new_v, float *new_w, Py_ssize_t n, const float *c,
    ) noexcept nogil


cdef bint _overlap(Py_buffer *a, Py_buffer *b):
    """Whether two buffers share a byte."""
    cdef char *pa = <char *>a.buf
    cdef char *pb = <char *>b.buf
    return a.len > 0 and b.len > 0 and pa < pb + b.len and pb < pa + a.len


def adam(
    gradients, value, m, v, new_m, new_v, new_value,
    float one_minus_acc_beta1, float one_minus_acc_beta2, float one_minus_beta1,
    float one_minus_beta2, float beta1, float beta2, float epsilon, float neg_lr,
):
    """Adam's update of the variables whose values, first and second moments are laid end to
    end in ``value``, ``m`` and ``v`` (the gradients, a sequence, in that order), into
    ``new_m``, ``new_v``, ``new_value`` (arrays none of the inputs share); the constants are
    ``optimizers._constants``'. Returns False, having written nothing, where an array is not
    a C-contiguous native float32 buffer (or an output is read-only)."""
    cdef Py_ssize_t count = len(gradients), held = 0, i, start = 0, n
    cdef Py_buffer flat[6]
    cdef float c[8]
    cdef Py_buffer *grads = <Py_buffer *>malloc(max(count, 1) * sizeof(Py_buffer))
    cdef int acquired = 0
    cdef bint ok = True
    if grads == NULL:
        raise MemoryError()
    arrays = (value, m, v, new_m, new_v, new_value)
    try:
        for i in range(6):
            if not _acquire(arrays[i], &flat[i], i >= 3):
                ok = False
                break
            acquired += 1
        if ok:
            for i in range(count):
                if not _acquire(gradients[i], &grads[i], False):
                    ok = False
                    break
                held += 1
        if not ok:
            return False
        n = flat[0].len
        for i in range(1, 6):
            if flat[i].len != n:
                raise ValueError(
                    f"adam_update: the flat arrays hold {[flat[j].len // 4 for j in range(6)]} "
                    "elements; expected the same number in each"
                )
        for i in range(count):
            start += grads[i].len
        if start != n:
            raise ValueError(
                f"adam_update: the gradients hold {start // 4} elements, the flat variables "
                f"{n // 4}; expected the same number"
            )
        # An output sharing memory with another array would change what the NumPy
        # reference reads; that case is left to it.
        for i in range(3, 6):
            for j in range(6):
                if j != i and _overlap(&flat[i], &flat[j]):
                    return False
            for j in range(count):
                if _overlap(&flat[i], &grads[j]):
                    return False
        c[0], c[1], c[2], c[3] = one_minus_acc_beta1, one_minus_acc_beta2, one_minus_beta1, one_minus_beta2
        c[4], c[5], c[6], c[7] = beta1, beta2, epsilon, neg_lr
        start = 0
        for i in range(count):
            n = grads[i].len // 4
            tt_adam(
                <const float *>grads[i].buf,
                <const float *>flat[0].buf + start,
                <const float *>flat[1].buf + start,
                <const float *>flat[2].buf + start,
                <float *>flat[3].buf + start,
                <float *>flat[4].buf + start,
                <float *>flat[5].buf + start,
                n,
                c,
            )
            start += n
        return True
    finally:
        for i in range(held):
            PyBuffer_Release(&grads[i])
        for i in range(acquired):
            PyBuffer_Release(&flat[i])
        free(grads)


# ------------------------------------------------------------------------ LSTM time steps
# The LSTM sequence kernels' per-step elementwise work (``recurrent.lstm_sequence`` and
# ``lstm_sequence_grad`` with hard-sigmoid gates and no mask), one pass per step where the
# NumPy reference makes four or seven ufunc calls: the same float32 operations on each
# element, each rounded, in the reference's order. ``[G, B]`` step arrays hold the gates as
# blocks of ``n = U * B`` elements: i, f, o (hard sigmoids, folded: clipped only), g.
cdef extern from *:
    """
    /* NumPy's clip(x, 0, 1) of a float32: NaN passes through, -0.0 stays -0.0. */
    static inline float tt_clip01(float x)
    {
        return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x);
    }

    /* A forward step: a[0:3n] = clip(z[0:3n]) (i, f, o); ct = f * c_prev + i * g, with
       g = a[3n:4n] (the candidate, already activated). */
    TT_CLONES static void tt_lstm_gates(
        const float *restrict z, float *restrict a, const float *restrict g,
        const float *restrict c_prev, float *restrict ct, Py_ssize_t n)
    {
        for (Py_ssize_t i = 0; i < 3 * n; i++) {
            a[i] = tt_clip01(z[i]);
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            float kept = a[n + i] * c_prev[i];
            float added = a[i] * g[i];
            ct[i] = kept + added;
        }
    }

    /* A backward step: dh += ds (when ds); dz's o rows = dh * tco; cur = r * dh + dc;
       dz's i, f rows = if_[0:n] * cur, if_[n:2n] * cur; dz's g rows = (cur * a_i) * dg;
       dc = cur * a_f. */
    TT_CLONES static void tt_lstm_grad_step(
        float *restrict dh, const float *restrict ds, const float *restrict tco,
        const float *restrict r, const float *restrict if_, const float *restrict a,
        const float *restrict dg, float *restrict dc, float *restrict dz, Py_ssize_t n)
    {
        for (Py_ssize_t i = 0; i < n; i++) {
            float h = dh[i];
            if (ds != NULL) {
                h = h + ds[i];
                dh[i] = h;
            }
            dz[2 * n + i] = h * tco[i];
            float cur = r[i] * h;
            cur = cur + dc[i];
            dz[i] = if_[i] * cur;
            dz[n + i] = if_[n + i] * cur;
            float dg_in = cur * a[i];
            dc[i] = cur * a[n + i];
            dz[3 * n + i] = dg_in * dg[i];
        }
    }
    """
    float tt_clip01(float x) noexcept nogil
    void tt_lstm_gates(
        const float *z, float *a, const float *g, const float *c_prev, float *ct, Py_ssize_t n,
    ) noexcept nogil
    void tt_lstm_grad_step(
        float *dh, const float *ds, const float *tco, const float *r, const float *if_,
        const float *a, const float *dg, float *dc, float *dz, Py_ssize_t n,
    ) noexcept nogil


cdef class _Held:
    """Buffers held for the life of the object (released when it goes)."""

    cdef Py_buffer views[10]
    cdef int count

    def __dealloc__(self):
        for i in range(self.count):
            PyBuffer_Release(&self.views[i])

    cdef bint hold(self, object array, bint writable):
        if self.count >= 10 or not _acquire(array, &self.views[self.count], writable):
            return False
        self.count += 1
        return True

    cdef bint disjoint(self, int first, int end):
        """Whether the outputs (``first`` to ``end``, excluded) share no byte with any other
        buffer held."""
        for i in range(first, end):
            for j in range(self.count):
                if j != i and _overlap(&self.views[i], &self.views[j]):
                    return False
        return True


cdef class LstmForwardSteps:
    """The forward steps of one ``lstm_sequence`` call over its ``[T, G, B]`` pre-activations
    ``Z``, gate activations ``A`` and ``[T, U, B]`` cells ``C``, from ``c0`` (``[U, B]``);
    made by :func:`lstm_forward_steps`."""

    cdef _Held held
    cdef Py_ssize_t steps, n

    def gates(self, Py_ssize_t t):
        """Step ``t``: ``A[t]``'s i, f, o rows ``clip(Z[t], 0, 1)``; ``C[t] = f * C[t - 1] +
        i * g`` (``C[-1]`` is ``c0``; ``g``, ``A[t]``'s last rows, already activated)."""
        if not 0 <= t < self.steps:
            raise IndexError(f"step {t} of {self.steps}")
        cdef Py_ssize_t n = self.n
        cdef float *z = <float *>self.held.views[0].buf + t * 4 * n
        cdef float *a = <float *>self.held.views[2].buf + t * 4 * n
        cdef float *c = <float *>self.held.views[3].buf
        cdef float *c_prev = c + (t - 1) * n if t else <float *>self.held.views[1].buf
        tt_lstm_gates(z, a, a + 3 * n, c_prev, c + t * n, n)


def lstm_forward_steps(z, c0, a, c):
    """A :class:`LstmForwardSteps` over these arrays, or None (the NumPy reference runs)
    where one is not a C-contiguous native float32 buffer, ``a`` or ``c`` is read-only or
    shares memory with another, or the sizes do not fit ``z [T, 4n]``, ``c0 [n]``, ``a
    [T, 4n]``, ``c [T, n]`` with ``n > 0`` (``recurrent.lstm_sequence``'s ``Z``, ``c0``,
    ``A``, ``C``)."""
    cdef _Held held = _Held()
    for i, array in enumerate((z, c0, a, c)):
        if not held.hold(array, i >= 2):
            return None
    cdef Py_ssize_t n = held.views[1].len // 4
    if n == 0 or held.views[3].len % (n * 4) or not held.disjoint(2, 4):
        return None
    cdef Py_ssize_t steps = held.views[3].len // (n * 4)
    if held.views[0].len != steps * 16 * n or held.views[2].len != steps * 16 * n:
        return None
    cdef LstmForwardSteps out = LstmForwardSteps.__new__(LstmForwardSteps)
    out.held, out.steps, out.n = held, steps, n
    return out


cdef class LstmBackwardSteps:
    """The backward steps of one ``lstm_sequence_grad`` call (no mask, hard-sigmoid gates):
    made by :func:`lstm_backward_steps`."""

    cdef _Held held
    cdef Py_ssize_t steps, n
    cdef bint has_ds

    def step(self, Py_ssize_t t, dh):
        """Step ``t``: ``dh += dS[t]`` (with a sequence gradient); ``dZ[t]``'s gate gradients;
        ``dc`` becomes the cell gradient before the step. Returns False, having written
        nothing, where ``dh`` is not a writable C-contiguous float32 ``[n]`` buffer apart
        from the others."""
        if not 0 <= t < self.steps:
            raise IndexError(f"step {t} of {self.steps}")
        cdef Py_buffer view
        if not _acquire(dh, &view, True):
            return False
        cdef Py_ssize_t n = self.n, i
        cdef _Held held = self.held
        try:
            if view.len != n * 4:
                return False
            for i in range(held.count):
                if _overlap(&view, &held.views[i]):
                    return False
            tt_lstm_grad_step(
                <float *>view.buf,
                <float *>held.views[7].buf + t * n if self.has_ds else NULL,
                <float *>held.views[0].buf + t * n,
                <float *>held.views[1].buf + t * n,
                <float *>held.views[2].buf + t * 2 * n,
                <float *>held.views[3].buf + t * 4 * n,
                <float *>held.views[4].buf + t * n,
                <float *>held.views[5].buf,
                <float *>held.views[6].buf + t * 4 * n,
                n,
            )
            return True
        finally:
            PyBuffer_Release(&view)


def lstm_backward_steps(tco, r, i_f, a, dg, dc, dz, ds=None):
    """A :class:`LstmBackwardSteps` over the backward pass's per-step factors ``tco``, ``r``,
    ``dg`` (``[T, n]``), ``i_f`` (``[T, 2n]``), the gate activations ``a`` (``[T, 4n]``),
    the running cell gradient ``dc`` (``[n]``, written), the gates' gradients ``dz`` (``[T,
    4n]``, written) and the sequence gradient ``ds`` (``[T, n]``, or None); None where
    :func:`lstm_forward_steps` would refuse the like. (``recurrent.lstm_sequence_grad``'s
    ``TCO``, ``R``, ``IF``, ``A``, ``DG``, ``dc``, ``dZ``, ``dS``.)"""
    cdef _Held held = _Held()
    arrays = (tco, r, i_f, a, dg, dc, dz) if ds is None else (tco, r, i_f, a, dg, dc, dz, ds)
    for i, array in enumerate(arrays):
        if not held.hold(array, i in (5, 6)):
            return None
    cdef Py_ssize_t n = held.views[5].len // 4
    if n == 0 or held.views[0].len % (n * 4) or not held.disjoint(5, 7):
        return None
    cdef Py_ssize_t steps = held.views[0].len // (n * 4)
    for i, per_step in enumerate((1, 1, 2, 4, 1, 0, 4, 1)[: held.count]):
        if per_step and held.views[i].len != steps * per_step * n * 4:
            return None
    cdef LstmBackwardSteps out = LstmBackwardSteps.__new__(LstmBackwardSteps)
    out.held, out.steps, out.n, out.has_ds = held, steps, n, ds is not None
    return out
