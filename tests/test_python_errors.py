"""Errors speak Python (issue 20): the snake_case op and argument names the user called,
``None``/``True``/``False``, the op or layer that failed, what was given and what was
expected, and "did you mean" for near misses."""

from __future__ import annotations

import ast
import re
import traceback
from pathlib import Path

import pytest

import tidytensor as tf
from tidytensor.layers.errors import LayersValueError
from tidytensor.naming import did_you_mean

SRC = Path(__file__).resolve().parents[1] / "src" / "tidytensor"


def test_op_and_argument_names_are_snake_case():
    with pytest.raises(
        tf.DTypeError, match=r"^Argument 'indices' passed to 'one_hot' must be int32"
    ):
        tf.one_hot(tf.tensor([1.5, 2]), 3)
    with pytest.raises(tf.InvalidArgumentError, match=r"^Error in one_hot: depth must be >=2"):
        tf.one_hot(tf.tensor([1, 2], dtype="int32"), 0)
    with pytest.raises(
        tf.ArgumentTypeError,
        match=r"^Argument 'transpose_a' passed to 'mat_mul' must be a boolean",
    ):
        tf.mat_mul(tf.ones([2, 2]), tf.ones([2, 2]), [1, 2])
    with pytest.raises(tf.InvalidArgumentError, match=r"^variable_grads\(\) expects at least one"):
        tf.variable_grads(lambda: tf.ones([2]).sum())


def test_mat_mul_shapes_and_flags_read_as_python():
    with pytest.raises(
        tf.ShapeError,
        match=re.escape(
            "Error in mat_mul: inner shapes (3) and (2) of Tensors with shapes [2,3] and [2,3] "
            "and transpose_a=False and transpose_b=False must match."
        ),
    ):
        tf.mat_mul(tf.ones([2, 3]), tf.ones([2, 3]))


@pytest.mark.parametrize(
    ("call", "op"),
    [
        (lambda a, b: tf.add(a, b), "add"),
        (lambda a, b: a + b, "add"),
        (lambda a, b: a.mul(b), "mul"),
        (lambda a, b: tf.squared_difference(a, b), "squared_difference"),
    ],
)
def test_broadcast_errors_name_the_op(call, op):
    a, b = tf.ones([256, 8]), tf.ones([3])
    try:
        with pytest.raises(
            tf.ShapeError,
            match=rf"^{op}: operands could not be broadcast together with shapes \[256,8\] "
            r"and \[3\]$",
        ):
            call(a, b)
    finally:
        tf.dispose([a, b])


def test_reshape_errors_say_reshape_and_what_was_given():
    x = tf.ones([6])
    try:
        with pytest.raises(
            tf.ShapeError,
            match=r"^reshape: the tensor has 6 elements, but the new shape \[4,2\] has 8",
        ):
            tf.reshape(x, [4, 2])
        with pytest.raises(tf.ShapeError, match=r"^reshape: the tensor has 6 elements.*\[4,-1\]"):
            x.reshape([4, -1])
    finally:
        x.dispose()


def test_embedding_index_out_of_range_names_the_layer_with_a_short_traceback():
    model = tf.sequential(
        layers=[tf.layers.embedding(input_dim=5, output_dim=2, input_shape=[3], name="words")]
    )
    x = tf.tensor([[1, 2, 9]])
    before = tf.memory().num_tensors
    try:
        with pytest.raises(
            tf.InvalidArgumentError,
            match=re.escape(
                "Embedding layer 'words': input index 9 at position [0, 2] is out of range: "
                "input_dim is 5, so indices must be in [0, 4]"
            ),
        ) as info:
            model.predict(x)
        assert tf.memory().num_tensors == before
        frames = traceback.extract_tb(info.value.__traceback__)
        assert len(frames) <= 3, [f"{f.filename}:{f.lineno}" for f in frames]
        assert "GatherV2" not in str(info.value)
        assert info.value.__suppress_context__  # the kernel's error is not chained below it
        # Called as a layer, the same message.
        with pytest.raises(tf.InvalidArgumentError, match="Embedding layer 'words'"):
            model.layers[0].apply(x)
    finally:
        x.dispose()
        model.dispose()


def test_an_error_inside_a_custom_layer_keeps_its_frames():
    """Only errors marked as the user's input lose tidytensor's frames."""

    class Broken(tf.layers.Layer):
        class_name = "BrokenForTracebacks"

        def call(self, inputs, **kwargs):
            raise tf.InvalidArgumentError("broken on purpose")

    x = tf.ones([1, 2])
    try:
        with pytest.raises(tf.InvalidArgumentError, match="broken on purpose") as info:
            Broken().apply(x)
        names = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
        assert "call" in names
    finally:
        x.dispose()


def test_input_checks_name_what_was_checked_in_python_spelling():
    model = tf.sequential(layers=[tf.layers.dense(units=1, input_shape=[2])])
    model.compile(optimizer="sgd", loss="mse")
    x3, y1 = tf.ones([4, 3]), tf.ones([4, 1])
    try:
        with pytest.raises(
            LayersValueError,
            match=re.escape(
                "Error when checking input: expected dense_Dense1_input to have shape "
                "(None, 2) but got array with shape (4, 3)."
            ).replace("dense_Dense1_input", ".*"),
        ):
            model.predict(x3)
        with pytest.raises(LayersValueError, match=re.escape("(i.e., tensor shape (None, 2))")):
            model.fit(x3, y1, epochs=1, verbose=0)
    finally:
        tf.dispose([x3, y1])
        model.dispose()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda m: m.compile(optimizer="sgd", loss="mean_squared_eror"),
            "Unknown loss mean_squared_eror (did you mean 'mean_squared_error'?)",
        ),
        (
            lambda m: m.compile(optimizer="sgd", loss="mse", metrics=["acuracy"]),
            "Unknown metric acuracy (did you mean 'accuracy'?)",
        ),
        (
            lambda m: m.compile(optimizer="adamm", loss="mse"),
            "Unknown optimizer adamm (did you mean 'adam'?)",
        ),
        (
            lambda m: m.compile(optimizer="rmsprob", loss="mse"),
            "Unknown optimizer rmsprob (did you mean 'rmsprop'?)",
        ),
        (
            lambda m: tf.layers.dense(units=2, activation="rellu"),
            "Unknown activation: rellu (did you mean 'relu'?)",
        ),
        (
            lambda m: tf.layers.dense(units=2, kernel_initializer="glorot_unifrom"),
            "Unknown initializer: glorot_unifrom (did you mean 'glorot_uniform'?)",
        ),
        (
            lambda m: tf.layers.dense(units=2, kernel_constraint="max_nomr"),
            "Unknown constraint: max_nomr (did you mean 'max_norm'?)",
        ),
        (
            lambda m: tf.layers.lstm(units=2, return_sequence=True),
            "LSTM got unexpected argument(s) 'return_sequence' (did you mean 'return_sequences'?)",
        ),
        (
            lambda m: tf.layers.gru(units=2, go_backward=True),
            "GRU got unexpected argument(s) 'go_backward' (did you mean 'go_backwards'?)",
        ),
    ],
)
def test_unknown_names_get_did_you_mean(make, message):
    model = tf.sequential(layers=[tf.layers.dense(units=1, input_shape=[2])])
    try:
        with pytest.raises(LayersValueError, match=re.escape(message)):
            make(model)
    finally:
        model.dispose()


def test_unknown_layer_class_message_speaks_python():
    with pytest.raises(LayersValueError) as info:
        tf.layers.dense(units=2, activation="no_such_thing")
    text = str(info.value)
    assert "tf.serialization.register_class()" in text
    assert "registerClass" not in text and "JavaScript code" not in text


def test_did_you_mean_helper():
    assert did_you_mean("Relu", ["relu", "elu"]) == " (did you mean 'relu'?)"
    assert did_you_mean("xyz", ["relu"]) == ""
    assert did_you_mean(None, ["relu"]) == ""


#: camelCase words a message may keep: model.json's own keys, and the word itself.
_ALLOWED_CAMEL = {
    "weightsManifest",
    "modelTopology",
    "trainingConfig",
    "modelInitializer",
    "camelCase",
}
_CAMEL = re.compile(r"(?<![\w.'\"/$\\-])([a-z]+[A-Z][A-Za-z0-9]*)\b")


def _message_strings(path: Path):
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and " " in node.value
        ):
            yield node.lineno, node.value


def test_no_camel_case_words_in_the_package_messages():
    """Every message string in the package (string constants with a space, docstrings
    aside) spells names as Python does; ``ops/_chained.py`` lists TF.js's names on purpose."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "_chained.py":
            continue
        for line, text in _message_strings(path):
            words = set(_CAMEL.findall(text)) - _ALLOWED_CAMEL
            if words:
                found.append(f"{path.relative_to(SRC)}:{line}: {sorted(words)}")
    assert found == []


def test_typos_are_gone():
    text = "\n".join(path.read_text() for path in SRC.rglob("*.py"))
    for typo in ("Error when checking : ", "(i.e.,tensor", "atleast", "Bidrectional", "evalution"):
        assert typo not in text
