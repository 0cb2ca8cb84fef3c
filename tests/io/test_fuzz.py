"""Fuzzing the loader with mutated real artifacts: whatever the mutation, a load either
succeeds or raises one of tidytensor's own errors, and tf.memory() returns to its baseline
(after dispose, when the load succeeded).

The address space is capped while the fuzzer runs, so a mutated topology asking for a
gigantic layer fails fast (MemoryError -> ModelTooLargeError) instead of swapping.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import sys
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from io_test_helpers import (  # noqa: F401 - autouse fixtures
    GOLDEN_IO,
    fresh_layer_names,
    memory_counts,
    missing_layer_classes,
    private_model_store,
)

import tidytensor as tf

CANDIDATES = [
    "dense",
    "sharded_groups",
    "functional_multi_io",
    "nested",
    "keras_converted",
    "keras3_vars",
    "compiled_adam",
    "quantized_uint8",
    "quantized_float16",
    "core_layers",
    # These join as their layer families land:
    "conv2d",
    "lstm",
    "bidirectional_lstm",
    "batch_normalization",
    "embedding",
    "merge",
]
BASES = [n for n in CANDIDATES if not missing_layer_classes(GOLDEN_IO / n)]
#: More examples for a longer run: TIDYTENSOR_FUZZ_EXAMPLES=5000 pytest tests/io/test_fuzz.py
SCALE = int(os.environ.get("TIDYTENSOR_FUZZ_EXAMPLES", "250")) / 250

INTERESTING = st.sampled_from(
    [
        "../x.bin",
        "/etc/passwd",
        "http://127.0.0.1:9/x",
        "Dense",
        "Sequential",
        "Model",
        "float32",
        "int32",
        "string",
        "complex64",
        "bool",
        "uint8",
        "uint16",
        "float16",
        "optimizer",
        "model_config",
        "layers-model",
        "graph-model",
        "relu",
        "",
    ]
)
JSON_LEAF = (
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.integers(-3, 40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
    | INTERESTING
)
JSON_VALUE = st.recursive(
    JSON_LEAF,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(max_size=6) | INTERESTING, children, max_size=3)
    ),
    max_leaves=6,
)


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, (*prefix, i))


def _mutate_json(obj, path, kind, value):
    if not path:
        return value if kind == "replace" else obj
    parent = obj
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    if kind == "replace":
        parent[key] = value
    elif kind == "delete":
        del parent[key]
    elif kind == "duplicate" and isinstance(parent, list):
        parent.insert(key, json.loads(json.dumps(parent[key])))
    elif kind == "wrap":
        parent[key] = [parent[key]]
    return obj


@contextlib.contextmanager
def _address_space_cap(extra_bytes: int):
    if sys.platform != "linux":
        yield
        return
    import resource

    with open("/proc/self/statm") as f:
        vm = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = vm + extra_bytes
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _load_and_check(folder: Path, strict: bool) -> None:
    before = memory_counts()
    variables_before = {id(v) for v in tf.engine().state.registered_variables.values()}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = tf.io.load_layers_model(str(folder), strict=strict)
    except tf.TidyTensorError as exc:
        event(f"error: {type(exc).__name__}")
        assert memory_counts() == before
        assert {id(v) for v in tf.engine().state.registered_variables.values()} == variables_before
        return
    event("loaded")
    with contextlib.suppress(tf.TidyTensorError):  # a mutated model may not dispose cleanly
        model.dispose()
    # A layer applied twice keeps its weights after one dispose (as in TF.js): free them.
    for v in list(tf.engine().state.registered_variables.values()):
        if id(v) not in variables_before:
            v.dispose()
    assert memory_counts() == before


@pytest.mark.skipif(not BASES, reason="no fixture loads yet")
@settings(
    max_examples=int(250 * SCALE),
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=SCALE == 1,
)
@given(
    base=st.sampled_from(BASES or ["dense"]),
    where=st.integers(0, 10**6),
    kind=st.sampled_from(["replace", "replace", "replace", "delete", "duplicate", "wrap"]),
    value=JSON_VALUE,
    strict=st.booleans(),
)
def test_fuzz_model_json(base, where, kind, value, strict):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "m"
        shutil.copytree(GOLDEN_IO / base, folder)
        obj = json.loads((folder / "model.json").read_text())
        paths = list(_paths(obj))
        path = paths[where % len(paths)]
        try:
            obj = _mutate_json(obj, path, kind, value)
        except (KeyError, IndexError, TypeError):
            return
        (folder / "model.json").write_text(json.dumps(obj, allow_nan=True))
        with _address_space_cap(3 * 1024**3):
            _load_and_check(folder, strict)


@pytest.mark.skipif(not BASES, reason="no fixture loads yet")
@settings(
    max_examples=int(150 * SCALE),
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=SCALE == 1,
)
@given(
    base=st.sampled_from(BASES or ["dense"]),
    which=st.integers(0, 1000),
    kind=st.sampled_from(["truncate", "extend", "flip", "delete", "empty", "garbage_json"]),
    amount=st.integers(0, 5000),
    seed=st.integers(0, 2**32 - 1),
)
def test_fuzz_weight_files(base, which, kind, amount, seed):
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "m"
        shutil.copytree(GOLDEN_IO / base, folder)
        files = sorted(p for p in folder.iterdir() if p.suffix == ".bin")
        target = files[which % len(files)]
        data = target.read_bytes()
        if kind == "truncate":
            target.write_bytes(data[: amount % (len(data) + 1)])
        elif kind == "extend":
            target.write_bytes(data + bytes(rng.randrange(256) for _ in range(amount % 64 + 1)))
        elif kind == "flip" and data:
            buf = bytearray(data)
            for _ in range(amount % 16 + 1):
                buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
            target.write_bytes(bytes(buf))
        elif kind == "delete":
            target.unlink()
        elif kind == "empty":
            target.write_bytes(b"")
        elif kind == "garbage_json":
            text = (folder / "model.json").read_bytes()
            cut = amount % (len(text) + 1)
            (folder / "model.json").write_bytes(
                text[:cut] + bytes(rng.randrange(256) for _ in range(8)) + text[cut + 8 :]
            )
        with _address_space_cap(3 * 1024**3):
            _load_and_check(folder, True)
