"""Evaluation kernels: TopK, Unique, SearchSorted.

TopK orders by value, largest first, ties by lower index. TF.js gets there with a
Floyd-Rivest selection of the top ``k`` (``sorted=False`` returns them in the order the
selection leaves them) followed by a sort with a comparator (``b - a``); NaN, and an infinity
met by itself (``inf - inf``), make that comparator inconsistent, so with NaN or +-Infinity
(or ``sorted=False``) the same selection and sort run here on the host, element by element.
Otherwise a stable vectorized sort gives the identical result.

Unique keys each slice along the axis by its values, as TF.js keys them by their printed
form: ``-0`` equals ``0`` and NaN equals NaN; the first occurrence is kept. Its output size
depends on the data, so it runs on the host.

SearchSorted is the same binary search as TF.js (midpoint ``(lo + hi) // 2``), run for every
value at once, so unsorted sequences and NaN give TF.js's answers too.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ... import kernel_names as k


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


# ---------------------------------------------------------------------------- TopK
def _compare_pair(a, b):
    diff = b[0] - a[0]
    return a[1] - b[1] if diff == 0 else diff


def _sign(v: float) -> int:
    return (v > 0) - (v < 0)


def _select(arr: list, k: int, left: int, right: int) -> None:
    """Floyd-Rivest selection: afterwards ``arr[:k]`` holds the ``k`` first items in
    ``_compare_pair`` order (not sorted). Written to take exactly TF.js's steps."""
    cmp = _compare_pair
    while right > left:
        if right - left > 600:
            n = right - left + 1
            i = k - left + 1
            z = math.log(n)
            s = 0.5 * math.exp(2 * z / 3)
            sd = 0.5 * math.sqrt(z * s * (n - s) / n) * _sign(i - n / 2)
            new_left = max(left, math.floor(k - i * s / n + sd))
            new_right = min(right, math.floor(k + (n - i) * s / n + sd))
            _select(arr, k, new_left, new_right)
        t = arr[k]
        i, j = left, right
        arr[left], arr[k] = arr[k], arr[left]
        if cmp(arr[right], t) > 0:
            arr[left], arr[right] = arr[right], arr[left]
        while i < j:
            arr[i], arr[j] = arr[j], arr[i]
            i += 1
            j -= 1
            while cmp(arr[i], t) < 0:
                i += 1
            while cmp(arr[j], t) > 0:
                j -= 1
        if cmp(arr[left], t) == 0:
            arr[left], arr[j] = arr[j], arr[left]
        else:
            j += 1
            arr[j], arr[right] = arr[right], arr[j]
        if j <= k:
            left = j + 1
        if k <= j:
            right = j - 1


def _top_k_row(values: list, k: int, sorted_: bool) -> list[int]:
    """Indices of one row's top ``k``, in TF.js's output order."""
    pairs = [(v, i) for i, v in enumerate(values)]
    if k < len(pairs):
        _select(pairs, k, 0, len(pairs) - 1)
        pairs = pairs[:k]
    if sorted_:
        pairs.sort(key=functools.cmp_to_key(_compare_pair))
    return [i for _, i in pairs]


def top_k(x, *, xp, k, sorted=True):  # noqa: A002 - TF.js's attr name
    last = x.shape[-1]
    out_shape = x.shape[:-1] + (k,)
    if k == 0 or x.size == 0:
        return xp.zeros(out_shape, dtype=x.dtype), xp.zeros(out_shape, dtype=xp.int32)
    rows = x.reshape(-1, last)
    # NaN or an infinity: TF.js's comparator gives NaN, so follow its steps exactly.
    inconsistent = x.dtype.kind == "f" and not bool(xp.isfinite(x).all())
    if not inconsistent and sorted:
        # Largest first, ties by index: a stable sort of the negated values.
        keys = -(rows.astype(xp.float64) if x.dtype.kind == "f" else rows.astype(xp.int64))
        idx = xp.argsort(keys, axis=-1, kind="stable")[:, :k]
    elif not inconsistent and k == last:
        idx = xp.broadcast_to(xp.arange(last), rows.shape)  # nothing selected, nothing sorted
    else:
        host = _host(rows)
        data = (
            host.astype(np.float64).tolist()
            if host.dtype.kind != "b"
            else host.astype(int).tolist()
        )
        idx = xp.asarray(np.array([_top_k_row(r, k, bool(sorted)) for r in data], dtype=np.int64))
    values = xp.take_along_axis(rows, idx, axis=-1)
    return values.reshape(out_shape), idx.astype(xp.int32).reshape(out_shape)


# ---------------------------------------------------------------------------- Unique
def _first_occurrence_ids(keys: list) -> tuple[list[int], list[int]]:
    """(id of each key in order of first appearance, position of each id's first key)."""
    seen: dict = {}
    ids, firsts = [], []
    for pos, key in enumerate(keys):
        got = seen.get(key)
        if got is None:
            got = seen[key] = len(firsts)
            firsts.append(pos)
        ids.append(got)
    return ids, firsts


def unique(x, *, xp, axis):
    host = _host(x)
    moved = np.moveaxis(host, axis, 0)
    n = moved.shape[0]
    rows = moved.reshape(n, math.prod(moved.shape[1:]))
    if host.dtype.kind in "OUS":
        # TF.js keys a slice by its strings' UTF-8 bytes joined with commas.
        keys = [tuple(b for s in row for b in str(s).encode("utf-8")) for row in rows]
        ids, firsts = _first_occurrence_ids(keys)
    elif rows.shape[1] == 0:
        ids, firsts = [0] * n, [0] if n else []
    else:
        canon = rows.astype(np.float64)
        canon[np.isnan(canon)] = np.nan  # one NaN bit pattern
        canon = np.ascontiguousarray(canon + 0.0)  # -0 becomes 0
        void = canon.view(np.dtype((np.void, canon.dtype.itemsize * canon.shape[1]))).reshape(n)
        _, first_sorted, inverse = np.unique(void, return_index=True, return_inverse=True)
        order = np.argsort(first_sorted, kind="stable")  # unique ids by first appearance
        new_id = np.empty(len(order), dtype=np.int64)
        new_id[order] = np.arange(len(order))
        ids = new_id[inverse.reshape(-1)]
        firsts = first_sorted[order]
    values = np.moveaxis(moved[np.asarray(firsts, dtype=np.int64)], 0, axis)
    return xp.asarray(np.ascontiguousarray(values)), xp.asarray(np.asarray(ids, dtype=np.int32))


# ---------------------------------------------------------------------------- inTopK (host)
def in_top_k_host(preds: np.ndarray, targets: np.ndarray, k: int) -> np.ndarray:
    """Whether each row's target index is among the row's ``k`` largest values, ranking as
    TF.js's stable sort does (ties: the lower index first). Host arrays in and out: TF.js's
    ``inTopKAsync`` has no kernel, it reads the data and ranks on the host."""
    out = np.zeros(preds.shape[0], dtype=bool)
    if preds.shape[0] == 0:
        return out
    rows = preds.astype(np.float64)
    targets = targets.astype(np.float64)
    n = rows.shape[1]
    valid = (targets >= 0) & (targets < n) & (targets == np.floor(targets))
    t = np.where(valid, targets, 0).astype(np.int64)
    if not np.isnan(rows).any():
        target_values = rows[np.arange(rows.shape[0]), t][:, None]
        before = (rows > target_values) | ((rows == target_values) & (np.arange(n) < t[:, None]))
        return valid & (before.sum(axis=1) < k)

    def cmp(a, b):
        return b[0] - a[0]  # NaN compares as "equal", as in a JS sort comparator

    for r in range(rows.shape[0]):
        ranked = sorted(zip(rows[r].tolist(), range(n), strict=True), key=functools.cmp_to_key(cmp))
        out[r] = any(i == targets[r] for _, i in ranked[:k])
    return out


# ---------------------------------------------------------------------------- SearchSorted
def search_sorted(sorted_sequence, values, *, xp, side="left"):
    batch, n = sorted_sequence.shape
    seq = sorted_sequence.astype(xp.float64)
    vals = values.astype(xp.float64)
    lo = xp.zeros(vals.shape, dtype=xp.int64)
    hi = xp.full(vals.shape, n, dtype=xp.int64)
    rows = xp.arange(batch).reshape(-1, 1)
    left_side = side == "left"
    for _ in range(max(1, n).bit_length() + 1):
        active = lo < hi
        if not bool(active.any()):
            break
        mid = (lo + hi) // 2
        probe = seq[rows, xp.minimum(mid, n - 1)]
        go_right = probe < vals if left_side else probe <= vals
        lo = xp.where(active & go_right, mid + 1, lo)
        hi = xp.where(active & ~go_right, mid, hi)
    return hi.astype(xp.int32)


KERNELS = {k.TOP_K: top_k, k.UNIQUE: unique, k.SEARCH_SORTED: search_sorted}
