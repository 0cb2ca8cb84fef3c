"""Convolution as batched GEMMs over "row bands" of the input (helpers of convolution.py).

A convolution's im2col matrix repeats every input value once per filter tap. Here only the
innermost ``expand`` spatial dims are unrolled: for a 2-D conv with ``expand=1`` the gathered
buffer holds, for every input row and every output column, the ``filter_w * channels`` values
one filter row reads ([batch, in_rows, out_cols, filter_w * channels]; a third of im2col for a
3x3 filter). The taps of the remaining (outer) dims are then plain strided views of that
buffer, one GEMM each, summed into the output. ``expand`` equal to the rank is classic im2col
(one GEMM, no sums); which is cheaper depends on the channel counts (``choose_expand``).

Work goes in chunks of whole images (or bands of output rows of one image) so that the
gathered buffer and the partial outputs stay in the L2 cache, and every GEMM is cut into
blocks of at most ``SMALL_GEMM / (k * n)`` rows, batched into one ``matmul`` call: OpenBLAS
(SkylakeX and later) multiplies such blocks with its unpacked small-matrix kernels, which
beat its packed kernels by about a quarter for the skinny (n = 16..64) shapes convolutions
give. Scratch buffers are per thread and never returned.
"""

from __future__ import annotations

import functools
import itertools
import math
import threading
import weakref

from ...engine import kernel_scratch

#: Largest m * k * n of one GEMM block (OpenBLAS's small-matrix kernels take sizes up to 100³).
SMALL_GEMM = 1_000_000
#: The same for the filter gradient's (gathered rows)^T @ dy blocks.
SMALL_GEMM_TN = 1_000_000
#: Fewest rows worth a small-matrix block; wider GEMMs go to the packed kernels whole.
MIN_BLOCK_ROWS = 128
#: Fewest output rows (batch * output pixels) for which row bands beat im2col.
MIN_BAND_ROWS = 512
#: Fewest values per filter row (filter width * channels) for which row bands beat im2col.
MIN_BAND_K = 32
#: Elements of one chunk's gathered buffer: small enough to stay in L2 while its GEMMs run.
BAND_ELEMS = 1 << 17
#: Largest scratch buffer (elements) kept between calls, per thread, name and dtype.
WORKSPACE_LIMIT = 1 << 22

_SCRATCH = threading.local()  # .cache: this thread's ``_Workspaces``


class _Workspaces:
    """One thread's workspaces by (name, array module, dtype), their bytes counted in the
    engine's live bytes as they are made or replaced (a ``kernel_scratch.Holding``): they
    never leave a kernel, so all of them are the kernels' kept memory. The count goes with
    the thread's cache (``clear_workspaces``, or the thread's end)."""

    def __init__(self):
        self.bufs: dict = {}
        self.holding = kernel_scratch.Holding("convolution workspaces")
        weakref.finalize(self, self.holding.clear).atexit = False


def workspace(xp, size: int, dtype, name: str = "cols"):
    """A reusable scratch buffer of ``size`` elements (contents undefined), one per ``name``.
    Reusing it spares every call the page faults of fresh multi-megabyte allocations."""
    cache = getattr(_SCRATCH, "cache", None)
    if cache is None:
        cache = _SCRATCH.cache = _Workspaces()
    key = (name, xp.__name__, xp.dtype(dtype).str)
    buf = cache.bufs.get(key)
    if buf is None or buf.size < size:
        new = xp.empty(max(size, 1), dtype=dtype)
        if size <= WORKSPACE_LIMIT:
            cache.bufs[key] = new
            cache.holding.add(new.nbytes - (0 if buf is None else buf.nbytes))
        buf = new
    return buf[:size]


def workspace_bytes() -> int:
    """Bytes of this thread's workspaces (counted in the engine's live bytes:
    ``engine.kernel_scratch``)."""
    cache = getattr(_SCRATCH, "cache", None)
    return 0 if cache is None else cache.holding.bytes


def clear_workspaces() -> None:
    """Drops the calling thread's scratch buffers (another thread's go when it ends)."""
    cache = _SCRATCH.__dict__.pop("cache", None)
    if cache is not None:
        cache.bufs.clear()
        cache.holding.clear()


def padded_region(x, xp, starts, extents, fill=0):
    """``a[:, i, ...] = x[:, starts + i, ...]`` over ``extents``, ``fill`` outside ``x``: a view
    of ``x`` when the windows stay inside it, else a workspace copy of which only the border
    slabs are filled (valid until the next call that uses the "region" workspace)."""
    sizes = x.shape[1:-1]
    if all(0 <= st and st + e <= s for st, e, s in zip(starts, extents, sizes, strict=True)):
        return x[(slice(None), *(slice(st, st + e) for st, e in zip(starts, extents, strict=True)))]
    shape = (x.shape[0], *extents, x.shape[-1])
    out = workspace(xp, math.prod(shape), x.dtype, "region").reshape(shape)
    dst, src = [], []
    for st, e, s in zip(starts, extents, sizes, strict=True):
        lo, hi = max(st, 0), min(st + e, s)
        if hi <= lo:
            out.fill(fill)
            return out
        dst.append(slice(lo - st, hi - st))
        src.append(slice(lo, hi))
    if out.size <= 1 << 16:  # small: one fill beats a call per border slab
        out.fill(fill)
    else:
        for d, (sl, e) in enumerate(zip(dst, extents, strict=True)):
            before = (slice(None),) * (d + 1)
            if sl.start > 0:
                out[(*before, slice(0, sl.start))] = fill
            if sl.stop < e:
                out[(*before, slice(sl.stop, e))] = fill
    out[(slice(None), *dst)] = x[(slice(None), *src)]
    return out


@functools.lru_cache(maxsize=256)
def _block_rows(rows: int, limit: int) -> int:
    """Rows of one GEMM block: all of them when they fit the limit, else the largest divisor
    of ``rows`` within it (no ragged tail), or the limit itself when no divisor comes close."""
    if rows <= limit:
        return rows
    best = 1
    for d in range(1, math.isqrt(rows) + 1):
        if rows % d == 0:
            for c in (d, rows // d):
                if best < c <= limit:
                    best = c
    return best if 2 * best > limit else limit


@functools.lru_cache(maxsize=1024)
def _blocking(lead: tuple, steps: tuple, limit: int) -> tuple:
    """How to cut arrays over ``lead`` = [*batch, rows] (with strides ``steps`` over those
    dims, in elements) into batched GEMM blocks: trailing batch dims are folded into the rows
    while every array's strides allow it and the rows are below ``limit``, then the rows are
    split into ``q`` blocks of ``r`` rows (plus a ragged tail when no divisor of the rows comes
    close to the limit). Returns (folded lead dims, r, q)."""
    lead, steps = list(lead), [list(s) for s in steps]
    while len(lead) > 1 and lead[-1] < limit and all(s[-2] == lead[-1] * s[-1] for s in steps):
        lead[-2:] = [lead[-2] * lead[-1]]
        for s in steps:
            del s[-2]
    r = _block_rows(lead[-1], max(1, limit))
    return tuple(lead), r, lead[-1] // r


def _cut(a, common: int, lead: tuple, r: int, q: int) -> list:
    """``a`` ([*own, *batch, rows, k] over ``common`` shared dims) as ``_blocking`` laid it
    out: the batched blocks ``[*own, *lead[:-1], q, r, k]`` and the ragged tail, if any."""
    if len(lead) < common:  # _blocking checked the strides: this reshape is a view
        a = a.reshape(*a.shape[: -1 - common], *lead, a.shape[-1])
    rows = lead[-1]
    if q * r == rows:
        return [a] if q == 1 else [a.reshape(*a.shape[:-2], q, r, a.shape[-1])]
    head = a[..., : q * r, :].reshape(*a.shape[:-2], q, r, a.shape[-1])
    return [head, a[..., q * r :, :]]


def choose_expand(
    nd: int, filter_sizes, strides, channels: int, out_channels: int, rows: int
) -> int:
    """How many trailing spatial dims to unroll: just the innermost (a band GEMM per outer
    filter tap, summed) when the outer dims have stride 1 (so each tap's rows are one
    strided block, and the band is much smaller than im2col) and one filter row holds enough
    values per output channel for the GEMMs to stay efficient and the sums to cost less
    than the copies they save, and there are enough output ``rows`` for the copies to
    matter more than the extra calls; else all of them (im2col, one GEMM)."""
    if nd < 2 or math.prod(filter_sizes[:-1]) == 1 or any(s != 1 for s in strides[:-1]):
        return nd
    if rows < MIN_BAND_ROWS:
        return nd
    k1 = filter_sizes[-1] * channels
    return 1 if k1 >= MIN_BAND_K and 2 * k1 >= out_channels else nd


class _Chunk:
    """One shape of chunk: where its windows are, how they are gathered, where each outer
    tap reads in the gathered buffer, and how the GEMM rows are blocked."""

    __slots__ = ("window_rows", "src_shape", "size", "gathered", "taps", "blocking")


class _Plan:
    """One convolution's GEMM layout (pure geometry, cached): the window view over the padded
    region, the outer filter taps, and the chunks (image slice, band of output rows along
    spatial dim 0) whose gathered buffer ``[images, *outer spans, *inner outputs, k1]`` fits
    ``BAND_ELEMS``."""

    def __init__(self, shape, steps, info, out_channels, block_size):
        nd = len(info[0])
        self.out_sizes, self.filter_sizes, self.strides, self.dilations = map(list, info)
        c = shape[-1]
        self.nd, self.common = nd, nd + 1
        rows = shape[0] * math.prod(self.out_sizes)
        self.outer = o = nd - choose_expand(
            nd, self.filter_sizes, self.strides, c, out_channels, rows
        )
        self.k1 = math.prod(self.filter_sizes[o:]) * c
        self.ntaps = math.prod(self.filter_sizes[:o])
        limit = block_size // max(self.k1 * out_channels, 1)  # rows per GEMM block
        self.limit = limit if limit >= MIN_BLOCK_ROWS else 1 << 62
        self.window_shape = (
            shape[0],
            *shape[1 : 1 + o],
            *self.out_sizes[o:],
            *self.filter_sizes[o:],
            c,
        )
        self.window_steps = (
            *steps[: 1 + o],
            *(steps[1 + d] * self.strides[d] for d in range(o, nd)),
            *(steps[1 + d] * self.dilations[d] for d in range(o, nd)),
            steps[-1],
        )
        self.out_channels = out_channels
        shapes: dict = {}
        self.chunks = []
        for bs, rs in self._chunks():
            key = (bs.stop - bs.start, rs.stop - rs.start)
            if key not in shapes:
                shapes[key] = self._chunk(*key)
            self.chunks.append((bs, rs, shapes[key]))
        self.gathered_size = max(ch.size for ch in shapes.values())

    def _span(self, a: int) -> int:
        """Gathered rows along spatial dim 0 that ``a`` output rows need."""
        if self.outer == 0:
            return a
        return (a - 1) * self.strides[0] + (self.filter_sizes[0] - 1) * self.dilations[0] + 1

    def _gathered_size(self, images: int, rows: int) -> int:
        per_row = math.prod(self.window_shape[2 : 1 + self.nd]) * self.k1
        return images * self._span(rows) * per_row

    def _chunks(self) -> list:
        n, rows = self.window_shape[0], self.out_sizes[0]
        per_image = self._gathered_size(1, rows)
        if per_image <= BAND_ELEMS:
            step = max(1, BAND_ELEMS // max(per_image, 1))
            return [(slice(b, min(n, b + step)), slice(0, rows)) for b in range(0, n, step)]
        a = 1
        while a < rows and self._gathered_size(1, a + 1) <= BAND_ELEMS:
            a += 1
        return [
            (slice(b, b + 1), slice(r, min(rows, r + a)))
            for b in range(n)
            for r in range(0, rows, a)
        ]

    def _chunk(self, images: int, rows: int) -> _Chunk:
        ch = _Chunk()
        o, nd = self.outer, self.nd
        ch.window_rows = self._span(rows)
        ch.src_shape = (images, ch.window_rows, *self.window_shape[2:])
        lead = ch.src_shape[: 1 + nd]
        ch.size = math.prod(lead) * self.k1
        ch.gathered = (*lead, self.k1)
        ch.taps = []
        for tap in itertools.product(*(range(f) for f in self.filter_sizes[:o])):
            sl = [slice(None)]
            for d, t in enumerate(tap):
                n_out = rows if d == 0 else self.out_sizes[d]
                start, step = t * self.dilations[d], self.strides[d]
                sl.append(slice(start, start + (n_out - 1) * step + 1, step))
            ch.taps.append(tuple(sl))
        # strides (in elements) of a tap's view and of a contiguous chunk of results
        g_steps = [math.prod(ch.gathered[i + 1 :]) for i in range(len(ch.gathered))]
        tap_steps = (g_steps[0], *(g_steps[1 + d] * self.strides[d] for d in range(o)))
        tap_steps = (*tap_steps, *g_steps[1 + o : -1])
        out_shape = (images, rows, *self.out_sizes[1:])
        out_steps = [math.prod(out_shape[i + 1 :]) * self.out_channels for i in range(nd + 1)]
        ch.blocking = (
            self.common,
            *_blocking(out_shape, (tap_steps, tuple(out_steps)), self.limit),
        )
        return ch


@functools.lru_cache(maxsize=256)
def _plan(shape, steps, info, out_channels, block_size) -> _Plan:
    return _Plan(shape, steps, info, out_channels, block_size)


def _plan_for(region, info, out_channels, block_size) -> _Plan:
    item = region.itemsize
    geometry = tuple(
        tuple(v) for v in (info.out_sizes, info.filter_sizes, info.strides, info.dilations)
    )
    return _plan(
        region.shape,
        tuple(s // item for s in region.strides),
        geometry,
        out_channels,
        block_size,
    )


def _gather(plan: _Plan, windows, g, bs: slice, rs: slice, ch: _Chunk, xp):
    """Copies the chunk's windows into ``g`` and returns it shaped ``ch.gathered``."""
    lo = rs.start * plan.strides[0] if plan.outer else rs.start
    src = windows[bs, lo : lo + ch.window_rows]
    g = g[: ch.size]
    xp.copyto(g.reshape(ch.src_shape), src)
    return g.reshape(ch.gathered)


def _windows(region, plan: _Plan, xp):
    item = region.itemsize
    return xp.lib.stride_tricks.as_strided(
        region, plan.window_shape, tuple(s * item for s in plan.window_steps)
    )


def forward(region, w, info, xp, out):
    """``out[...] = conv(x, w)`` from ``region`` (``padded_region`` of the channels-last input
    over the windows' extents), ``w`` [*K, C, Cout] contiguous and ``out`` [N, *O, Cout]
    contiguous, all of the compute dtype; ``info`` gives the geometry. Each outer tap's GEMM
    goes into the "parts" workspace and is added to the output (the first writes it)."""
    cout = w.shape[-1]
    plan = _plan_for(region, info, cout, SMALL_GEMM)
    wt = w.reshape(plan.ntaps, plan.k1, cout)
    windows = _windows(region, plan, xp)
    g = workspace(xp, plan.gathered_size, region.dtype, "cols")
    parts = None
    if plan.ntaps > 1:
        bs, rs, _ = plan.chunks[0]
        parts = workspace(xp, out[bs, rs].size, out.dtype, "parts")
    for bs, rs, ch in plan.chunks:
        gv = _gather(plan, windows, g, bs, rs, ch, xp)
        oc = out[bs, rs]
        oc_blocks = _cut(oc, *ch.blocking)
        if parts is None:
            for a, o in zip(_cut(gv, *ch.blocking), oc_blocks, strict=True):
                xp.matmul(a, wt[0], out=o)
            continue
        tmp = parts[: oc.size].reshape(oc.shape)
        tmp_blocks = _cut(tmp, *ch.blocking)
        for i, sl in enumerate(ch.taps):
            for a, o, t in zip(_cut(gv[sl], *ch.blocking), oc_blocks, tmp_blocks, strict=True):
                xp.matmul(a, wt[i], out=t if i else o)
            if i:
                xp.add(oc, tmp, out=oc)
    return out


def filter_grad(region, dy, info, xp):
    """dL/dw of ``forward`` from ``region`` (as there) and contiguous ``dy`` [N, *O, Cout] of
    the same dtype: [*K, C, Cout], summing the GEMMs' per-block partial products."""
    cout = dy.shape[-1]
    plan = _plan_for(region, info, cout, SMALL_GEMM_TN)
    k1 = plan.k1
    windows = _windows(region, plan, xp)
    g = workspace(xp, plan.gathered_size, region.dtype, "cols")
    dw = xp.zeros((plan.ntaps, k1, cout), dtype=region.dtype)
    for bs, rs, ch in plan.chunks:
        gv = _gather(plan, windows, g, bs, rs, ch, xp)
        dy_blocks = _cut(dy[bs, rs], *ch.blocking)
        for i, sl in enumerate(ch.taps):
            for a, d in zip(_cut(gv[sl], *ch.blocking), dy_blocks, strict=True):
                part = xp.matmul(a.swapaxes(-1, -2), d)
                dw[i] += part if part.ndim == 2 else part.reshape(-1, k1, cout).sum(0)
    return dw.reshape(*info.filter_sizes, region.shape[-1], cout)
