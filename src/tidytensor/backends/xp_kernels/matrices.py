"""Matrix kernels: BatchMatMul, Transpose, Einsum.

BatchMatMul hands the float32 arrays straight to ``xp.matmul`` (transposes are views, so BLAS
sees the strides and nothing is copied). Batch dims pair up as in TF.js's CPU kernel: batch
``i`` of the output uses batch ``i % batchA`` of ``a`` and ``i % batchB`` of ``b``, which is
ordinary broadcasting whenever the smaller batch shape is a suffix of the output's.
"""

from __future__ import annotations

import math

from ... import kernel_names as k
from ...errors import InvalidArgumentError, ShapeError
from ...geometry.broadcast import assert_and_get_broadcast_shape
from .reduction import sum_, to_int32

# ---------------------------------------------------------------------------- BatchMatMul


def _is_suffix_broadcast(batch: tuple[int, ...], out_batch: tuple[int, ...]) -> bool:
    """True when ``i % prod(batch)`` picks the same batch as NumPy broadcasting would."""
    if math.prod(batch) == 1:
        return True
    trimmed = list(batch)
    while trimmed and trimmed[0] == 1:
        trimmed.pop(0)
    n = len(trimmed)
    return tuple(trimmed) == tuple(out_batch[len(out_batch) - n :])


def _matmul(a, b, xp):
    if a.dtype.kind == "f":  # float32: straight to BLAS (one attribute read, not two compares)
        return xp.matmul(a, b)
    if a.dtype == xp.bool_:
        # TF.js accumulates bool products into a Uint8Array: the count modulo 256.
        counts = xp.matmul(a.astype(xp.int32), b.astype(xp.int32))
        return (counts % 256) != 0
    if a.dtype == xp.int32:
        # TF.js adds the products in doubles and stores the sums into an Int32Array: exact up to
        # 2**53, rounded beyond it before they wrap (-2**31 * (2**31 - 1) gives -2**31).
        return to_int32(xp.matmul(a.astype(xp.float64), b.astype(xp.float64)), xp)
    return xp.matmul(a, b)


def batch_mat_mul(a, b, *, xp, transpose_a=False, transpose_b=False):
    if transpose_a:
        a = xp.swapaxes(a, -1, -2)
    if transpose_b:
        b = xp.swapaxes(b, -1, -2)
    batch_a, batch_b = a.shape[:-2], b.shape[:-2]
    if batch_a == batch_b:  # 2-D, or the same batch dims: no pairing to work out
        return _matmul(a, b, xp)
    out_batch = assert_and_get_broadcast_shape(batch_a, batch_b)
    size_a, size_b = math.prod(batch_a), math.prod(batch_b)
    n_out = math.prod(out_batch)
    if (
        _is_suffix_broadcast(batch_a, out_batch) and _is_suffix_broadcast(batch_b, out_batch)
    ) or max(size_a, size_b) != n_out:
        # Plain broadcasting: equal to TF.js's pairing here. (When max(batchA, batchB) is not
        # the output's batch count, TF.js returns a tensor with too few values; broadcast.)
        return _matmul(a, b, xp)
    # TF.js pairs batch i with a[i % batchA] and b[i % batchB].
    m, kk = a.shape[-2:]
    n = b.shape[-1]
    a3 = a.reshape((size_a, m, kk))
    b3 = b.reshape((size_b, kk, n))
    idx = xp.arange(n_out)
    out = _matmul(a3[idx % size_a], b3[idx % size_b], xp)
    return out.reshape(tuple(out_batch) + (m, n))


# ---------------------------------------------------------------------------- Transpose


def transpose(x, *, xp, perm):
    perm = [int(p) for p in perm]
    if len(set(perm)) == len(perm):
        return xp.transpose(x, perm).copy()
    return _transpose_repeated(x, perm, xp)


def _transpose_repeated(x, perm, xp):
    """TF.js's Transpose with a repeated entry in ``perm``: each input value is written to
    ``out[loc[perm[0]], loc[perm[1]], ...]`` in order, so the last write wins and positions
    never written stay 0."""
    shape = x.shape
    new_shape = tuple(shape[p] for p in perm)
    out = xp.zeros(math.prod(new_shape), dtype=x.dtype)
    if x.size == 0 or out.size == 0:
        return out.reshape(new_shape)
    locs = xp.unravel_index(xp.arange(x.size), shape)
    missing = [d for d in range(len(shape)) if d not in perm]
    # Among the values that land on one position, the last one has every unnamed axis at its end.
    last = xp.ones(x.size, dtype=xp.bool_)
    for d in missing:
        last &= locs[d] == shape[d] - 1
    new_locs = tuple(locs[p][last] for p in perm)
    target = xp.ravel_multi_index(new_locs, new_shape)
    out[target] = x.reshape(-1)[last]
    return out.reshape(new_shape)


# ---------------------------------------------------------------------------- Einsum

ARROW = "->"


def decode_einsum_equation(equation: str, num_tensors: int):
    """TF.js's ``decodeEinsumEquation``: (all dims, summed dims, dims of each input)."""
    equation = "".join(equation.split())
    num_arrows = equation.count(ARROW)
    if num_arrows < 1:
        raise InvalidArgumentError("Equations without an arrow are not supported.")
    if num_arrows > 1:
        raise InvalidArgumentError(f'Equation must contain exactly one arrow ("{ARROW}").')
    input_string, output_string = equation.split(ARROW)
    if "..." in input_string:
        raise InvalidArgumentError('The ellipsis notation ("...") is not supported yet.')
    input_terms = input_string.split(",")
    if num_tensors != len(input_terms):
        raise InvalidArgumentError(
            f"Expected {len(input_terms)} input tensors, received {num_tensors}"
        )
    if len(input_terms) > 2:
        raise InvalidArgumentError("Support for more than 2 input tensors is not implemented yet.")
    all_dims: list[str] = []
    for name in output_string:
        if not any(name in term for term in input_terms):
            raise InvalidArgumentError(
                f"Output subscripts contain the label {name} not present in the input subscripts."
            )
        if name not in all_dims:
            all_dims.append(name)
    for name in input_string:
        if name not in all_dims and name != ",":
            all_dims.append(name)
    id_dims = []
    for term in input_terms:
        if len(set(term)) != len(term):
            raise InvalidArgumentError(
                f"Found duplicate axes in input component {term}. Support for duplicate axes in "
                "input is not implemented yet."
            )
        id_dims.append([all_dims.index(c) for c in term])
    summed_dims = list(range(len(output_string), len(all_dims)))
    return all_dims, summed_dims, id_dims


def check_einsum_dim_sizes(n_dims: int, id_dims, shapes) -> None:
    sizes: list[int | None] = [None] * n_dims
    for shape, ids in zip(shapes, id_dims, strict=True):
        for j, d in enumerate(ids):
            got = shape[j] if j < len(shape) else None
            if sizes[d] is None:
                sizes[d] = got
            elif sizes[d] != got:
                shown = "[" + ",".join(str(s) for s in shape) + "]"
                raise ShapeError(
                    f"Expected dimension {sizes[d]} at axis {j} of input shaped {shown}, "
                    f"but got dimension {got}"
                )


def einsum_compute_path(summed_dims, id_dims):
    """TF.js's ``getEinsumComputePath``: the dim summed after each step, and the inputs
    multiplied in at each step."""
    path = list(summed_dims) or [-1]
    steps: list[list[int]] = [[] for _ in range(len(summed_dims) + 1)]
    done: list[int] = []
    for i, dim in enumerate(path):
        for t, ids in enumerate(id_dims):
            if (not ids or dim in ids or dim == -1) and t not in done:
                steps[i].append(t)
                done.append(t)
    return path, steps


def einsum_permutation(n_dims: int, ids):
    """TF.js's ``getEinsumPermutation``: the transpose for an input, and where to insert 1s."""
    perm = [-1] * n_dims
    for i, d in enumerate(ids):
        perm[d] = i
    expand = [i for i in range(n_dims) if perm[i] == -1]
    return [p for p in perm if p != -1], expand


def einsum_returns_input(equation: str, shapes) -> bool:
    """True when TF.js's Einsum returns its single input unchanged (same tensor)."""
    all_dims, summed, id_dims = decode_einsum_equation(equation, len(shapes))
    if len(shapes) != 1 or summed:
        return False
    perm, expand = einsum_permutation(len(all_dims), id_dims[0])
    return not expand and all(p == i for i, p in enumerate(perm))


def _upcast(a, b, xp):
    order = "b", "i", "f", "c"
    if a.dtype == b.dtype:
        return a, b
    target = a.dtype if order.index(a.dtype.kind) >= order.index(b.dtype.kind) else b.dtype
    return a.astype(target), b.astype(target)


def einsum(*tensors, xp, equation):
    all_dims, summed_dims, id_dims = decode_einsum_equation(equation, len(tensors))
    check_einsum_dim_sizes(len(all_dims), id_dims, [t.shape for t in tensors])
    path, steps = einsum_compute_path(summed_dims, id_dims)
    out = None
    remaining = len(all_dims)
    for i, step in enumerate(steps):
        for term in step:
            perm, expand = einsum_permutation(remaining, id_dims[term])
            x = tensors[term]
            if any(p != j for j, p in enumerate(perm)):
                x = transpose(x, xp=xp, perm=perm)
            target = list(x.shape)
            for d in expand:
                target.insert(d, 1)
            if tuple(target) != x.shape:
                x = x.reshape(target)
            if out is None:
                out = x
            else:
                x, out = _upcast(x, out, xp)
                # TF.js's multiply checks the shapes (an operand of the wrong rank or size).
                assert_and_get_broadcast_shape(x.shape, out.shape)
                out = xp.logical_and(x, out) if x.dtype == xp.bool_ else xp.multiply(x, out)
        if i < len(steps) - 1:
            if path[i] >= 0:
                axis = path[i] - (len(all_dims) - remaining)
                rank = out.ndim
                if not -rank <= axis < rank:
                    raise InvalidArgumentError(
                        f"All values in axis param must be in range [-{rank}, {rank}) but got axis {axis}"
                    )
                out = sum_(out, xp=xp, axis=[axis % rank], keep_dims=False)
            remaining -= 1
    if any(xp.may_share_memory(out, t) for t in tensors):
        out = out.copy()  # never hand back a view of an input as a new buffer
    return out


KERNELS = {
    k.BATCH_MAT_MUL: batch_mat_mul,
    k.TRANSPOSE: transpose,
    k.EINSUM: einsum,
}
