"""fit(verbose=1) inside a Jupyter kernel (IPython imported, its shell attached to a kernel):
one display output per epoch, redrawn in place through display updates, never carriage
returns. Here IPython's ``display`` is a stand-in that records the calls; tests/test_notebooks.py
runs a real notebook."""

from __future__ import annotations

import sys
import types

import pytest

import tidytensor as tf
from tidytensor.layers.training import progress


class FakeHandle:
    def __init__(self, log: list, index: int):
        self.log, self.index = log, index

    def update(self, data: dict, raw: bool = False) -> None:
        assert raw
        self.log[self.index] = data


@pytest.fixture
def kernel(monkeypatch):
    """A stand-in IPython with a kernel: returns the list of what each output shows now."""
    shown: list[dict] = []

    def display(data: dict, raw: bool = False, display_id: bool = False) -> FakeHandle:
        assert raw and display_id
        shown.append(data)
        return FakeHandle(shown, len(shown) - 1)

    shell = types.SimpleNamespace(kernel=object())
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: shell
    display_module = types.ModuleType("IPython.display")
    display_module.display = display
    ipython.display = display_module
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", display_module)
    return shown


def test_notebook_display_needs_a_kernel(monkeypatch):
    shell = types.SimpleNamespace(kernel=None)  # a terminal IPython: no kernel
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: shell
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    assert progress.notebook_display() is None
    monkeypatch.delitem(sys.modules, "IPython")
    assert progress.notebook_display() is None


def test_fit_in_a_kernel_redraws_one_output_per_epoch(kernel, capsys):
    model = tf.sequential()
    model.add(tf.layers.dense(units=2, input_shape=[3]))
    model.compile(optimizer="sgd", loss="meanSquaredError")
    x, y = tf.ones([12, 3]), tf.zeros([12, 2])
    model.fit(x, y, epochs=2, batch_size=4, verbose=1)
    tf.dispose([x, y])
    model.dispose()
    assert capsys.readouterr().out == ""  # nothing printed: all of it is in the outputs
    assert len(kernel) == 2
    for epoch, shown in enumerate(kernel, 1):
        title, line = shown["text/plain"].split("\n")
        assert title == f"Epoch {epoch}/2"
        assert line.startswith("3/3 [" + "=" * 30 + "] - ") and "loss: " in line
        assert '<progress value="3" max="3"></progress>' in shown["text/html"]
        assert "\r" not in shown["text/plain"] + shown["text/html"]


def test_verbose_2_in_a_kernel_prints_a_line_per_epoch(kernel, capsys):
    model = tf.sequential()
    model.add(tf.layers.dense(units=1, input_shape=[2]))
    model.compile(optimizer="sgd", loss="meanSquaredError")
    x, y = tf.ones([4, 2]), tf.zeros([4, 1])
    model.fit(x, y, epochs=2, batch_size=2, verbose=2)
    tf.dispose([x, y])
    model.dispose()
    assert kernel == []
    assert capsys.readouterr().out.count("\n") == 2
