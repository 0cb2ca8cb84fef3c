# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled float32 elementwise loops for the hottest NumPy kernels (issue 15): one pass over
the elements doing exactly the float32 operations, in the same order, as the NumPy reference
in the kernel's module (each operation rounded to float32, as each NumPy float32 ufunc call
rounds its result), so the results are bit-identical to it. The one exception is a NaN's
sign and payload: which of two NaN operands an operation passes on is the compiler's and the
CPU's choice (C compilers swap a commutative operation's operands, as NumPy's own loops may),
so a NaN result is a NaN, not always the same one (TF.js cannot tell NaNs apart).

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
