"""tf.data pipelines against TF.js 4.22 (tests/golden/data.js -> results/data.json).

Each case builds here the pipeline data.js builds under the same name, and checks the
dataset's ``size``, every element of ``to_array()`` (tensors: shape, dtype, values; dicts:
key order too) and how many tensors ``to_array()`` handed over (``num_tensors`` delta).
Seeded shuffles are compared exactly (the order is TF.js's).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

import tidytensor as tf
import tidytensor.data as tfd

GOLDEN = json.loads((Path(__file__).parents[1] / "golden" / "results" / "data.json").read_text())
FIXTURES = Path(__file__).parent / "fixtures"

PEOPLE_CONFIG = {
    "column_configs": {
        "age": {"dtype": "int32", "default": 30},
        "member": {"dtype": "bool"},
        "city": {"default": "unknown"},
        "label": {"is_label": True},
    }
}


def people():
    return tfd.csv(FIXTURES / "people.csv", **PEOPLE_CONFIG)


def gen_dicts():
    for i in range(5):
        yield {"x": i, "y": [i, i * 2]}


def gen_tensors():
    for i in range(5):
        yield tf.tensor1d([i, i + 1])


r = lambda a, b: list(range(a, b))  # noqa: E731

CASES = {
    "array_numbers": lambda: tfd.array([1, 2, 3]),
    "batch_numbers": lambda: tfd.array(r(1, 9)).batch(3),
    "batch_numbers_drop_last": lambda: tfd.array(r(1, 9)).batch(3, False),
    "batch_exact": lambda: tfd.array(r(1, 9)).batch(4),
    "batch_arrays": lambda: tfd.array([[i] for i in r(1, 9)]).batch(4),
    "batch_nested_arrays": lambda: tfd.array(
        [[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]]
    ).batch(2),
    "batch_objects": lambda: tfd.array([{"a": i, "b": 10 + i} for i in r(1, 9)]).batch(4),
    "batch_nested_objects": lambda: tfd.array(
        [
            {"x": {"p": [1, 2], "q": 3}, "y": 1},
            {"x": {"p": [4, 5], "q": 6}, "y": 0},
            {"x": {"p": [7, 8], "q": 9}, "y": 1},
        ]
    ).batch(2),
    "batch_bools": lambda: tfd.array([True, False, True]).batch(2),
    "batch_strings": lambda: tfd.array(["a", "b", "c"]).batch(2),
    "batch_tensors": lambda: tfd.array(
        [tf.tensor1d([1, 2]), tf.tensor1d([3, 4]), tf.tensor1d([5, 6])]
    ).batch(2),
    "batch_int_tensors": lambda: tfd.array(
        [tf.tensor2d([[1, 2]], [1, 2], "int32"), tf.tensor2d([[3, 4]], [1, 2], "int32")]
    ).batch(2),
    "batch_tensor_objects": lambda: tfd.array(
        [
            {"xs": tf.tensor1d([1, 2]), "ys": tf.scalar(0)},
            {"xs": tf.tensor1d([3, 4]), "ys": tf.scalar(1)},
            {"xs": tf.tensor1d([5, 6]), "ys": tf.scalar(0)},
        ]
    ).batch(2),
    "array_tensors": lambda: tfd.array([tf.tensor1d([1, 2]), tf.tensor1d([3, 4])]),
    "map_numbers": lambda: tfd.array([1, 2, 3]).map(lambda x: x * x),
    "map_to_tensors_batch": lambda: (
        tfd.array([1, 2, 3]).map(lambda x: tf.scalar(x).mul(2).add(1)).batch(2)
    ),
    "map_tensors": lambda: tfd.array([tf.tensor1d([1, 2]), tf.tensor1d([3, 4])]).map(
        lambda t: t.square().sum()
    ),
    "filter_even": lambda: tfd.array(r(1, 11)).filter(lambda x: x % 2 == 0),
    "filter_tensors": lambda: tfd.array([tf.scalar(1), tf.scalar(-2), tf.scalar(3)]).filter(
        lambda t: t.data_sync()[0] > 0
    ),
    "skip_take": lambda: tfd.array(r(1, 7)).skip(2).take(3),
    "take_more": lambda: tfd.array([1, 2, 3]).take(10),
    "take_zero": lambda: tfd.array([1, 2, 3]).take(0),
    "take_negative": lambda: tfd.array([1, 2, 3]).take(-1),
    "skip_more": lambda: tfd.array([1, 2, 3]).skip(5),
    "skip_negative": lambda: tfd.array([1, 2, 3]).skip(-1),
    "skip_tensors": lambda: tfd.array([tf.scalar(1), tf.scalar(2), tf.scalar(3)]).skip(2),
    "repeat_3": lambda: tfd.array([1, 2]).repeat(3),
    "repeat_0": lambda: tfd.array([1, 2]).repeat(0),
    "repeat_forever_take": lambda: tfd.array([1, 2]).repeat().take(5),
    "repeat_batch": lambda: tfd.array([1, 2, 3]).repeat(2).batch(4),
    "concatenate": lambda: tfd.array([1, 2, 3]).concatenate(tfd.array([4, 5])),
    "concatenate_batch": lambda: tfd.array([1, 2, 3]).concatenate(tfd.array([4, 5])).batch(2),
    "zip_list": lambda: tfd.zip([tfd.array([1, 2, 3]), tfd.array([4, 5, 6])]),
    "zip_dict_shortest": lambda: tfd.zip({"a": tfd.array([1, 2, 3]), "b": tfd.array(["x", "y"])}),
    "zip_list_batch": lambda: tfd.zip([tfd.array([1, 2, 3]), tfd.array([4, 5, 6])]).batch(2),
    "zip_dict_batch": lambda: tfd.zip(
        {"a": tfd.array([1, 2, 3]), "b": tfd.array([[1, 2], [3, 4], [5, 6]])}
    ).batch(3),
    "shuffle_seeded": lambda: tfd.array(r(1, 21)).shuffle(5, "seed"),
    "shuffle_full_batch": lambda: tfd.array(r(1, 11)).shuffle(10, "abc").batch(4),
    "prefetch_batch": lambda: tfd.array(r(1, 6)).prefetch(2).batch(2),
    "generator_batch": lambda: tfd.generator(gen_dicts).batch(2),
    "generator_tensors_map_batch": lambda: (
        tfd.generator(gen_tensors).map(lambda t: t.mul(10)).batch(3)
    ),
    "csv_people": people,
    "csv_people_batch": lambda: people().batch(4),
    "csv_people_features": lambda: (
        people()
        .map(
            lambda e: {
                "xs": [e["xs"]["age"], e["xs"]["height"], e["xs"]["member"]],
                "ys": e["ys"]["label"],
            }
        )
        .batch(4)
    ),
    "csv_configured_only": lambda: tfd.csv(
        FIXTURES / "people.csv",
        column_configs={"label": {"is_label": True}, "age": {"default": 30}},
        configured_columns_only=True,
    ),
    "csv_no_labels": lambda: tfd.csv(
        FIXTURES / "semicolon.csv", has_header=False, column_names=["id", "tag", "v"], delimiter=";"
    ),
    "csv_whitespace": lambda: tfd.csv(FIXTURES / "whitespace.csv", delim_whitespace=True),
}

SHUFFLED: set[str] = set()  # seeded shuffles give TF.js's orders: compared exactly

#: Where we follow TF.js's documentation rather than its 4.22 code (see the Dataset docs).
DEVIATIONS = {
    # TF.js computes size = count when count < size, so take(-1).size is -1; it takes all.
    "take_negative": {"size": 3},
    # TF.js documents "negative count skips the entire dataset" and sets size 0, but its
    # iterator skips nothing. We skip everything, as documented (and as its size says).
    "skip_negative": {"elements": []},
}


def _golden_quotes(case: str, value):
    # TF.js keeps doubled quotes inside quoted CSV fields ("a ""b"" c" -> a ""b"" c); we
    # unescape them as RFC 4180 says (csv_dataset.py's docstring).
    if case.startswith("csv_") and isinstance(value, str):
        return value.replace('""', '"')
    return value


def assert_same(got, want, case, where="element"):
    if isinstance(want, dict) and "tensor" in want:
        assert isinstance(got, tf.Tensor), f"{case}: {where} should be a tensor, got {got!r}"
        spec = want["tensor"]
        assert got.shape == spec["shape"], f"{case}: {where} shape"
        assert got.dtype == spec["dtype"], f"{case}: {where} dtype"
        if got.dtype == "string":
            want_values = [
                _golden_quotes(case, v) for v in np.asarray(spec["values"]).reshape(-1).tolist()
            ]
            got_values = np.asarray(got.array_sync(), dtype=object).reshape(-1).tolist()
            assert got_values == want_values, f"{case}: {where} values"
        else:
            np.testing.assert_allclose(
                np.asarray(got.array_sync(), dtype=np.float64),
                np.asarray(spec["values"], dtype=np.float64),
                rtol=1e-6,
                err_msg=f"{case}: {where} values",
            )
        return
    if isinstance(want, dict) and "object" in want:
        assert isinstance(got, dict), f"{case}: {where} should be a dict, got {got!r}"
        assert list(got) == want["keys"], f"{case}: {where} keys (in order)"
        for k in want["keys"]:
            assert_same(got[k], want["object"][k], case, f"{where}[{k!r}]")
        return
    if isinstance(want, list):
        assert isinstance(got, list), f"{case}: {where} should be a list, got {got!r}"
        assert len(got) == len(want), f"{case}: {where} length"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_same(g, w, case, f"{where}[{i}]")
        return
    want = _golden_quotes(case, want)
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        assert isinstance(got, (int, float)) and not isinstance(got, bool), f"{case}: {where}"
        assert got == pytest.approx(want, rel=1e-12), f"{case}: {where}"
    else:
        assert got == want, f"{case}: {where}"


def _size(value):
    return math.inf if value == "Infinity" else value


def _flat_values(elements):
    out = []
    for e in elements:
        if isinstance(e, dict) and "tensor" in e:
            out += list(np.asarray(e["tensor"]["values"]).reshape(-1))
        elif isinstance(e, tf.Tensor):
            out += list(np.asarray(e.array_sync()).reshape(-1))
        else:
            out.append(e)
    return sorted(float(v) for v in out)


def _shapes(elements):
    return [
        e["tensor"]["shape"]
        if isinstance(e, dict)
        else e.shape
        if isinstance(e, tf.Tensor)
        else None
        for e in elements
    ]


@pytest.mark.parametrize("case", sorted(GOLDEN["cases"]))
def test_golden_pipeline(case):
    want = {**GOLDEN["cases"][case], **DEVIATIONS.get(case, {})}
    ds = CASES[case]()  # source tensors (if any) exist before counting starts
    before = tf.memory().num_tensors
    elements = ds.to_array()
    assert tf.memory().num_tensors - before == want["num_tensors_delta"], case
    assert ds.size == _size(want["size"]), f"{case}: size"
    if "column_names" in want:
        assert ds.column_names() == want["column_names"]
    if case in SHUFFLED:
        assert len(elements) == len(want["elements"])
        assert _shapes(elements) == _shapes(want["elements"])
        assert _flat_values(elements) == _flat_values(want["elements"])
    else:
        assert_same(elements, want["elements"], case)
    tf.dispose(elements)


def test_every_golden_case_is_built_here():
    assert set(CASES) == set(GOLDEN["cases"])


SIZES = {
    "repeat_forever": lambda: tfd.array([1, 2]).repeat(),
    "filter_size": lambda: tfd.array([1, 2]).filter(bool),
    "filter_infinite": lambda: tfd.array([1, 2]).repeat().filter(bool),
    "concat_infinite": lambda: tfd.array([1]).repeat().concatenate(tfd.array([1])),
    "generator": lambda: tfd.generator(lambda: iter(())),
    "take_generator": lambda: tfd.generator(lambda: iter(())).take(3),
    "skip_infinite": lambda: tfd.array([1]).repeat().skip(3),
    "batch_infinite": lambda: tfd.array([1]).repeat().batch(3),
    "csv": lambda: tfd.csv(FIXTURES / "people.csv"),
}


@pytest.mark.parametrize("name", sorted(GOLDEN["sizes"]))
def test_golden_size(name):
    assert SIZES[name]().size == _size(GOLDEN["sizes"][name])


def _ours(message: str) -> str:
    """TF.js's message as we spell it: snake_case argument names, Python instead of JS."""
    message = re.sub(r"\s+", " ", message)
    for js, py in (
        ("batchSize", "batch_size"),
        ("bufferSize", "buffer_size"),
        ("columnConfigs", "column_configs"),
        ("JS objects", "Python objects"),
    ):
        message = message.replace(js, py)
    return message


ERRORS = {
    "batch_zero": lambda: tfd.array([1, 2]).batch(0),
    "shuffle_no_buffer": lambda: tfd.array([1, 2]).shuffle(None),
    "prefetch_no_buffer": lambda: tfd.array([1, 2]).prefetch(None),
    "zip_primitive": lambda: tfd.zip([tfd.array([1]), 3]).to_array(),
    "zip_not_container": lambda: tfd.zip(3),
    "to_array_infinite": lambda: tfd.array([1]).repeat().to_array(),
    "csv_bad_config_key": lambda: tfd.csv(
        FIXTURES / "people.csv", column_configs={"nope": {"is_label": True}}
    ).to_array(),
    "csv_no_header_no_names": lambda: tfd.csv(
        FIXTURES / "semicolon.csv", has_header=False
    ).to_array(),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_golden_error_message(name):
    with pytest.raises(tf.TidyTensorError) as info:
        ERRORS[name]()
    assert _ours(GOLDEN["errors"][name]) in re.sub(r"\s+", " ", str(info.value))


def test_golden_csv_row_errors_name_the_line():
    """TF.js's messages, plus the file and the line number."""
    with pytest.raises(tfd.CSVParseError) as info:
        tfd.csv(FIXTURES / "malformed.csv").to_array()
    assert GOLDEN["errors"]["csv_malformed_row"].startswith("Invalid row in csv file.")
    assert "Should have 3 elements in a row, but got 2" in str(info.value)
    assert "malformed.csv' at line 3" in str(info.value)
    assert info.value.line == 3
    with pytest.raises(tfd.CSVParseError) as info:
        tfd.csv(
            FIXTURES / "missing_label.csv", column_configs={"label": {"is_label": True}}
        ).to_array()
    assert GOLDEN["errors"]["csv_missing_label"].startswith("Required column label is empty in")
    assert str(info.value).startswith("Required column label is empty in line 3")
    assert info.value.line == 3
