"""Replays tests/golden/results/layers_families.json (written by
tests/golden/layers_families.js from TF.js 4.22) with tidytensor: the same layer, in the same
model, with the same weights, must give TF.js's predict output (1e-5), output shape,
``get_config()`` and summary; error cases must raise a tidytensor error naming the layer or
the argument. Shared by tests/layers/test_<module>.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tidytensor as tf
from tidytensor.errors import TidyTensorError
from tidytensor.layers import models, serialization
from tidytensor.layers.engine.input_layer import input as tf_input
from tidytensor.layers.utils import to_snake_case

RESULTS = Path(__file__).resolve().parents[1] / "golden" / "results" / "layers_families.json"
ATOL = RTOL = 1e-5

_data: dict[str, Any] | None = None


def _load() -> dict[str, Any]:
    global _data
    if _data is None:
        _data = json.loads(RESULTS.read_text())
    return _data


def load_cases(module: str) -> list[dict[str, Any]]:
    """The golden cases of one ``layers/<module>.py``."""
    return [c for c in _load()["cases"] if c["module"] == module]


def load_errors(module: str) -> list[dict[str, Any]]:
    """The error cases (TF.js threw) of one module."""
    return [c for c in _load()["errors"] if c["module"] == module]


def ids(cases: list[dict[str, Any]]) -> list[str]:
    return [c["name"] for c in cases]


def factory_of(module: Any, case: dict[str, Any]) -> Any:
    return getattr(module, to_snake_case(case["factory"]))


def kwargs_of(args: dict[str, Any]) -> dict[str, Any]:
    """TF.js's camelCase args as tidytensor keywords (values kept: both spellings work)."""
    return {to_snake_case(k): v for k, v in args.items()}


def make_inputs(case: dict[str, Any]) -> list[tf.Tensor]:
    return [tf.tensor(i["values"], i["shape"], i["dtype"]) for i in case["inputs"]]


def build(module: Any, case: dict[str, Any]) -> tuple[Any, Any]:
    """``(layer, model)`` as the JS script built them (model is None in 'apply' mode)."""
    options = case["options"]
    args = dict(case["args"])
    args.setdefault("name", case["name"])
    layer = factory_of(module, case)(**kwargs_of(args))
    if options.get("mode") == "apply":
        return layer, None
    shapes = case["input_shapes"]
    if len(shapes) == 1:
        model = models.sequential([layer])
    else:
        ins = [tf_input(shape=s[1:], name=f"{case['name']}_in{j}") for j, s in enumerate(shapes)]
        model = models.model(inputs=ins, outputs=layer.apply(ins))
    return layer, model


def set_weights(layer: Any, case: dict[str, Any]) -> None:
    names = [w.original_name.split("/", 1)[1] for w in layer.weights]
    assert names == [w["name"] for w in case["weights"]], (names, case["weights"])
    values = [tf.tensor(w["values"], w["shape"]) for w in case["weights"]]
    layer.set_weights(values)
    tf.dispose(values)


def assert_tensor(actual: tf.Tensor, expected: dict[str, Any], what: str) -> None:
    assert actual.shape == expected["shape"], f"{what}: shape {actual.shape} != {expected['shape']}"
    assert actual.dtype == expected["dtype"], f"{what}: dtype {actual.dtype} != {expected['dtype']}"
    np.testing.assert_allclose(
        np.asarray(actual.data_sync(), dtype=np.float64).reshape(-1),
        np.asarray(expected["values"], dtype=np.float64),
        atol=ATOL,
        rtol=RTOL,
        err_msg=what,
    )


def predict_input(xs: list[tf.Tensor]) -> Any:
    return xs[0] if len(xs) == 1 else xs


def expected_config(case: dict[str, Any]) -> dict[str, Any]:
    return case["config"]["config"]


def our_config(layer: Any, case: dict[str, Any]) -> dict[str, Any]:
    config = json.loads(json.dumps(layer.get_config()))
    for key in case["options"].get("configDrop", []):
        config.pop(key, None)
    return config


def run_golden(module: Any, case: dict[str, Any]) -> None:
    """Checks one golden case end to end (outputs, shapes, config, summary, training)."""
    options = case["options"]
    skip = set(options.get("skip", []))
    layer, model = build(module, case)
    xs = make_inputs(case)
    try:
        if model is None:
            for k, expected in enumerate(case["outputs"]):
                y = layer.apply(predict_input(xs))
                assert_tensor(y, expected, f"{case['name']} call {k}")
                y.dispose()
        else:
            set_weights(layer, case)
            y = model.predict(predict_input(xs))
            assert_tensor(y, case["output"], f"{case['name']} predict")
            y.dispose()
            if "output_shape" not in skip:
                assert model.outputs[0].shape == case["output_shape"]
            if "summary" not in skip:
                lines: list[str] = []
                model.summary(print_fn=lines.append)
                assert lines == case["summary"]
            if "training" in case:
                yt = layer.apply(predict_input(xs), training=True)
                assert_tensor(yt, case["training"]["output"], f"{case['name']} training output")
                yt.dispose()
                for w, expected in zip(layer.weights, case["training"]["weights"], strict=True):
                    assert_tensor(
                        w.read(),
                        {**expected, "dtype": "float32"},
                        f"{case['name']} weight {expected['name']} after training",
                    )
        assert layer.get_class_name() == case["config"]["class_name"]
        assert our_config(layer, case) == expected_config(case)
    finally:
        tf.dispose(xs)
        if model is not None:
            model.dispose()


def check_no_leak(module: Any, case: dict[str, Any]) -> None:
    """``predict`` (or ``apply``) inside ``tidy`` leaves no new tensor; outside it adds
    exactly the output."""
    layer, model = build(module, case)
    xs = make_inputs(case)
    run = (
        (lambda: layer.apply(predict_input(xs)))
        if model is None
        else (lambda: model.predict(predict_input(xs)))
    )
    run().dispose()  # builds the layer (weights are created once)
    before = tf.memory()

    def body() -> None:
        run()

    tf.tidy(body)
    after = tf.memory()
    assert after.num_tensors == before.num_tensors
    assert after.num_data_buffers == before.num_data_buffers
    y = run()
    assert tf.memory().num_tensors == before.num_tensors + 1
    y.dispose()
    tf.dispose(xs)
    if model is not None:
        model.dispose()


def check_round_trip(module: Any, case: dict[str, Any]) -> None:
    """``deserialize(serialize(layer))`` gives the same config, before and after building."""
    layer, model = build(module, case)
    for _ in range(2):
        config = serialization.serialize(layer)
        config["config"] = dict(config["config"], name=case["name"] + "_copy")
        copy = serialization.deserialize(json.loads(json.dumps(config)))
        assert type(copy) is type(layer)
        expected = dict(json.loads(json.dumps(config["config"])))
        assert json.loads(json.dumps(copy.get_config())) == expected
        if model is None:
            break
        xs = make_inputs(case)
        model.predict(predict_input(xs)).dispose()  # now built: config again
        tf.dispose(xs)
    if model is not None:
        model.dispose()


def _mentions(message: str, case: dict[str, Any], cls_name: str) -> bool:
    text = message.lower()
    words = [case["name"], cls_name, *[to_snake_case(k) for k in case["args"]]]
    return any(w.lower() in text for w in words)


def check_error(module: Any, case: dict[str, Any]) -> None:
    """The arguments or the input TF.js refused are refused here too, at the same stage,
    with a tidytensor error that names the layer or the argument."""
    factory = factory_of(module, case)
    kwargs = kwargs_of(dict(case["args"], name=case["name"]))
    cls_name = case["factory"][0].upper() + case["factory"][1:]
    if case["thrown_by"] == "construct":
        with pytest.raises(TidyTensorError) as info:
            factory(**kwargs)
        assert _mentions(str(info.value), case, cls_name), str(info.value)
        return
    layer = factory(**kwargs)
    shape = case["input_shape"]
    shapes = shape if isinstance(shape[0], list) else [shape]
    xs = []
    for s in shapes:
        n = int(np.prod(s))
        values = np.cos(0.53 * np.arange(n) + 0.1) * 2
        if case["factory"] == "categoryEncoding":
            values = np.round(np.abs(values) * 3)
        xs.append(tf.tensor(values.astype(np.float32), s))
    before = tf.memory().num_tensors
    with pytest.raises(TidyTensorError) as info:
        layer.apply(xs[0] if len(xs) == 1 else xs)
    assert _mentions(str(info.value), case, layer.get_class_name()), str(info.value)
    assert tf.memory().num_tensors - before <= len(layer.weights)
    tf.dispose(xs)


def _short_name(module: Any) -> str:
    """``tidytensor.layers.merge`` -> ``merge`` (the ``module`` key of the goldens)."""
    return module.__name__.rsplit(".", 1)[1]


class FamilyGoldenTests:
    """The tests every ``tests/layers/test_<module>.py`` runs on its layer modules: each golden
    case (predict, no leak, config round trip), each case TF.js refused, every class covered
    by a golden and every factory exported. Use it as::

        class TestGolden(FamilyGoldenTests):
            modules = (M,)

    A module whose layers TF.js never refuses sets ``test_refused_like_tfjs = None``."""

    modules: tuple[Any, ...] = ()

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "case" in metafunc.fixturenames:
            pairs = [(m, c) for m in self.modules for c in load_cases(_short_name(m))]
        elif "error" in metafunc.fixturenames:
            pairs = [(m, c) for m in self.modules for c in load_errors(_short_name(m))]
        else:
            metafunc.parametrize("module", self.modules, ids=_short_name)
            return
        argnames = [n for n in ("module", "case", "error") if n in metafunc.fixturenames]
        metafunc.parametrize(argnames, pairs, ids=[c["name"] for _, c in pairs])

    def test_golden(self, module: Any, case: dict[str, Any]) -> None:
        run_golden(module, case)

    def test_no_leak(self, module: Any, case: dict[str, Any]) -> None:
        check_no_leak(module, case)

    def test_config_round_trip(self, module: Any, case: dict[str, Any]) -> None:
        check_round_trip(module, case)

    def test_refused_like_tfjs(self, module: Any, error: dict[str, Any]) -> None:
        check_error(module, error)

    def test_every_class_has_a_golden(self, module: Any) -> None:
        covered = {
            c["config"]["class_name"] for m in self.modules for c in load_cases(_short_name(m))
        }
        classes = {
            obj.class_name
            for obj in vars(module).values()
            if isinstance(obj, type)
            and obj.__module__ == module.__name__
            and "class_name" in vars(obj)
        }
        assert classes <= covered, classes - covered

    def test_factories_are_exported(self, module: Any) -> None:
        for name in module.__all__:
            assert callable(getattr(module, name))
