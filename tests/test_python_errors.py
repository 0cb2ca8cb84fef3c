"""Errors speak Python (issue 20): the snake_case op and argument names the user called,
``None``/``True``/``False``, the op or layer that failed, what was given and what was
expected, and "did you mean" for near misses."""

from __future__ import annotations

import ast
import re
import traceback
from pathlib import Path

import pytest

import package_sources
import tidytensor as tf
from package_sources import SRC, source_files, source_nodes, source_text
from tidytensor.layers.errors import LayersValueError
from tidytensor.naming import did_you_mean


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
    nodes = source_nodes(path)
    docstrings = {
        id(node.value)
        for node in nodes
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    for node in nodes:
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and " " in node.value
        ):
            yield node.lineno, node.value


@package_sources.GROUP
def test_no_camel_case_words_in_the_package_messages():
    """Every message string in the package (string constants with a space, docstrings
    aside) spells names as Python does; ``ops/_chained.py`` lists TF.js's names on purpose."""
    found = []
    for path in source_files():
        if path.name == "_chained.py":
            continue
        for line, text in _message_strings(path):
            words = set(_CAMEL.findall(text)) - _ALLOWED_CAMEL
            if words:
                found.append(f"{path.relative_to(SRC)}:{line}: {sorted(words)}")
    assert found == []


@package_sources.GROUP
def test_typos_are_gone():
    text = "\n".join(source_text(path) for path in source_files())
    for typo in ("Error when checking : ", "(i.e.,tensor", "atleast", "Bidrectional", "evalution"):
        assert typo not in text


#: What JavaScript prints where Python prints None, True, False, nan and inf.
_JS_LITERALS = re.compile(r"(?<![\w'\"`.])(null|undefined|true|false|NaN|Infinity)(?![\w'\"`])")
#: Messages that quote TF.js's (JavaScript's) own error text word for word, checked against its
#: goldens, each followed by a Python explanation: range's "Invalid typed array length:
#: Infinity" and the spectral ops' "The new shape (NaN,...)".
_QUOTES_TFJS = {"backends/xp_kernels/creation.py", "ops/spectral.py"}


def _raised_strings(path: Path):
    """The string constants (f-string parts too) of each ``raise``, each ``...Error(...)`` /
    ``...Warning(...)`` built, and each ``warnings.warn(...)``."""
    for node in source_nodes(path):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if not (name.endswith(("Error", "Exception", "Warning")) or name == "warn"):
                continue
        elif not isinstance(node, ast.Raise):
            continue
        for sub in ast.walk(node):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                yield sub.lineno, sub.value


@package_sources.GROUP
def test_no_javascript_literals_in_the_package_messages():
    found = set()
    for path in source_files():
        if str(path.relative_to(SRC)) in _QUOTES_TFJS:
            continue
        for line, text in _raised_strings(path):
            words = _JS_LITERALS.findall(text)
            if words:
                found.add(f"{path.relative_to(SRC)}:{line}: {sorted(set(words))}")
    assert sorted(found) == []


def test_the_message_scans_catch_what_they_look_for():
    assert _JS_LITERALS.findall("expected shape [null,2], got undefined; is true") == [
        "null",
        "undefined",
        "true",
    ]
    assert _JS_LITERALS.findall("expected (None, 2); 'null' is a name; a null_space op") == []
    assert _CAMEL.findall("call fitDataset() or batchSize") == ["fitDataset", "batchSize"]


def _speaks_python(message: str) -> None:
    assert not _JS_LITERALS.findall(message), message
    assert not set(_CAMEL.findall(message)) - _ALLOWED_CAMEL, message


def _dense_fed_the_wrong_shape(keep):
    dense = tf.layers.dense(units=3, name="d1")
    keep.append(dense)
    dense.apply(tf.ones([4, 2]))
    dense.apply(tf.ones([4, 5]))


def _predict_with_the_wrong_shape(keep):
    model = tf.sequential(layers=[tf.layers.dense(units=1, input_shape=[2], name="d2")])
    keep.append(model)
    model.predict(tf.ones([4, 5]))


def _fit(x_shape, y_shape):
    def fit(keep):
        model = tf.sequential(layers=[tf.layers.dense(units=1, input_shape=[2])])
        keep.append(model)
        model.compile(optimizer="sgd", loss="mse")
        model.fit(tf.ones(x_shape), tf.ones(y_shape), epochs=1, verbose=0)

    return fit


def _reshape(target_shape):
    return lambda keep: tf.layers.reshape(target_shape=target_shape, name="rs").apply(
        tf.ones([2, 6])
    )


def _concatenate_mismatched(keep):
    a, b = tf.input(shape=[2, 3]), tf.input(shape=[4, 5])
    tf.layers.concatenate(name="cat").apply([a, b])


def _embedding_out_of_range(keep):
    # The index check runs before the layer is built: no weights are made, none to dispose.
    tf.layers.embedding(input_dim=5, output_dim=2, name="words").apply(tf.tensor([[1, 9]]))


def _execute_an_unknown_output(keep):
    model = tf.sequential(layers=[tf.layers.dense(units=1, input_shape=[2])])
    keep.append(model)
    model.execute(tf.ones([1, 2]), "nope")


@pytest.mark.parametrize(
    ("fail", "expected"),
    [
        (
            _dense_fed_the_wrong_shape,
            "Input 0 is incompatible with layer d1: expected axis -1 of input shape to have "
            "value 2 but got shape (4, 5).",
        ),
        (
            _predict_with_the_wrong_shape,
            "to have shape (None, 2) but got array with shape (4, 5).",
        ),
        (
            _fit([4, 2], [3, 1]),
            "Found 4 input sample(s) and 3 target sample(s).",
        ),
        (
            _fit([4, 2], [4, 3]),
            "target expected a batch of elements where each example has shape (1,) (i.e., "
            "tensor shape (None, 1)) but the target received an input with 4 examples, each "
            "with shape (3,) (tensor shape (4, 3))",
        ),
        (
            _reshape([4]),
            "Total size of new array must be unchanged. (layer rs: cannot reshape an example of "
            "shape (6,) into target_shape (4,))",
        ),
        (
            _reshape([-1, -1]),
            "Can only specify one unknown dimension. (layer rs: target_shape (None, None))",
        ),
        (
            _concatenate_mismatched,
            "A `Concatenate` layer requires inputs with matching shapes except for the concat "
            "axis. Got input shapes: [(None, 2, 3), (None, 4, 5)] (layer cat)",
        ),
        (
            _embedding_out_of_range,
            "Embedding layer 'words': input index 9 at position [0, 1] is out of range: "
            "input_dim is 5, so indices must be in [0, 4]",
        ),
        (
            lambda keep: tf.layers.dense(units=float("nan")),
            "Expected units to be a positive integer, but got nan.",
        ),
        (
            lambda keep: tf.layers.lstm(units=2, dropout="x"),
            "Expected dropout to be a number, but got 'x'.",
        ),
        (
            lambda keep: tf.layers.max_pooling2d(pool_size=[1, 2, 3]),
            "MaxPooling2D: pool_size must be a number or a list of 2 number(s), but received "
            "[1, 2, 3]",
        ),
        (
            _execute_an_unknown_output,
            "Cannot find SymbolicTensors for output name(s): ['nope']",
        ),
    ],
)
def test_real_failing_calls_speak_python(fail, expected):
    """Shapes as Keras prints them, (None, 2); None/True/False/nan; names as repr quotes them."""
    keep: list = []
    try:
        with tf.tidy_scope(), pytest.raises(tf.TidyTensorError) as info:
            fail(keep)
    finally:
        for item in keep:
            item.dispose()
    assert expected in str(info.value)
    _speaks_python(str(info.value))


def test_a_nested_layer_error_keeps_the_layer_name_and_entry_points_shorten_it():
    """short_traceback sits on the top-level entry points (predict, fit, evaluate, the
    *_on_batch steps); a layer call, here a model used as a layer inside another, keeps its
    frames, and the message still names the innermost layer that failed."""
    ids = tf.input(shape=[3], name="ids")
    words = tf.layers.embedding(input_dim=5, output_dim=2, name="words")
    inner = tf.model(inputs=ids, outputs=words.apply(ids), name="inner")
    outer = tf.sequential(layers=[inner, tf.layers.flatten(), tf.layers.dense(units=1)])
    outer.compile(optimizer="sgd", loss="mse")
    x, y = tf.tensor([[1, 2, 9]]), tf.ones([1, 1])
    message = re.escape("Embedding layer 'words': input index 9 at position [0, 2] is out of range")

    def frames(info):
        return [f"{f.filename}:{f.lineno}" for f in traceback.extract_tb(info.value.__traceback__)]

    try:
        for entry_point in (
            lambda: outer.predict(x),
            lambda: outer.predict_on_batch(x),
            lambda: outer.train_on_batch(x, y),
            lambda: outer.test_on_batch(x, y),
            lambda: outer.fit(x, y, epochs=1, verbose=0),
            lambda: outer.evaluate(x, y),
        ):
            with pytest.raises(tf.InvalidArgumentError, match=message) as info:
                entry_point()
            assert len(frames(info)) <= 3, frames(info)
        for layer_call in (lambda: outer.apply(x), lambda: outer(x), lambda: inner.apply(x)):
            with tf.tidy_scope(), pytest.raises(tf.InvalidArgumentError, match=message) as info:
                layer_call()
            inside = [f for f in frames(info) if "/tidytensor/layers/" in f]
            assert any("embeddings.py" in f for f in inside), frames(info)
    finally:
        tf.dispose([x, y])
        outer.dispose()
