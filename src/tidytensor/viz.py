"""Pictures of memory: ``memory_timeline`` draws live bytes and tensors over kernel calls.

``timeline(profile)`` turns a ``tf.profile`` result into events (no plotting library
needed; it lives with the profile's records in ``engine.records``); ``memory_timeline(profile_or_fn, path)`` draws them to a PNG with matplotlib,
which is optional: ``pip install tidytensor[viz]``.

>>> from tidytensor import viz
>>> x = tf.ones([4])
>>> before = tf.memory().num_tensors
>>> info = tf.profile(lambda: tf.tidy(lambda: x.square().sum()))
>>> [(e.name, e.tensors - before) for e in viz.timeline(info) if e.kind == 'kernel']
[('Square', 1), ('Sum', 2)]
>>> tf.dispose([x, info.result])
"""

from __future__ import annotations

from typing import Any

from .engine import ENGINE
from .engine.records import TimelineEvent, timeline
from .errors import ArgumentTypeError

__all__ = ["TimelineEvent", "memory_timeline", "timeline"]

_INSTALL_HINT = "pip install tidytensor[viz]"


def _require_matplotlib() -> Any:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator
    except ImportError as exc:
        raise ImportError(
            f"tidytensor.viz.memory_timeline draws with matplotlib, which is not installed: "
            f"{_INSTALL_HINT}"
        ) from exc
    return Figure, FigureCanvasAgg, MaxNLocator


def _bytes_unit(peak: float) -> tuple[float, str]:
    for scale, unit in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if peak >= 2 * scale:
            return float(scale), unit
    return 1.0, "bytes"


def memory_timeline(
    profile_or_fn: Any,
    path: Any,
    *,
    title: str | None = None,
    kernel_labels: bool | None = None,
    dpi: int = 120,
) -> Any:
    """Draws live bytes and live tensors after each kernel call to a PNG at ``path``,
    marking where scopes start and end; returns the profile drawn.

    ``profile_or_fn`` is a ``tf.profile`` result or a function to profile (run once, as
    ``tf.profile(fn)`` would: what it returns is left alive in the returned profile's
    ``result``). ``kernel_labels`` names each kernel under the x axis (default: when there
    are at most 40). Needs matplotlib (``pip install tidytensor[viz]``); the figure is drawn
    off-screen and pyplot's global state is not touched.
    """
    figure_cls, canvas_cls, locator = _require_matplotlib()
    if callable(profile_or_fn) and not hasattr(profile_or_fn, "kernels"):
        profile = ENGINE.profile(profile_or_fn)
    elif hasattr(profile_or_fn, "kernels"):
        profile = profile_or_fn
    else:
        raise ArgumentTypeError(
            "memory_timeline() takes a tf.profile() result or a function to profile, got "
            f"{type(profile_or_fn).__name__}"
        )
    events = timeline(profile)
    _draw(figure_cls, canvas_cls, locator, profile, events, path, title, kernel_labels, dpi)
    return profile


def _start_totals(profile: Any, events: list[TimelineEvent]) -> tuple[int, int]:
    """Live bytes and tensors when the profile started: recorded by the engine, or worked
    out from the first event (what it left minus what it added)."""
    start_bytes = getattr(profile, "start_bytes", None)
    start_tensors = getattr(profile, "start_tensors", None)
    if start_bytes is not None and start_tensors is not None:
        return int(start_bytes), int(start_tensors)
    if not events:
        return 0, 0
    first = events[0]
    if first.kind == "kernel":
        k = profile.kernels[0]
        return first.bytes - int(k.bytes_added), first.tensors - int(k.tensors_added)
    return first.bytes, first.tensors


def _positions(events: list[TimelineEvent]) -> list[float]:
    """Kernel calls at x = 1, 2, 3...; the scope boundaries between two calls spread evenly
    between them (after the last call, between it and the next integer)."""
    xs = [0.0] * len(events)
    calls = 0
    pending: list[int] = []

    def flush() -> None:
        for j, i in enumerate(pending):
            xs[i] = calls + (j + 1) / (len(pending) + 1)
        pending.clear()

    for i, e in enumerate(events):
        if e.kind == "kernel":
            flush()
            calls += 1
            xs[i] = float(calls)
        else:
            pending.append(i)
    flush()
    return xs


def _draw(
    figure_cls: Any,
    canvas_cls: Any,
    MaxNLocator: Any,  # noqa: N803 - the matplotlib class
    profile: Any,
    events: list[TimelineEvent],
    path: Any,
    title: str | None,
    kernel_labels: bool | None,
    dpi: int,
) -> None:
    kernels = [e for e in events if e.kind == "kernel"]
    n_kernels = len(kernels)
    if kernel_labels is None:
        kernel_labels = 0 < n_kernels <= 40
    xs = _positions(events)
    x0_bytes, x0_tensors = _start_totals(profile, events)
    end_x = (max(xs) if xs else 0.0) + 0.6
    # After the last event, the totals when the profiled function returned (it may have
    # disposed tensors without running a kernel).
    final_bytes = x0_bytes + int(getattr(profile, "new_bytes", 0))
    final_tensors = x0_tensors + int(getattr(profile, "new_tensors", 0))
    px = [0.0, *xs, end_x, end_x + 0.4]
    pb = [x0_bytes, *(e.bytes for e in events), final_bytes, final_bytes]
    pt = [x0_tensors, *(e.tensors for e in events), final_tensors, final_tensors]
    peak = max(pb) if pb else 0
    scale, unit = _bytes_unit(peak)

    height = 5.6 if kernel_labels else 5.0
    fig = figure_cls(figsize=(max(7.0, min(16.0, 4.0 + 0.28 * len(events))), height), dpi=dpi)
    canvas_cls(fig)
    ax_b, ax_t = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 2]})

    ax_b.step(px, [b / scale for b in pb], where="post", color="#1f77b4", linewidth=1.8)
    ax_b.fill_between(px, [b / scale for b in pb], step="post", alpha=0.15, color="#1f77b4")
    ax_b.set_ylabel(f"live {unit}")
    ax_b.set_ylim(bottom=0, top=max(1.0, peak / scale) * 1.45)
    ax_t.step(px, pt, where="post", color="#d62728", linewidth=1.8)
    ax_t.set_ylabel("live tensors")
    ax_t.set_ylim(bottom=0, top=max(1, max(pt)) * 1.25)
    ax_t.yaxis.set_major_locator(MaxNLocator(integer=True))

    if peak:
        i_peak = pb.index(peak)
        ax_b.plot([px[i_peak]], [peak / scale], marker="v", color="#1f77b4", markersize=5)

    _mark_scopes(ax_b, ax_t, events, xs, kernels)

    ax_t.set_xlim(-0.3, end_x + 0.4)
    if kernel_labels:
        ticks = [x for x, e in zip(xs, events, strict=True) if e.kind == "kernel"]
        ax_t.set_xticks([*ticks, end_x])
        ax_t.set_xticklabels(
            [*(e.name for e in kernels), "(returned)"], rotation=60, ha="right", fontsize=7
        )
        ax_t.set_xlabel("kernel calls")
    else:
        ax_t.set_xlabel("kernel call number")
    for ax in (ax_b, ax_t):
        ax.grid(axis="y", alpha=0.3)
        ax.spines["top"].set_visible(False)
        ax.spines["right"].set_visible(False)

    if title is None:
        peak_text = f"{peak / scale:,.1f} {unit}" if scale > 1 else f"{peak:,} bytes"
        title = (
            f"Memory timeline: {n_kernels} kernel call{'s' if n_kernels != 1 else ''}, "
            f"peak {peak_text} live (\u25bc); overall "
            f"{int(getattr(profile, 'new_tensors', 0)):+d} tensors, "
            f"{int(getattr(profile, 'new_bytes', 0)):+,d} bytes"
        )
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, format="png")


def _mark_scopes(
    ax_b: Any, ax_t: Any, events: list[TimelineEvent], xs: list[float], kernels: list
) -> None:
    """Vertical lines where scopes start (dashed) and end (dotted, where their tensors go);
    named when there are few. Without recorded boundaries, a line where the kernels'
    scope changes."""
    marks: list[tuple[float, str, str]] = []  # (x, label, style)
    if any(e.kind != "kernel" for e in events):
        for x, e in zip(xs, events, strict=True):
            if e.kind == "scope_start":
                marks.append((x, f"{e.name} >", "start"))
            elif e.kind == "scope_end":
                marks.append((x, f"< {e.name}", "end"))
    else:
        previous: Any = ("unset",)
        for x, e in zip(xs, events, strict=True):
            key = (e.scope_id, e.scope)
            if key != previous and previous != ("unset",):
                marks.append((x - 0.5, f"scope: {e.scope or 'none'}", "change"))
            previous = key
    style = {
        "start": dict(color="#2ca02c", linestyle="--"),
        "end": dict(color="#9467bd", linestyle=":"),
        "change": dict(color="#7f7f7f", linestyle="--"),
    }
    labelled = len(marks) <= 16
    top = ax_b.get_ylim()[1]
    for x, label, kind in marks:
        for ax in (ax_b, ax_t):
            ax.axvline(x, linewidth=1.0, alpha=0.8, **style[kind])
        if labelled:
            ax_b.text(
                x,
                top * 0.98,
                label,
                rotation=90,
                va="top",
                ha="right" if kind == "end" else "left",
                fontsize=7,
                color=style[kind]["color"],
            )
    if marks and not labelled:
        ax_b.text(
            0.99,
            0.98,
            f"{len(marks)} scope boundaries (dashed: start, dotted: end)",
            transform=ax_b.transAxes,
            ha="right",
            va="top",
            fontsize=7,
        )
