"""Sources: CSV parsing details and errors, NumPy arrays/.npy/.npz, image folders, URLs."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import numpy as np
import pytest

import tidytensor as tf
import tidytensor.data as tfd
from tidytensor.data.csv_dataset import js_number
from tidytensor.errors import ArgumentTypeError, InvalidArgumentError, ShapeError

FIXTURES = Path(__file__).parent / "fixtures"


def write(tmp_path, text, name="d.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------- CSV
@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("3", 3.0),
        (" 3 ", 3.0),
        ("-1.5e1", -15.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("0x1F", 31.0),
        ("0b101", 5.0),
        ("0o17", 15.0),
        ("Infinity", float("inf")),
        ("-Infinity", float("-inf")),
        ("1e999", float("inf")),
        ("  ", 0.0),
        ("inf", None),
        ("nan", None),
        ("NaN", None),
        ("1_000", None),
        ("-0x10", None),
        ("12abc", None),
        ("true", None),
    ],
)
def test_js_number_matches_javascript(text, number):
    assert js_number(text) == number


def test_csv_streams_quoted_fields_spanning_lines_and_reports_lines(tmp_path):
    path = write(tmp_path, 'a,b\n1,"two\nlines"\n\n2,"x"\n3\n')
    it = tfd.csv(path).iterator()
    assert it.next().value == {"a": 1.0, "b": "two\nlines"}
    assert it.next().value == {"a": 2.0, "b": "x"}  # the blank line 4 is skipped
    with pytest.raises(
        tfd.CSVParseError, match="at line 6. Should have 2 elements in a row, but got 1"
    ):
        it.next()
    assert it.next().done  # an error closes the stream


def test_csv_missing_value_names_line_and_column(tmp_path):
    path = write(tmp_path, "x,y\n1,2\n3,\n")
    with pytest.raises(tfd.CSVParseError) as info:
        tfd.csv(path).to_array()
    assert info.value.line == 3
    assert "Required column y is empty in line 3" in str(info.value)
    assert "'default'" in str(info.value)
    assert tfd.csv(path, column_configs={"y": {"default": -1}}).to_array()[1] == {"x": 3.0, "y": -1}


def test_csv_dtypes(tmp_path):
    path = write(tmp_path, "i,b,s,f\n2.9,True,00123,1.5\n-2.1,yes,abc,2\n")
    configs = {
        "i": {"dtype": "int32"},
        "b": {"dtype": "bool"},
        "s": {"dtype": "string"},
        "f": {"dtype": "float32"},
    }
    rows = tfd.csv(path, column_configs=configs).to_array()
    assert rows == [
        {"i": 2, "b": 1, "s": "00123", "f": 1.5},
        {"i": -3, "b": 0, "s": "abc", "f": 2.0},
    ]
    assert isinstance(rows[0]["i"], int)


def test_csv_tfjs_style_config_dict(tmp_path):
    path = write(tmp_path, "1;2\n")
    ds = tfd.csv(
        path,
        {
            "hasHeader": False,
            "columnNames": ["a", "b"],
            "delimiter": ";",
            "columnConfigs": {"b": {"isLabel": True}},
        },
    )
    assert ds.to_array() == [{"xs": {"a": 1.0}, "ys": {"b": 2.0}}]


def test_csv_file_url_and_bom(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes("\ufeffa,b\n1,2\n".encode())
    assert tfd.csv("file://" + str(path)).to_array() == [{"a": 1.0, "b": 2.0}]


def test_csv_http_url(tmp_path):
    write(tmp_path, "a,b\n1,x\n", "served.csv")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/served.csv"
        assert tfd.csv(url).to_array() == [{"a": 1.0, "b": "x"}]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.parametrize(
    ("text", "kwargs", "error", "match"),
    [
        ("", {}, InvalidArgumentError, "No data was found for CSV parsing."),
        ("a,a\n1,2\n", {}, InvalidArgumentError, "Duplicate column names found: a"),
        (
            "a,b\n1,2\n",
            {"column_names": ["x"]},
            InvalidArgumentError,
            r"length of provided column_names \(1\) does not match",
        ),
        ("a\n1\n", {"delimiter": "ab"}, InvalidArgumentError, "delimiter must be one character"),
        (
            "a\n1\n",
            {"delimiter": ";", "delim_whitespace": True},
            InvalidArgumentError,
            "Delimiter should not be provided",
        ),
        (
            "a\n1\n",
            {"column_configs": {"a": {"dtype": "float64"}}},
            InvalidArgumentError,
            "has dtype 'float64'",
        ),
        (
            "a\n1\n",
            {"column_configs": {"a": {"label": True}}},
            InvalidArgumentError,
            "unknown key 'label'",
        ),
        ("a\n1\n", {"header": False}, InvalidArgumentError, "unknown option 'header'"),
    ],
)
def test_csv_config_errors(tmp_path, text, kwargs, error, match):
    path = write(tmp_path, text)
    with pytest.raises(error, match=match):
        tfd.csv(path, **kwargs).to_array()


def test_csv_source_type_error():
    with pytest.raises(ArgumentTypeError, match="source must be a path"):
        tfd.csv(3)


def test_csv_early_close_closes_the_file(tmp_path):
    path = write(tmp_path, "a\n" + "\n".join(str(i) for i in range(100)) + "\n")
    it = tfd.csv(path).iterator()
    it.next()
    f = it.file
    it.close()
    assert f.closed


# ---------------------------------------------------------------- NumPy
def test_numpy_structure_and_dtypes():
    ds = tfd.numpy(
        {"xs": np.arange(6, dtype=np.uint8).reshape(3, 2), "ys": np.array([0.5, 1.5, 2.5])}
    )
    assert ds.size == 3
    first = ds.iterator().next().value
    assert first["xs"].dtype == "int32" and first["xs"].array_sync() == [0, 1]
    assert first["ys"].dtype == "float32" and first["ys"].shape == []
    tf.dispose(first)


def test_numpy_tuple_bool_and_strings():
    ds = tfd.numpy((np.array([True, False]), np.array(["a", "bc"])))
    assert [(a.array_sync(), b.array_sync()) for a, b in ds.to_array()] == [
        (True, "a"),
        (False, "bc"),
    ]
    batch = ds.batch(2).to_array()[0]
    assert batch[0].dtype == "bool" and batch[1].dtype == "string"
    assert batch[1].array_sync() == ["a", "bc"]


def test_numpy_npy_is_memory_mapped(tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.arange(12, dtype=np.float64).reshape(4, 3))
    ds = tfd.numpy(path)
    assert ds._leaves[0].__class__ is np.memmap
    out = ds.batch(4).to_array()
    assert out[0].dtype == "float32" and out[0].shape == [4, 3]
    assert out[0].array_sync()[3] == [9.0, 10.0, 11.0]


def test_numpy_npz_keys(tmp_path):
    path = tmp_path / "d.npz"
    np.savez(path, x=np.ones((2, 3), np.float32), y=np.array([1, 0], np.int64))
    assert set(tfd.numpy(path).iterator().next().value) == {"x", "y"}
    renamed = tfd.numpy(path, keys={"xs": "x", "ys": "y"}).iterator().next().value
    assert list(renamed) == ["xs", "ys"] and renamed["ys"].dtype == "int32"
    pair = tfd.numpy(path, keys=("x", "y")).iterator().next().value
    assert isinstance(pair, tuple) and pair[0].shape == [3]
    bare = tfd.numpy(path, keys="y").to_array()
    assert [t.array_sync() for t in bare] == [1, 0]
    with pytest.raises(InvalidArgumentError, match="has no array 'z'"):
        tfd.numpy(path, keys=["z"])


def test_numpy_errors():
    with pytest.raises(ShapeError, match="same number of rows"):
        tfd.numpy([np.zeros(3), np.zeros(4)])
    with pytest.raises(ShapeError, match="scalar"):
        tfd.numpy(np.array(1.0))
    with pytest.raises(ArgumentTypeError, match="must be NumPy arrays"):
        tfd.numpy({"a": [1, 2]})
    with pytest.raises(InvalidArgumentError, match="keys applies only"):
        tfd.numpy(np.zeros(3), keys="a")
    with pytest.raises(InvalidArgumentError, match="cannot hold"):
        tfd.numpy(np.array([1 + 2j]))


# ---------------------------------------------------------------- images
PIL = pytest.importorskip("PIL.Image")


def _images(tmp_path):
    for cls, color in (("cats", (255, 0, 0)), ("dogs", (0, 0, 255))):
        (tmp_path / cls).mkdir()
        for i in range(2):
            PIL.new("RGB", (4 + i, 3), color).save(tmp_path / cls / f"{i}.png")
    (tmp_path / "notes.txt").write_text("not an image")
    return tmp_path


def test_image_folder_labels_and_resize(tmp_path):
    ds = tfd.image_folder(_images(tmp_path), image_size=(2, 5))
    assert ds.class_names == ["cats", "dogs"] and ds.size == 4
    batch = ds.batch(4).to_array()[0]
    assert batch["xs"].shape == [4, 2, 5, 3] and batch["xs"].dtype == "int32"
    assert batch["ys"].array_sync() == [0.0, 0.0, 1.0, 1.0]
    assert batch["xs"].array_sync()[2][0][0] == [0, 0, 255]


def test_image_folder_grayscale_unlabelled(tmp_path):
    PIL.new("RGB", (3, 2), (10, 10, 10)).save(tmp_path / "a.png")
    images = tfd.image_folder(tmp_path, color_mode="grayscale").to_array()
    assert images[0].shape == [2, 3, 1]


def test_image_folder_errors(tmp_path):
    with pytest.raises(InvalidArgumentError, match="no image files"):
        tfd.image_folder(tmp_path)
    with pytest.raises(InvalidArgumentError, match="color_mode"):
        tfd.image_folder(_images(tmp_path), color_mode="cmyk")
    with pytest.raises(InvalidArgumentError, match="class 'birds' has no directory"):
        tfd.image_folder(tmp_path, class_names=["birds"])
