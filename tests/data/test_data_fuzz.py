"""Random tf.data pipelines against TF.js 4.22 (tests/golden/data_fuzz.js -> data_fuzz.json).

Each case is a spec: a source (``array``/``generator`` of numbers, lists, dicts, tensors;
``zip`` of lists/dicts/nests of datasets; ``concatenate``; ``csv`` over generated text) and
a chain of ops (``map``/``map_async``/``filter`` with functions from the small library
below, the same as data_fuzz.js's, ``batch``, seeded ``shuffle``, ``take``, ``skip``,
``repeat``, ``prefetch``), consumed by ``to_array`` (once or twice), ``iterator().next()``
or ``for_each_async``. Compared: size, every element (structure, key order, dtype, shape,
values; shuffled orders exactly), next() results past the end, errors, and tf.memory()
counts. What is kept out of the generator, and why, is listed at the top of data_fuzz.js.

Another seed: ``node tests/golden/data_fuzz.js 777 /tmp/f.json`` then
``DATA_FUZZ_JSON=/tmp/f.json pytest tests/data/test_data_fuzz.py``.
"""

from __future__ import annotations

import gc
import json
import math
import os
import re
from pathlib import Path

import numpy as np
import pytest

import tidytensor as tf
import tidytensor.data as tfd

_PATH = os.environ.get("DATA_FUZZ_JSON") or (
    Path(__file__).parents[1] / "golden" / "results" / "data_fuzz.json"
)
GOLDEN = json.loads(Path(_PATH).read_text())


# ---------------------------------------------------------------------- element kinds
def make_element(kind, i):
    if kind == "num":
        return i * 2 - 3
    if kind == "vec":
        return [i, i + 1, 2 * i]
    if kind == "obj":
        return {"b": i, "a": [i, -i], "c": {"d": i + 0.5}}
    if kind == "mixed":
        return {"f": i % 2 == 0, "s": f"s{i}", "n": i}
    if kind == "tensor":
        return tf.tensor2d([[i, i + 1], [i * 2, -i]])
    if kind == "itensor":
        return tf.tensor1d([i, i * 3], "int32")
    if kind == "objt":
        return {"x": tf.tensor1d([i, i + 1]), "y": tf.scalar(i, "int32")}
    raise ValueError(kind)


# ---------------------------------------------------------------------- function library
def leaf_map(x, fnum, ften):
    if isinstance(x, tf.Tensor):
        return ften(x)
    if isinstance(x, bool):
        return x
    if isinstance(x, (int, float)):
        return fnum(x)
    if isinstance(x, list):
        return [leaf_map(v, fnum, ften) for v in x]
    if isinstance(x, dict):
        return {k: leaf_map(v, fnum, ften) for k, v in x.items()}
    return x


def first_num(x):
    if isinstance(x, tf.Tensor):
        if x.size and x.dtype != "string":
            return float(x.data_sync()[0])
        return None
    if isinstance(x, bool):
        return None
    if isinstance(x, (int, float)):
        return x
    if isinstance(x, (list, dict)):
        for v in x.values() if isinstance(x, dict) else x:
            r = first_num(v)
            if r is not None:
                return r
    return None


def first_num_or0(x):
    r = first_num(x)
    return 0 if r is None else r


def _unwrap(x):
    if isinstance(x, list):
        return x[0]
    if isinstance(x, dict):
        return next(iter(x.values()))
    return x


MAPS = {
    "scale": lambda x: leaf_map(x, lambda v: v * 3 - 1, lambda t: t.mul(3).sub(1)),
    "square": lambda x: leaf_map(x, lambda v: v * v, lambda t: t.square()),
    "tensorize": lambda x: leaf_map(x, tf.scalar, lambda t: t),
    "tensorize_int": lambda x: leaf_map(x, lambda v: tf.scalar(v, "int32"), lambda t: t.to_int()),
    "sum": lambda x: leaf_map(x, lambda v: v + 1, lambda t: t.sum()),
    "flatten": lambda x: leaf_map(x, lambda v: [v, -v], lambda t: t.reshape([-1])),
    "wrap_obj": lambda x: {"v": x, "k": first_num_or0(x)},
    "unwrap": _unwrap,
    "pair": lambda x: [x, leaf_map(x, lambda v: v + 1, lambda t: t.add(1))],
    "to_float": lambda x: leaf_map(x, lambda v: v / 2, lambda t: t.to_float().div(2)),
}


def _js_mod(v, m):
    """JS's ``v % m`` (NaN for a non-finite ``v``)."""
    return math.fmod(v, m) if math.isfinite(v) else math.nan


FILTERS = {
    "mod3": lambda x: _js_mod(first_num_or0(x), 3) != 0,
    "gt2": lambda x: first_num_or0(x) > 2,
    "even_int": lambda x: (
        _js_mod(math.floor(v) if math.isfinite(v := first_num_or0(x)) else v, 2) == 0
    ),
}


# ---------------------------------------------------------------------- building
class Builder:
    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.n_csv = 0

    def source(self, src):
        t = src["type"]
        if t == "array":
            return tfd.array([make_element(src["kind"], src["start"] + i) for i in range(src["n"])])
        if t == "gen":

            def gen():
                for i in range(src["n"]):
                    yield make_element(src["kind"], src["start"] + i)

            return tfd.generator(gen)
        if t == "zip":
            ds = [self.source(p) for p in src["parts"]]
            if src["form"] == "array":
                return tfd.zip(ds)
            if src["form"] == "object":
                return tfd.zip({f"p{len(ds) - i}": d for i, d in enumerate(ds)})
            return tfd.zip({"a": ds[0], "b": [ds[1], {"c": ds[2]}]})
        if t == "concat":
            return self.source(src["parts"][0]).concatenate(self.source(src["parts"][1]))
        if t == "csv":
            self.n_csv += 1
            path = self.tmp_path / f"f{self.n_csv}.csv"
            path.write_text(src["text"], newline="")
            return tfd.csv(path, src["config"])
        raise ValueError(t)

    @staticmethod
    def ops(ds, ops):
        for o in ops:
            op = o["op"]
            if op == "map":
                ds = ds.map(MAPS[o["fn"]])
            elif op == "mapAsync":
                f = MAPS[o["fn"]]

                async def g(x, f=f):
                    return f(x)

                ds = ds.map_async(g)
            elif op == "filter":
                ds = ds.filter(FILTERS[o["fn"]])
            elif op == "batch":
                ds = ds.batch(o["size"], o["small"])
            elif op == "shuffle":
                ds = ds.shuffle(o["buf"], o["seed"], o.get("reshuffle", True))
            elif op == "take":
                ds = ds.take(o["n"])
            elif op == "skip":
                ds = ds.skip(o["n"])
            elif op == "repeat":
                ds = ds.repeat() if o["n"] is None else ds.repeat(o["n"])
            elif op == "prefetch":
                ds = ds.prefetch(o["buf"])
            else:
                raise ValueError(op)
        return ds


# ---------------------------------------------------------------------- comparing
def _numbers(values):
    """Tensor values from JSON: non-finite numbers come as "Infinity", "-Infinity", "NaN"."""
    if isinstance(values, list):
        return [_numbers(v) for v in values]
    return float(values) if isinstance(values, str) else values


def assert_same(got, want, where):
    if isinstance(want, dict) and "tensor" in want:
        assert isinstance(got, tf.Tensor), f"{where}: should be a tensor, got {got!r}"
        spec = want["tensor"]
        assert got.shape == spec["shape"], f"{where}: shape {got.shape} != {spec['shape']}"
        assert got.dtype == spec["dtype"], f"{where}: dtype {got.dtype} != {spec['dtype']}"
        if got.dtype == "string":
            g = np.asarray(got.array_sync(), dtype=object).reshape(-1).tolist()
            w = np.asarray(spec["values"], dtype=object).reshape(-1).tolist()
            assert g == w, f"{where}: values {g} != {w}"
        else:
            np.testing.assert_allclose(
                np.asarray(got.array_sync(), dtype=np.float64),
                np.asarray(_numbers(spec["values"]), dtype=np.float64),
                rtol=1e-6,
                err_msg=f"{where}: values",
            )
        return
    if isinstance(want, dict) and "object" in want:
        assert isinstance(got, dict), f"{where}: should be a dict, got {got!r}"
        assert list(got) == want["keys"], f"{where}: keys {list(got)} != {want['keys']}"
        for k in want["keys"]:
            assert_same(got[k], want["object"][k], f"{where}[{k!r}]")
        return
    if isinstance(want, list):
        assert isinstance(got, (list, tuple)), f"{where}: should be a list, got {got!r}"
        assert len(got) == len(want), f"{where}: length {len(got)} != {len(want)}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_same(g, w, f"{where}[{i}]")
        return
    if want is None or want == {"undefined": True}:
        # A JS generator's last result has value undefined, an array's null: both None here.
        assert got is None, f"{where}: {got!r} != None"
        return
    if isinstance(want, str) and want in ("Infinity", "-Infinity", "NaN"):
        want = float(want)
        assert isinstance(got, float) and (got == want or (math.isnan(got) and math.isnan(want)))
        return
    if isinstance(want, bool) or isinstance(want, str):
        assert got == want and type(got) is type(want), f"{where}: {got!r} != {want!r}"
        return
    assert isinstance(got, (int, float)) and not isinstance(got, bool), f"{where}: {got!r}"
    assert got == pytest.approx(want, rel=1e-12), f"{where}: {got!r} != {want!r}"


def _size(v):
    return math.inf if v == "Infinity" else v


def _describe(case):
    return f"case {case['id']} ({case['mode']}): {json.dumps(case['source'])[:300]} | {json.dumps(case['ops'])}"


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda c: f"case{c['id']}")
def test_fuzz_pipeline(case, tmp_path):
    want = case["expected"]
    what = _describe(case)
    b = Builder(tmp_path)
    before0 = tf.memory().num_tensors
    if "build_error" in want:
        with pytest.raises(Exception):  # noqa: B017, PT011 - any error, as TF.js raised
            Builder.ops(b.source(case["source"]), case["ops"])
        return
    ds = Builder.ops(b.source(case["source"]), case["ops"])
    if want["size_comparable"]:
        assert ds.size == _size(want["size"]), f"{what}: size {ds.size} != {want['size']}"
    if case["source"]["type"] == "csv":
        if "column_names_error" in want:
            with pytest.raises(Exception):  # noqa: B017, PT011
                b.source(case["source"]).column_names()
        else:
            assert b.source(case["source"]).column_names() == want["column_names"], what
    before = tf.memory().num_tensors
    assert before - before0 == want["source_tensors"], what
    held = []
    error = None
    it = None
    try:
        if case["mode"] in ("toArray", "twice"):
            # TF.js 4.22 reshuffles even with reshuffle_each_iteration=False; we keep the
            # first iteration's order (its first order is ours).
            fixed = any(o.get("reshuffle") is False for o in case["ops"])
            for r, run in enumerate(want.get("runs", [])):
                els = ds.to_array()
                held.append(els)
                if r == 0 or not fixed:
                    assert_same(els, run, f"{what}: run {r}")
            if "error" in want:
                els = ds.to_array()
                held.append(els)
        elif case["mode"] == "iter":
            it = ds.iterator()
            for k, step in enumerate(want.get("steps", [])):
                res = it.next()
                held.append(res.value)
                assert res.done == step["done"], f"{what}: step {k} done"
                assert_same(res.value, step["value"], f"{what}: step {k}")
            if "error" in want:
                held.append(it.next().value)
        else:
            seen = []

            def look(x):
                k = len(seen)
                seen.append(k)
                assert k < len(want["seen"]), f"{what}: too many elements"
                assert_same(x, want["seen"][k], f"{what}: element {k}")

            ds.for_each_async(look)
            assert len(seen) == len(want["seen"]), what
    except AssertionError:
        raise
    except Exception as e:  # noqa: BLE001 - compared with TF.js's below
        error = e
    if "error" in want:
        assert error is not None, f"{what}: TF.js raised {want['error']!r}; we did not"
    elif error is not None:
        raise error
    after_iter = tf.memory().num_tensors - before
    tf.dispose(held)
    after_dispose = tf.memory().num_tensors - before
    # A stopped iterator still holds what its stages buffered; a prefetch stage's read-ahead
    # (a thread here, pending promises in TF.js) is no fixed count: only the end is checked.
    read_ahead = case["mode"] == "iter" and any(o["op"] == "prefetch" for o in case["ops"])
    if error is None and not read_ahead:
        if want["mem_after_dispose"] == 0:
            assert after_iter == want["mem_after_iter"], f"{what}: tensors handed out"
            assert after_dispose == 0, f"{what}: leaked"
        elif case["mode"] != "iter":
            # TF.js leaks there (concatenate clones its sources' tensors, see data_fuzz.js);
            # we must not.
            assert after_iter == want["mem_after_iter"] - want["mem_after_dispose"], what
            assert after_dispose == 0, f"{what}: leaked"
        # else: a stopped TF.js iterator holds its buffers' elements as promises, resolved or
        # not by the time it is counted; only the end (all freed on close) is checked.
    if it is not None:
        it.close()
    del it
    gc.collect()
    assert tf.memory().num_tensors - before == 0, f"{what}: leaked after closing"


# ---------------------------------------------------------------------- errors
def _csv(tmp_path, text, **config):
    path = tmp_path / "e.csv"
    path.write_text(text, newline="")
    return tfd.csv(path, **config)


ERRORS = {
    "batch_zero": lambda p: tfd.array([1, 2]).batch(0).to_array(),
    "batch_negative": lambda p: tfd.array([1, 2]).batch(-2).to_array(),
    "shuffle_negative": lambda p: tfd.array([1, 2]).shuffle(-1),
    "zip_number": lambda p: tfd.zip(3),
    "zip_leaf_number": lambda p: tfd.zip({"a": tfd.array([1]), "b": 2}).to_array(),
    "to_array_infinite": lambda p: tfd.array([1]).repeat().to_array(),
    "csv_wrong_count": lambda p: _csv(p, "a,b\n1,2\n3\n").to_array(),
    "csv_wrong_count_many": lambda p: _csv(p, "a;b\n1;2;3\n", delimiter=";").to_array(),
    "csv_required_empty": lambda p: _csv(
        p, "a,b\n1,\n", column_configs={"b": {"required": True}}
    ).to_array(),
    "csv_label_empty": lambda p: _csv(
        p, "a,b\n,2\n", column_configs={"a": {"is_label": True}}
    ).to_array(),
    "csv_bad_config_key": lambda p: _csv(
        p, "a,b\n1,2\n", column_configs={"c": {"is_label": True}}
    ).to_array(),
    "csv_names_mismatch": lambda p: _csv(p, "a,b\n1,2\n", column_names=["a", "b", "c"]).to_array(),
    "csv_duplicate_names": lambda p: _csv(
        p, "1,2\n", has_header=False, column_names=["a", "a"]
    ).to_array(),
    "csv_no_names": lambda p: _csv(p, "1,2\n", has_header=False).to_array(),
    "csv_delim_and_whitespace": lambda p: _csv(
        p, "a b\n1 2\n", delim_whitespace=True, delimiter=";"
    ).to_array(),
    "batch_mismatched_tensors": lambda p: (
        tfd.array([tf.tensor1d([1, 2]), tf.tensor1d([3])]).batch(2).to_array()
    ),
}

#: TF.js's message -> the part of it we must say too (snake_case names; CSV row errors add
#: the file and line, and show the row as a list).
_GIST = [
    (
        r"batchSize needs to be positive, but it is\s+(-?\d+)",
        r"batch_size needs to be positive, but it is \1",
    ),
    (
        r"`Dataset.shuffle\(\)` requires bufferSize to be specified\..*",
        "`Dataset.shuffle()` requires buffer_size to be specified.",
    ),
    (r"Invalid row in csv file\. (Should have \d+ elements in a row, but got )(.*)", r"\1"),
    (r"(Required column \w+ is empty in) this line: .*", r"\1"),
    (r"provided in columnConfigs", "provided in column_configs"),
    (r"provided columnNames", "provided column_names"),
    (r"when delimWhitespace is true", "when delim_whitespace is True"),
    (r"All tensors passed to stack must have matching shapes.*", "shape"),
]


def _gist(message: str) -> str:
    for pattern, repl in _GIST:
        message = re.sub(pattern, repl, message, flags=re.S)
    return re.sub(r"\s+", " ", message)


def test_every_error_case_is_built_here():
    assert set(ERRORS) == set(GOLDEN["errors"])


@pytest.mark.parametrize("name", sorted(GOLDEN["errors"]))
def test_fuzz_error_message(name, tmp_path):
    want = GOLDEN["errors"][name]
    assert want is not None, name
    with pytest.raises(tf.TidyTensorError) as info:
        ERRORS[name](tmp_path)
    assert _gist(want) in re.sub(r"\s+", " ", str(info.value)), (want, str(info.value))
