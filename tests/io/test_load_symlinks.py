"""Symbolic links and files swapped while a model loads: nothing outside the model directory is
ever read, and every refusal is one of tidytensor's own errors naming the file."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest
from io_test_helpers import (  # noqa: F401 - autouse fixtures
    dense_model,
    fresh_layer_names,
    private_model_store,
)

import tidytensor as tf
from tidytensor.io import IOHandlerError, ModelFormatError

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")

#: A byte value the real weights do not contain long runs of.
OUTSIDE_BYTE = 0xAB


@pytest.fixture
def saved(tmp_path):
    model = dense_model()
    folder = tmp_path / "m"
    tf.io.save_model(model, str(folder), shard_size_bytes=None)
    model.dispose()
    return folder


#: Loads raced against the flipping thread.
LOADS = 200


def _flip(shard, outside, good, stop, flips):
    """Swaps ``shard`` between the real weights and a link to ``outside`` until ``stop``,
    counting the swaps in ``flips[0]``."""
    link, copy = str(shard) + ".link", str(shard) + ".copy"
    while not stop.is_set():
        os.symlink(outside, link)
        os.replace(link, shard)
        os.link(good, copy)
        os.replace(copy, shard)
        flips[0] += 1


def test_shard_swapped_for_a_symlink_is_never_read(saved, tmp_path):
    shard = saved / "weights.bin"
    good = tmp_path / "good.bin"  # a second name for the real weights (a hard link)
    os.link(shard, good)
    outside = tmp_path / "outside.bin"
    outside.write_bytes(bytes([OUTSIDE_BYTE]) * shard.stat().st_size)
    marker = bytes([OUTSIDE_BYTE]) * 8
    stop = threading.Event()
    flips = [0]
    flipper = threading.Thread(
        target=_flip, args=(shard, outside, good, stop, flips), daemon=True
    )
    loaded = refused = 0
    other: list[BaseException] = []
    flipper.start()
    try:
        # A number of loads raced against a number of swaps, not a time window: a slow
        # machine makes as many of each.
        while loaded + refused + len(other) < LOADS or flips[0] < LOADS:
            try:
                artifacts = tf.io.file_system(str(saved)).load()
            except (ModelFormatError, IOHandlerError):
                refused += 1
                continue
            except BaseException as exc:  # noqa: BLE001 - collected and asserted below
                other.append(exc)
                continue
            data = b"".join(bytes(memoryview(b)) for b in artifacts.weight_data)
            assert marker not in data, "bytes of a file outside the model directory were read"
            loaded += 1
    finally:
        stop.set()
        flipper.join()
    assert not other, f"errors that are not tidytensor's: {other[:3]!r}"
    assert loaded + refused >= LOADS


def test_model_json_symlink_outside_is_refused(saved, tmp_path):
    outside = tmp_path / "elsewhere.json"
    os.replace(saved / "model.json", outside)
    os.symlink(outside, saved / "model.json")
    with pytest.raises(ModelFormatError, match="model.json .* outside the model directory"):
        tf.io.load_layers_model(str(saved))
    with pytest.raises(ModelFormatError, match="outside the model directory"):
        tf.io.load_layers_model(str(saved / "model.json"))


def test_model_json_symlink_inside_loads(saved):
    os.replace(saved / "model.json", saved / "v2.json")
    os.symlink("v2.json", saved / "model.json")
    model = tf.io.load_layers_model(str(saved))
    assert len(model.weights) == 4
    model.dispose()


def test_shard_symlink_inside_loads(saved):
    os.replace(saved / "weights.bin", saved / "real.bin")
    os.symlink("real.bin", saved / "weights.bin")
    model = tf.io.load_layers_model(str(saved))
    reference = dense_model(name="m")
    for a, b in zip(model.weights, reference.weights, strict=True):
        np.testing.assert_array_equal(a.read().numpy(), b.read().numpy())
    model.dispose()
    reference.dispose()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_model_json_fifo_is_refused_without_blocking(saved):
    os.unlink(saved / "model.json")
    os.mkfifo(saved / "model.json")
    with pytest.raises(ModelFormatError, match="not a regular file"):
        tf.io.load_layers_model(str(saved))


def test_a_failing_realpath_is_a_tidytensor_error(saved, monkeypatch):
    """realpath can fail (EINVAL) when a link is swapped while it is resolved."""
    real = os.path.realpath

    def flaky(path, *args, **kwargs):
        if str(path).endswith("weights.bin"):
            raise OSError(22, "Invalid argument", str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os.path, "realpath", flaky)
    with pytest.raises(
        IOHandlerError, match=r"model.json: cannot resolve weight file .*weights.bin"
    ):
        tf.io.load_layers_model(str(saved))
