"""The training progress display of ``fit(verbose=...)`` (the role of tfjs-node's
``ProgbarLogger``, drawn the way Keras draws it).

- ``verbose=1`` on a terminal: ``Epoch 3/10``, then a bar updated as batches finish, ending
  as ``4/4 [==============================] - 0s 2ms/step - loss: 0.2500 - acc: 0.9000 -
  val_loss: 0.3000``. It uses ``tqdm`` when installed (``pip install tidytensor[progress]``),
  else a built-in carriage-return line.
- ``verbose=1`` in a Jupyter notebook (printing to the notebook's own output): the same bar
  and line, one output per epoch, redrawn in place through IPython's display updates (no
  carriage returns, no widget library needed); the saved notebook keeps each epoch's last
  state, as plain text and as HTML with a ``<progress>`` bar.
- ``verbose=2``, or output that is not a terminal (a file, a pipe, a notebook capture): one
  line per epoch, ``Epoch 3/10 - 0s 2ms/step - loss: 0.2500 - acc: 0.9000``.
- ``verbose=0``: nothing.

``fit`` adds a :class:`ProgbarLogger` for ``verbose >= 1`` through
:func:`~tidytensor.layers.training.callbacks.register_callback_constructor`.

>>> import io
>>> out = io.StringIO()
>>> bar = ProgbarLogger(stream=out, interactive=False)
>>> bar.set_params({'epochs': 2, 'samples': 4, 'batch_size': 2, 'steps': None, 'verbose': 1,
...                 'metrics': ['loss', 'acc']})
>>> bar.on_train_begin(); bar.on_epoch_begin(0)
>>> bar.on_batch_end(0, {'batch': 0, 'size': 2, 'loss': 0.5, 'acc': 0.5})
>>> bar.on_epoch_end(0, {'loss': 0.25, 'acc': 0.75})
>>> print(out.getvalue().replace(bar.last_time_text, 'T'), end='')
Epoch 1/2 - T - loss: 0.2500 - acc: 0.7500
"""

from __future__ import annotations

import html
import math
import sys
import time
from typing import Any, TextIO

from .callbacks import BaseCallback, CallbackConstructorRegistry

__all__ = ["ProgbarLogger", "format_metrics", "format_value"]

#: Seconds between two redraws of the bar (the last batch always redraws).
REFRESH_INTERVAL = 0.05


def format_value(value: Any) -> str:
    """A log value as Keras prints it: 4 decimals, or scientific notation when tiny."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if value != value or math.isinf(value):
        return str(value)
    return f"{value:.4f}" if abs(value) > 1e-3 else f"{value:.4e}"


def format_metrics(logs: dict[str, Any], keys: list[str]) -> str:
    """``'loss: 0.2500 - acc: 0.9000'`` for the keys present in ``logs``."""
    return " - ".join(f"{k}: {format_value(logs[k])}" for k in keys if k in logs)


def _format_step_time(seconds_per_step: float) -> str:
    if seconds_per_step >= 1:
        return f"{seconds_per_step:.0f}s/step"
    if seconds_per_step >= 1e-3:
        return f"{seconds_per_step * 1e3:.0f}ms/step"
    return f"{seconds_per_step * 1e6:.0f}us/step"


def _format_eta(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
    if seconds >= 60:
        return f"{seconds // 60}:{seconds % 60:02d}"
    return f"{seconds}s"


def notebook_display() -> Any:
    """IPython's ``display`` when this process is a Jupyter kernel (IPython already imported
    and its shell attached to a kernel), else ``None``."""
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None)
    shell = get_ipython() if get_ipython is not None else None
    if shell is None or getattr(shell, "kernel", None) is None:
        return None
    from IPython.display import display

    return display


def _tqdm() -> Any:
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


class ProgbarLogger(BaseCallback):
    """Prints training progress (see the module's description).

    Args:
        verbose: 1 (bar on a terminal) or 2 (a line per epoch); default ``fit``'s.
        stream: where to write (default ``sys.stdout`` when training starts).
        interactive: draw a live bar (default: whether ``stream`` is a terminal).
        use_tqdm: draw the bar with tqdm (default: when tqdm is installed).
        bar_width: characters of the bar.
    """

    def __init__(
        self,
        verbose: int | None = None,
        stream: TextIO | None = None,
        interactive: bool | None = None,
        use_tqdm: bool | None = None,
        bar_width: int = 30,
    ):
        super().__init__()
        self.verbose = verbose
        self.stream = stream
        self.interactive = interactive
        self.use_tqdm = use_tqdm
        self.bar_width = bar_width
        self.last_time_text = ""
        self._out: TextIO = sys.stdout
        self._live = False
        self._bar: Any = None
        self._line_len = 0
        self._last_draw = 0.0
        self._epoch_start = 0.0
        self._done = 0
        self._seen = 0
        self._totals: dict[str, float] = {}
        self._steps: int | None = None
        self._display: Any = None  # IPython's display, in a notebook
        self._handle: Any = None  # the epoch's display handle, in a notebook
        self._epoch_title = ""

    # ---------------------------------------------------------------- setup
    def _verbosity(self) -> int:
        v = self.verbose if self.verbose is not None else self.params.get("verbose", 1)
        return 0 if v is None else int(v)

    def _train_keys(self) -> list[str]:
        return [k for k in self.params.get("metrics") or [] if not k.startswith("val_")]

    def _all_keys(self, logs: dict[str, Any]) -> list[str]:
        keys = list(self.params.get("metrics") or [])
        keys += [k for k in logs if k not in keys and k not in ("batch", "size")]
        return keys

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._out = self.stream if self.stream is not None else sys.stdout
        interactive = self.interactive
        self._display = None
        if self.stream is None and interactive is None:
            self._display = notebook_display()
            interactive = self._display is not None or None
        if interactive is None:
            isatty = getattr(self._out, "isatty", None)
            try:
                interactive = bool(isatty()) if isatty is not None else False
            except (ValueError, OSError):
                interactive = False
        self._live = interactive and self._verbosity() == 1
        steps = self.params.get("steps")
        if steps is None:
            samples, batch_size = self.params.get("samples"), self.params.get("batch_size")
            if samples is not None and batch_size:
                steps = math.ceil(samples / batch_size)
        self._steps = steps

    def _write(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()

    # ---------------------------------------------------------------- epochs
    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self._verbosity() <= 0:
            return
        self._epoch_start = time.perf_counter()
        self._done = 0
        self._seen = 0
        self._totals = {}
        self._line_len = 0
        self._last_draw = 0.0
        self._epoch_title = f"Epoch {epoch + 1}/{self.params.get('epochs')}"
        if self._live and self._display is not None:
            self._handle = self._display(self._rich(self._bar_text()), raw=True, display_id=True)
        elif self._live:
            self._write(self._epoch_title + "\n")
            use_tqdm = self.use_tqdm if self.use_tqdm is not None else _tqdm() is not None
            if use_tqdm:
                tqdm = _tqdm()
                if tqdm is None:
                    raise ImportError(
                        "ProgbarLogger(use_tqdm=True) needs tqdm: pip install tidytensor[progress]"
                    )
                fmt = (
                    f"{{n_fmt}}/{{total_fmt}} [{{bar:{self.bar_width}}}] - {{desc}}"
                    if self._steps
                    else "{n_fmt}/Unknown - {desc}"
                )
                self._bar = tqdm(
                    total=self._steps,
                    file=self._out,
                    bar_format=fmt,
                    ascii=".=",
                    mininterval=REFRESH_INTERVAL,
                    leave=True,
                    dynamic_ncols=False,
                )

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if self._verbosity() <= 0:
            return
        logs = logs or {}
        size = logs.get("size") or 0
        self._seen += size
        self._done += 1
        for key in self._train_keys():
            value = logs.get(key)
            if isinstance(value, (int, float)):
                self._totals[key] = self._totals.get(key, 0.0) + value * size
        if not self._live:
            return
        averages = {k: v / self._seen for k, v in self._totals.items()} if self._seen else {}
        elapsed = time.perf_counter() - self._epoch_start
        text = format_metrics(averages, self._train_keys())
        if self._steps and self._done < self._steps:
            eta = elapsed / self._done * (self._steps - self._done)
            text = f"ETA: {_format_eta(eta)}" + (f" - {text}" if text else "")
        if self._bar is not None:
            self._bar.set_description_str(text, refresh=False)
            self._bar.update(1)
            return
        now = time.perf_counter()
        if now - self._last_draw < REFRESH_INTERVAL and self._done != self._steps:
            return
        self._last_draw = now
        self._draw(text)

    def _bar_text(self) -> str:
        if not self._steps:
            return f"{self._done}/Unknown"
        width = len(str(self._steps))
        filled = int(self.bar_width * min(self._done, self._steps) / self._steps)
        if self._done >= self._steps:
            bar = "=" * self.bar_width
        else:
            bar = "=" * max(filled - 1, 0) + ">" + "." * (self.bar_width - max(filled, 1))
        return f"{self._done:>{width}}/{self._steps} [{bar}]"

    def _rich(self, line: str) -> dict[str, str]:
        """The notebook output for ``line``: plain text and HTML with a progress bar."""
        plain = f"{self._epoch_title}\n{line}"
        bar = ""
        if self._steps:
            done = min(self._done, self._steps)
            bar = f'<progress value="{done}" max="{self._steps}"></progress> '
        title = html.escape(self._epoch_title)
        page = f'<pre style="margin: 0">{title}\n{bar}{html.escape(line)}</pre>'
        return {"text/plain": plain, "text/html": page}

    def _draw(self, text: str) -> None:
        line = f"{self._bar_text()} - {text}" if text else self._bar_text()
        if self._handle is not None:
            self._handle.update(self._rich(line), raw=True)
            return
        pad = max(self._line_len - len(line), 0)
        self._line_len = len(line)
        self._write("\r" + line + " " * pad)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self._verbosity() <= 0:
            return
        logs = logs or {}
        elapsed = time.perf_counter() - self._epoch_start
        steps = self._done or 1
        self.last_time_text = f"{elapsed:.0f}s {_format_step_time(elapsed / steps)}"
        metrics = format_metrics(logs, self._all_keys(logs))
        text = self.last_time_text + (f" - {metrics}" if metrics else "")
        if self._live:
            if self._bar is not None:
                if self._bar.total is None or self._bar.n < self._bar.total:
                    self._bar.total = self._bar.n
                self._bar.set_description_str(text, refresh=True)
                self._bar.close()
                self._bar = None
            elif self._handle is not None:
                self._draw(text)
                self._handle = None
            else:
                self._draw(text)
                self._write("\n")
        else:
            self._write(f"Epoch {epoch + 1}/{self.params.get('epochs')} - {text}\n")

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


CallbackConstructorRegistry.register_callback_constructor(1, ProgbarLogger)
