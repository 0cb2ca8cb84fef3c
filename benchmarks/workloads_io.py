"""Model-loading workload for ``benchmarks/run.py``: ``tf.load_layers_model`` on a ~50 MB
layers model saved in 4 MB shards (``group1-shardKofN.bin``), against the time to read the
same files' bytes (the "numpy" column: ``readinto`` each shard into one buffer, which is the
least any loader must do). Target: tidytensor within 2x of the raw read. Each tidytensor call
loads the model, checks its weight count and disposes it (so memory stays flat).

Registered from ``run.py`` with::

    from workloads_io import register as _register_io  # noqa: E402
    _register_io(workload, Workload)
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from typing import Any

#: 12 Dense(1024) layers on a 1024-wide input: 12 * (1024 * 1024 + 1024) float32 = 50.4 MB.
WIDTH, DEPTH = 1024, 12
SHARD = 4 * 1024 * 1024
_FOLDER: dict[bool, str] = {}


def _model_dir(tf: Any, quick: bool) -> str:
    """Saves the benchmark model once per process (deterministic weights) and returns its folder."""
    if quick in _FOLDER:
        return _FOLDER[quick]
    import numpy as np

    from tidytensor import io, layers  # noqa: F401 - io: tf.io

    depth = 3 if quick else DEPTH
    model = layers.models.sequential(name="bench")
    for i in range(depth):
        kwargs = {"input_shape": [WIDTH]} if i == 0 else {}
        model.add(layers.dense(units=WIDTH, activation="relu", name=f"bench_d{i}", **kwargs))
    rng = np.random.default_rng(7)
    values = [
        tf.tensor(rng.standard_normal(w.shape, dtype=np.float32) * 0.03) for w in model.weights
    ]
    model.set_weights(values)
    tf.dispose(values)
    folder = tempfile.mkdtemp(prefix="tidytensor-io-bench-")
    atexit.register(shutil.rmtree, folder, True)
    tf.io.save_model(model, os.path.join(folder, "m"), shard_size_bytes=SHARD)
    model.dispose()
    _FOLDER[quick] = os.path.join(folder, "m")
    return _FOLDER[quick]


def _shards(folder: str) -> list[str]:
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".bin"))


def _load(quick: bool, Workload: Any) -> Any:
    state: dict[str, Any] = {}

    def tidytensor_runner(tf: Any) -> Any:
        folder = _model_dir(tf, quick)
        state["folder"] = folder
        load = tf.io.load_layers_model
        n_weights = 2 * (3 if quick else DEPTH)
        baseline = tf.memory().num_tensors

        def run() -> None:
            model = load(folder)
            if len(model.weights) != n_weights:
                raise AssertionError("wrong number of weights loaded")
            model.dispose()
            if tf.memory().num_tensors != baseline:
                raise AssertionError("loading and disposing leaked tensors")

        return run

    def numpy_runner(np: Any) -> Any:
        import tidytensor as tf

        files = _shards(_model_dir(tf, quick))
        total = sum(os.path.getsize(f) for f in files)

        def run() -> None:
            buf = np.empty(total, dtype=np.uint8)
            view = memoryview(buf)
            offset = 0
            for path in files:
                with open(path, "rb", buffering=0) as f:
                    while True:
                        n = f.readinto(view[offset:])
                        if not n:
                            break
                        offset += n
            buf.view(np.float32)  # the bytes, as float32 values

        return run

    size_mb = (3 if quick else DEPTH) * (WIDTH * WIDTH + WIDTH) * 4 / 1e6
    return Workload(
        name=f"load_layers_model {size_mb:.0f} MB in 4 MB shards",
        group="model io",
        unit_name="load",
        report_unit="ms",
        work_items=1,
        repeats=5 if quick else 11,
        runners={"tidytensor": tidytensor_runner, "numpy": numpy_runner},
        notes="tidytensor: parse model.json, check files, build the model, decode and set "
        "every weight, then dispose; numpy column: read the shard bytes only (target <= 2x)",
    )


def register(workload: Any, Workload: Any) -> None:
    """Registers the model-loading workload with ``run.py``'s ``@workload`` decorator."""

    @workload
    def load_layers_model_50mb(quick: bool) -> Any:
        return _load(quick, Workload)
