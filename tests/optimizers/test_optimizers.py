"""TF.js's optimizers (catalog §3.3): update rules, state, weights, configs and memory.

Goldens come from tests/golden/optimizers.js (real TF.js 4.22.0, cpu backend), which writes
tests/golden/results/optimizers.json; each scenario is replayed here step by step.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tidytensor as tf
import tidytensor.train as train
from python_spelling import python_spelling
from tidytensor.errors import ArgumentTypeError, InvalidArgumentError, TidyTensorError
from tidytensor.optimizers import OPTIMIZER_CLASSES, Optimizer
from tidytensor.optimizers.optimizer import js_key_order

GOLDEN = json.loads(
    (Path(__file__).parent.parent / "golden" / "results" / "optimizers.json").read_text()
)
SCENARIOS = {s["name"]: s for s in GOLDEN["scenarios"]}
TOL = {"rtol": 1e-5, "atol": 1e-5}

#: One working configuration per serialization name, for the generic tests.
FACTORY_ARGS = {
    "SGD": ("sgd", (0.05,)),
    "Momentum": ("momentum", (0.05, 0.9, True)),
    "Adagrad": ("adagrad", (0.1,)),
    "Adadelta": ("adadelta", (0.05, 0.9)),
    "Adam": ("adam", (0.05,)),
    "Adamax": ("adamax", (0.05, 0.9, 0.99, None, 0.01)),
    "RMSProp": ("rmsprop", (0.05, 0.8, 0.5, 1e-6, True)),
}

#: Tensors TF.js itself leaves behind after ``dispose()``: MomentumOptimizer.dispose does not
#: dispose the kept ``-learning_rate`` scalar it inherits from SGDOptimizer.
LEAKED_AFTER_DISPOSE = {"Momentum": 1}


def counts() -> tuple[int, int]:
    m = tf.memory()
    return m.num_tensors, m.num_data_buffers


def delta(base: tuple[int, int]) -> list[int]:
    t, d = counts()
    return [t - base[0], d - base[1]]


class Problem:
    """The golden problem: f = sum(square(x * w + b - y)) with variables 'w' and 'b'."""

    def __init__(self, auto_b: bool = False):
        p = GOLDEN["problem"]
        self.x = tf.tensor2d(p["x"])
        self.y = tf.tensor2d(p["y"])
        w0, b0 = tf.tensor1d(p["w0"]), tf.tensor1d(p["b0"])
        self.w = tf.variable(w0, True, "w")
        self.b = tf.variable(b0, True) if auto_b else tf.variable(b0, True, "b")
        w0.dispose()
        b0.dispose()

    def f(self) -> tf.Tensor:
        return tf.sum(tf.square(tf.sub(tf.add(tf.mul(self.x, self.w), self.b), self.y)))

    def dispose(self) -> None:
        tf.dispose([self.x, self.y, self.w, self.b])


def close(actual, expected) -> None:
    np.testing.assert_allclose(
        np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64), **TOL
    )


def assert_config_equal(actual: dict, expected: dict) -> None:
    assert list(actual) == list(expected)
    for key, value in expected.items():
        if isinstance(value, bool) or value is None:
            assert actual[key] == value, key
        else:
            assert actual[key] == pytest.approx(value, rel=1e-12), key


# ---------------------------------------------------------------------- goldens
# Momentum's dispose() keeps its -learning_rate scalar, as TF.js does: allowed to leak.
@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.tidytensor_allow_leaks)
        if SCENARIOS[n]["className"] == "Momentum"
        else n
        for n in SCENARIOS
    ],
)
def test_golden_scenario(name):
    s = SCENARIOS[name]
    opts = s["options"]
    p = Problem(auto_b=bool(opts.get("autoB")))
    base = counts()
    optimizer = getattr(train, s["factory"])(*s["args"])
    assert optimizer.get_class_name() == s["className"] == type(optimizer).class_name
    assert delta(base) == s["construct"]
    var_list = {"bw": [p.b, p.w], "w": [p.w]}.get(opts.get("varList"))
    for i, expected in enumerate(s["steps_out"]):
        cost = optimizer.minimize(p.f, True, var_list)
        assert delta(base) == expected["mem"], f"step {i}"
        close(cost.data_sync()[0], expected["cost"])
        close(p.w.data_sync(), expected["w"])
        close(p.b.data_sync(), expected["b"])
        cost.dispose()
        if i == 1 and opts.get("setMomentum") is not None:
            optimizer.set_momentum(opts["setMomentum"])
        if i == 1 and opts.get("setLearningRate") is not None:
            optimizer.set_learning_rate(opts["setLearningRate"])
    before = counts()
    assert optimizer.minimize(p.f, False, var_list) is None
    assert delta(before) == s["no_cost"]["mem"] == [0, 0]
    close(p.w.data_sync(), s["no_cost"]["w"])
    close(p.b.data_sync(), s["no_cost"]["b"])
    assert optimizer.iterations == s["iterations"]
    assert_config_equal(optimizer.get_config(), s["config"])
    cls = OPTIMIZER_CLASSES[s["className"]]
    copy = cls.from_config(cls, optimizer.get_config())
    assert_config_equal(copy.get_config(), s["from_config"])
    copy.dispose()
    if s["className"] == "Adamax":
        with pytest.raises(TidyTensorError) as e:
            optimizer.get_weights()
        assert str(e.value) == python_spelling(s["get_weights_error"])
        with pytest.raises(TidyTensorError) as e:
            optimizer.set_weights([])
        assert str(e.value) == python_spelling(s["set_weights_error"])
    else:
        weights = optimizer.get_weights()
        names = [
            w["name"].replace(f"{p.b.name}/", "<b>/") if opts.get("autoB") else w["name"]
            for w in weights
        ]
        assert names == [w["name"] for w in s["weights"]]
        for got, expected in zip(weights, s["weights"], strict=True):
            assert got["tensor"].dtype == expected["dtype"]
            assert got["tensor"].shape == expected["shape"]
            close(got["tensor"].data_sync(), expected["values"])
        assert weights[0]["tensor"].dtype == "int32"
        weights[0]["tensor"].dispose()
    before = counts()
    optimizer.dispose()
    assert delta(before) == s["dispose_mem"]
    assert delta(base) == s["final_mem"]
    p.dispose()


# Momentum's dispose() keeps its -learning_rate scalar, as TF.js does: allowed to leak.
@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, marks=pytest.mark.tidytensor_allow_leaks)
        if c["factory"] == "momentum"
        else c
        for c in GOLDEN["transfer"]
    ],
    ids=lambda c: f"{c['factory']}{c['args']}",
)
def test_golden_set_weights_transfer(case):
    """Two steps, get_weights() into a fresh optimizer (from_config), three more steps."""
    p = Problem()
    opt1 = getattr(train, case["factory"])(*case["args"])
    for _ in range(2):
        opt1.minimize(p.f)
    weights = opt1.get_weights()
    cls = type(opt1)
    opt2 = cls.from_config(cls, opt1.get_config())
    opt2.set_weights(weights)
    assert opt2.iterations == case["iterations_after_set"]
    for expected in case["steps_out"]:
        cost = opt2.minimize(p.f, True)
        close(cost.data_sync()[0], expected["cost"])
        close(p.w.data_sync(), expected["w"])
        close(p.b.data_sync(), expected["b"])
        cost.dispose()
    assert opt2.iterations == case["iterations"]
    got = opt2.get_weights()
    assert [w["name"] for w in got] == case["names"]
    got[0]["tensor"].dispose()
    weights[0]["tensor"].dispose()
    opt1.dispose()
    opt2.dispose()
    p.dispose()


# ---------------------------------------------------------------------- memory (M12, M13)
def test_sgd_memory_m12():
    g = GOLDEN["memory"]["sgd"]
    initial = tf.memory().num_tensors
    opt = train.sgd(0.1)
    x = tf.scalar(4).variable()
    n = tf.memory().num_tensors
    cost = opt.minimize(lambda: x.square(), True)
    assert tf.memory().num_tensors - n == g["first"] == 1
    close(x.data_sync()[0], g["x1"])
    close(x.data_sync()[0], 3.2)
    close(cost.data_sync()[0], 16)
    cost.dispose()
    n = tf.memory().num_tensors
    assert opt.minimize(lambda: x.square(), False) is None
    assert tf.memory().num_tensors - n == g["second"] == 0
    close(x.data_sync()[0], 2.56)
    opt.dispose()
    x.dispose()
    assert tf.memory().num_tensors - initial == g["end"] == 1


def test_adam_memory_m13():
    g = GOLDEN["memory"]["adam"]
    initial = tf.memory().num_tensors
    opt = train.adam(0.1, 0.8, 0.9)
    x = tf.tensor1d([2, 4]).variable()

    def f():
        return x.square().sum()

    n = tf.memory().num_tensors
    cost = opt.minimize(f, True)
    assert tf.memory().num_tensors - n == g["first"] == 3
    close(x.data_sync(), g["x1"])
    close(x.data_sync(), [1.9, 3.9])
    cost.dispose()
    n = tf.memory().num_tensors
    assert opt.minimize(f) is None
    assert tf.memory().num_tensors - n == g["second"] == 0
    close(x.data_sync(), g["x2"])
    np.testing.assert_allclose(x.data_sync(), [1.8, 3.8], atol=1e-3)
    weights = opt.get_weights()
    assert [w["name"] for w in weights] == ["iter", f"{x.name}/m", f"{x.name}/v"]
    weights[0]["tensor"].dispose()
    opt.dispose()
    x.dispose()
    assert tf.memory().num_tensors - initial == g["end"] == 1


# Momentum's dispose() keeps its -learning_rate scalar, as TF.js does: allowed to leak.
@pytest.mark.parametrize(
    "class_name",
    [
        pytest.param(n, marks=pytest.mark.tidytensor_allow_leaks) if n == "Momentum" else n
        for n in FACTORY_ARGS
    ],
)
@pytest.mark.parametrize("return_cost", [False, True])
def test_training_loop_memory_is_constant(class_name, return_cost):
    """200 minimize steps: tensors, buffers and bytes stay exactly constant after step one."""
    factory, args = FACTORY_ARGS[class_name]
    p = Problem()
    opt = getattr(train, factory)(*args)
    first = None
    for step in range(200):
        cost = opt.minimize(p.f, return_cost)
        if return_cost:
            cost.dispose()
        m = tf.memory()
        now = (m.num_tensors, m.num_data_buffers, m.num_bytes)
        if first is None:
            first = now
        assert now == first, f"step {step}: {now} != {first}"
    assert opt.iterations == 200
    opt.dispose()
    p.dispose()


# ---------------------------------------------------------------------- completeness
def _all_subclasses(cls):
    out = []
    for sub in cls.__subclasses__():
        out.append(sub)
        out.extend(_all_subclasses(sub))
    return out


# Momentum's dispose() keeps its -learning_rate scalar, as TF.js does: allowed to leak.
@pytest.mark.tidytensor_allow_leaks
def test_every_optimizer_class_is_registered_and_has_a_factory():
    subclasses = [c for c in _all_subclasses(Optimizer) if c.__module__.startswith("tidytensor.")]
    assert {c.class_name for c in subclasses} == set(OPTIMIZER_CLASSES) == set(FACTORY_ARGS)
    assert len(subclasses) == 7
    for cls in subclasses:
        assert OPTIMIZER_CLASSES[cls.class_name] is cls
        factory, args = FACTORY_ARGS[cls.class_name]
        assert factory == cls.class_name.lower()
        assert factory in train.__all__ and cls.__name__ in train.__all__
        assert getattr(train, cls.__name__) is cls
        opt = getattr(train, factory)(*args)
        assert type(opt) is cls
        opt.dispose()
        assert getattr(train.OptimizerConstructors, factory) is getattr(train, factory)


# Momentum's dispose() keeps its -learning_rate scalar, as TF.js does: allowed to leak.
@pytest.mark.parametrize(
    "cls",
    [
        pytest.param(c, marks=pytest.mark.tidytensor_allow_leaks)
        if c.class_name == "Momentum"
        else c
        for c in _all_subclasses(Optimizer)
    ],
    ids=lambda c: c.class_name,
)
def test_generic_step_leaks_nothing(cls):
    """Every optimizer: steps add nothing after the first; dispose() frees all its state
    (except what TF.js itself leaves)."""
    factory, args = FACTORY_ARGS[cls.class_name]
    p = Problem()
    base = counts()
    opt = getattr(train, factory)(*args)
    opt.minimize(p.f)
    after_first = counts()
    for _ in range(3):
        opt.minimize(p.f)
        assert counts() == after_first
    w_before = p.w.array_sync()
    opt.minimize(p.f)
    assert p.w.array_sync() != w_before
    state_vars = [
        v for v in tf.engine().state.registered_variables.values() if v.name not in ("w", "b")
    ]
    assert all(not v.trainable for v in state_vars if v.shape == [2])
    opt.dispose()
    leaked = LEAKED_AFTER_DISPOSE.get(cls.class_name, 0)
    assert delta(base) == [leaked, leaked]
    assert set(tf.engine().state.registered_variables) == {"w", "b"}
    p.dispose()


# ---------------------------------------------------------------------- configs
DEFAULT_CONFIGS = {
    "sgd": {"learningRate": 0.1},
    "momentum": {"learningRate": 0.1, "momentum": 0.9, "useNesterov": False},
    "rmsprop": {
        "learningRate": 0.1,
        "decay": 0.9,
        "momentum": 0.0,
        "epsilon": 1e-7,
        "centered": False,
    },
    "adam": {"learningRate": 0.001, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-7},
    "adadelta": {"learningRate": 0.001, "rho": 0.95, "epsilon": 1e-7},
    "adamax": {"learningRate": 0.002, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-7, "decay": 0.0},
    "adagrad": {"learningRate": 0.1, "initialAccumulatorValue": 0.1},
}
DEFAULT_ARGS = {"sgd": (0.1,), "momentum": (0.1, 0.9), "rmsprop": (0.1,), "adagrad": (0.1,)}


# Momentum's dispose() keeps its -learning_rate scalar, as TF.js does: allowed to leak.
@pytest.mark.parametrize(
    "factory",
    [
        pytest.param(f, marks=pytest.mark.tidytensor_allow_leaks) if f == "momentum" else f
        for f in DEFAULT_CONFIGS
    ],
)
def test_factory_defaults_and_config_round_trip(factory):
    opt = getattr(train, factory)(*DEFAULT_ARGS.get(factory, ()))
    assert opt.get_config() == DEFAULT_CONFIGS[factory]
    cls = type(opt)
    for copy in (
        cls.from_config(cls, opt.get_config()),
        cls.from_config(opt.get_config()),
        Optimizer.from_config(cls, opt.get_config()),
    ):
        assert type(copy) is cls
        assert copy.get_config() == opt.get_config()
        copy.dispose()
    opt.dispose()


# Momentum's dispose() keeps its -learning_rate scalar, as TF.js does: allowed to leak.
@pytest.mark.tidytensor_allow_leaks
def test_from_config_accepts_snake_case_keys():
    opt = train.RMSPropOptimizer.from_config(
        {"learning_rate": 0.2, "decay": 0.5, "momentum": 0.1, "epsilon": 1e-3, "centered": True}
    )
    assert opt.get_config() == {
        "learningRate": 0.2,
        "decay": 0.5,
        "momentum": 0.1,
        "epsilon": 1e-3,
        "centered": True,
    }
    opt = train.MomentumOptimizer.from_config(
        {"learning_rate": 0.2, "momentum": 0.5, "use_nesterov": True}
    )
    assert opt.get_config() == {"learningRate": 0.2, "momentum": 0.5, "useNesterov": True}
    opt.dispose()


def test_from_config_errors():
    with pytest.raises(ArgumentTypeError, match="Optimizer class"):
        Optimizer.from_config(int, {"learningRate": 0.1})
    with pytest.raises(ArgumentTypeError, match="config dict"):
        train.SGDOptimizer.from_config([0.1])


def test_hyperparameter_errors():
    with pytest.raises(
        InvalidArgumentError, match=r"^learning_rate for RMSPropOptimizer must be defined\.$"
    ):
        train.rmsprop(None)
    with pytest.raises(ArgumentTypeError, match="learning_rate for SGDOptimizer must be a number"):
        train.sgd("0.1")
    with pytest.raises(ArgumentTypeError, match="momentum for MomentumOptimizer must be a number"):
        train.momentum(0.1, None)
    with pytest.raises(ArgumentTypeError, match="beta1 for AdamOptimizer must be a number"):
        train.adam(0.1, "x")
    with pytest.raises(ArgumentTypeError, match="epsilon for AdadeltaOptimizer must be a number"):
        train.adadelta(0.1, 0.9, "eps")
    assert tf.memory().num_tensors == 0  # nothing made before the checks failed


def test_epsilon_none_is_backend_epsilon_and_explicit_is_kept():
    assert GOLDEN["epsilon"] == tf.engine().backend.epsilon() == 1e-7
    opt = train.adam(0.1, 0.9, 0.99, 1e-3)
    assert opt.get_config()["epsilon"] == 1e-3
    opt.dispose()


# ---------------------------------------------------------------------- weights
def test_sgd_weights_round_trip_and_iterations():
    """sgd_optimizer_test.ts 'Set and get weights: empty'."""
    x = tf.scalar(4).variable()
    opt1 = train.sgd(0.1)
    assert opt1.iterations == 0
    w = opt1.get_weights()
    assert [e["name"] for e in w] == ["iter"] and w[0]["tensor"].array_sync() == 0
    opt1.minimize(lambda: x.square())
    weights = opt1.get_weights()
    assert opt1.iterations == 1 and len(weights) == 1 and weights[0]["tensor"].array_sync() == 1
    opt2 = train.sgd(0.1)
    opt2.set_weights(weights)
    opt2.minimize(lambda: x.square())
    close(x.data_sync()[0], 2.56)
    assert opt2.iterations == 2
    opt3 = train.sgd(0.1)
    opt3.set_weights(opt2.get_weights())
    opt3.minimize(lambda: x.square())
    close(x.data_sync()[0], 2.048)
    assert opt3.iterations == 3
    for opt in (opt1, opt2, opt3):
        opt.dispose()


# Momentum's dispose() keeps its -learning_rate scalar, as TF.js does: allowed to leak.
@pytest.mark.tidytensor_allow_leaks
def test_get_weights_makes_a_new_iter_tensor_each_call():
    p = Problem()
    opt = train.momentum(0.1, 0.9)
    opt.minimize(p.f)
    n = tf.memory().num_tensors
    w1, w2 = opt.get_weights(), opt.get_weights()
    assert tf.memory().num_tensors == n + 2  # one 'iter' each; the state is shared, not copied
    assert w1[1]["tensor"] is w2[1]["tensor"] is opt.accumulations[0].variable
    assert not w1[1]["tensor"].trainable


def test_set_weights_errors():
    p = Problem()
    sgd = train.sgd(0.1)
    with pytest.raises(InvalidArgumentError) as e:
        sgd.set_weights(
            [
                {"name": "iter", "tensor": tf.scalar(1, "int32")},
                {"name": "w/x", "tensor": tf.zeros([2])},
            ]
        )
    assert str(e.value) == python_spelling(GOLDEN["errors"]["sgd_extra"])
    with pytest.raises(
        InvalidArgumentError, match="expects the 'iter' weight first, but got an empty list"
    ):
        sgd.set_weights([])
    with pytest.raises(ArgumentTypeError, match="expects a list of"):
        sgd.set_weights({"iter": tf.scalar(1)})
    with pytest.raises(
        ArgumentTypeError, match="entry 1 must be a dict with 'name' and a 'tensor' Tensor"
    ):
        sgd.set_weights([{"name": "iter", "tensor": tf.scalar(1)}, ("w/m", tf.zeros([2]))])

    adam = train.adam(0.1)
    adam.minimize(p.f)
    before = adam.get_weights()
    with pytest.raises(
        InvalidArgumentError,
        match=r"Adam expects 'iter' followed by 2 state tensors per variable, but got 3",
    ):
        adam.set_weights(before[:4])
    assert adam.iterations == 1  # unchanged
    assert [w["name"] for w in adam.get_weights()] == ["iter", "w/m", "b/m", "w/v", "b/v"]

    rms = train.rmsprop(0.1, 0.9, 0.0, None, True)
    rms.minimize(p.f)
    with pytest.raises(InvalidArgumentError, match="3 state tensors per variable, but got 4"):
        rms.set_weights(rms.get_weights()[:5])

    adamax = train.adamax()
    with pytest.raises(
        TidyTensorError, match=r"^get_weights\(\) is not implemented for Adamax yet\.$"
    ):
        adamax.get_weights()
    with pytest.raises(
        TidyTensorError, match=r"^set_weights\(\) is not implemented for Adamax yet\.$"
    ):
        adamax.set_weights([{"name": "iter", "tensor": tf.scalar(1)}])
    for opt in (sgd, adam, rms, adamax):
        opt.dispose()


def test_base_class_weights_messages():
    class Bare(Optimizer):
        class_name = "Bare"

    with pytest.raises(TidyTensorError) as e:
        Bare().get_weights()
    assert str(e.value) == python_spelling(GOLDEN["errors"]["base_get_weights"])
    with pytest.raises(
        TidyTensorError, match=r"^set_weights\(\) is not implemented for this optimizer class Bare$"
    ):
        Bare().set_weights([])
    with pytest.raises(TidyTensorError, match="apply_gradients"):
        Bare().apply_gradients({})


def test_set_weights_reads_iterations_from_any_numeric_tensor():
    p = Problem()
    opt = train.adagrad(0.1)
    opt.minimize(p.f)
    weights = opt.get_weights()
    fresh = train.adagrad(0.1)
    fresh.set_weights([{"name": "iter", "tensor": tf.scalar(7)}, *weights[1:]])
    assert fresh.iterations == 7 and isinstance(fresh.iterations, int)
    assert [w["name"] for w in fresh.get_weights()] == ["iter", "w/accumulator", "b/accumulator"]
    # The restored state is new variables sharing the given tensors' buffers.
    assert fresh.accumulated_grads[0].variable is not opt.accumulated_grads[0].variable
    close(
        fresh.accumulated_grads[0].variable.data_sync(),
        opt.accumulated_grads[0].variable.data_sync(),
    )


def test_adam_set_weights_resets_acc_betas():
    p = Problem()
    opt = train.adam(0.1, 0.8, 0.9)
    for _ in range(3):
        opt.minimize(p.f)
    fresh = train.adam(0.1, 0.8, 0.9)
    fresh.set_weights(opt.get_weights())
    close(fresh.acc_beta1.data_sync()[0], 0.8**4)
    close(fresh.acc_beta2.data_sync()[0], 0.9**4)
    close(opt.acc_beta1.data_sync()[0], 0.8**4)


# ---------------------------------------------------------------------- errors from minimize
def test_minimize_errors_have_tfjs_messages():
    p = Problem()
    opt = train.sgd(0.1)
    with pytest.raises(InvalidArgumentError) as e:
        opt.minimize(lambda: tf.mul(p.w, 2))
    assert str(e.value) == python_spelling(GOLDEN["errors"]["non_scalar"])
    with pytest.raises(TidyTensorError) as e:
        opt.minimize(lambda: tf.scalar(1))
    assert str(e.value) == python_spelling(GOLDEN["errors"]["unconnected"])
    with pytest.raises(InvalidArgumentError) as e:
        opt.minimize(p.f, True, [])
    assert str(e.value) == python_spelling(GOLDEN["errors"]["empty_var_list"])
    assert opt.iterations == 0
    close(p.w.data_sync(), GOLDEN["problem"]["w0"])
    opt.dispose()


def test_minimize_error_in_apply_leaks_nothing():
    p = Problem()
    opt = train.sgd(0.1)
    opt.minimize(p.f)
    base = counts()

    def bad_apply(_):
        raise RuntimeError("boom")

    opt.apply_gradients = bad_apply
    with pytest.raises(RuntimeError, match="boom"):
        opt.minimize(p.f, True)
    assert counts() == base
    opt.dispose()


def test_apply_gradients_forms_and_errors():
    p = Problem()
    opt = train.sgd(0.5)
    opt.apply_gradients({"w": tf.tensor1d([1, 1])})
    close(p.w.data_sync(), [0.0, -0.8])
    opt.apply_gradients(
        [{"name": "b", "tensor": tf.tensor1d([1, -1])}, {"name": "w", "tensor": None}]
    )
    close(p.b.data_sync(), [-0.4, 0.7])
    close(p.w.data_sync(), [0.0, -0.8])
    assert opt.iterations == 2
    with pytest.raises(InvalidArgumentError, match="no variable named 'nope' is registered"):
        opt.apply_gradients({"nope": tf.tensor1d([1, 1])})
    with pytest.raises(ArgumentTypeError, match="the gradient of 'w' must be a Tensor or None"):
        opt.apply_gradients({"w": [1, 1]})
    with pytest.raises(ArgumentTypeError, match="entry 0 must be a dict with 'name'"):
        opt.apply_gradients([("w", tf.tensor1d([1, 1]))])
    with pytest.raises(ArgumentTypeError, match="expects a dict"):
        opt.apply_gradients(tf.tensor1d([1, 1]))
    assert opt.iterations == 2
    opt.dispose()


# Momentum's dispose() keeps its -learning_rate scalar, as TF.js does: allowed to leak.
@pytest.mark.tidytensor_allow_leaks
def test_non_trainable_variable_in_var_list_gets_state_but_no_update():
    """TF.js makes the slot for every listed variable, then skips those without a gradient."""
    p = Problem()
    frozen = tf.variable(tf.tensor1d([3, 4]), False, "frozen")
    opt = train.momentum(0.1, 0.9)
    opt.minimize(lambda: tf.add(p.f(), tf.sum(frozen)), False, [p.w, frozen])
    assert frozen.array_sync() == [3.0, 4.0]
    close(p.b.data_sync(), GOLDEN["problem"]["b0"])
    assert [w["name"] for w in opt.get_weights()] == ["iter", "w/momentum", "frozen/momentum"]


def test_only_trainable_variables_are_updated_by_default():
    """optimizer_test.ts 'only bias trainable'."""
    opt = train.sgd(0.1)
    x = tf.scalar(4).variable(False)
    bias = tf.scalar(1).variable()
    stray = tf.scalar(-1).variable()
    cost = opt.minimize(lambda: x.square().add(bias), True)
    assert x.array_sync() == 4.0
    close(bias.data_sync()[0], 0.9)
    close(cost.data_sync()[0], 17)
    assert stray.array_sync() == -1.0
    opt.dispose()


def test_gradient_dict_follows_js_key_order():
    """Object.keys lists array-index keys first, ascending: the slots follow that order."""
    assert js_key_order(["w", "12", "b", "3", "03", "-1", "4294967295", "0"]) == [
        "0",
        "3",
        "12",
        "w",
        "b",
        "03",
        "-1",
        "4294967295",
    ]
    p = Problem(auto_b=True)
    assert p.b.name.isdigit()
    opt = train.adagrad(0.1)
    opt.minimize(p.f)
    assert [w["name"] for w in opt.get_weights()] == [
        "iter",
        f"{p.b.name}/accumulator",
        "w/accumulator",
    ]


def test_isinstance_is_duck_typed_like_tfjs():
    class Duck:
        def minimize(self):
            pass

        def compute_gradients(self):
            pass

        def apply_gradients(self):
            pass

    class NotADuck:
        def minimize(self):
            pass

    assert isinstance(Duck(), Optimizer)
    assert not isinstance(NotADuck(), Optimizer)
    opt = train.sgd(0.1)
    assert isinstance(opt, Optimizer) and isinstance(opt, train.SGDOptimizer)
    assert not isinstance(opt, train.AdamOptimizer)
    assert not isinstance(Duck(), train.SGDOptimizer)
    opt.dispose()


def test_state_is_made_lazily_as_non_trainable_variables():
    p = Problem()
    n_vars = len(tf.engine().state.registered_variables)
    opt = train.rmsprop(0.1, 0.9, 0.5, None, True)
    assert len(tf.engine().state.registered_variables) == n_vars
    assert opt.get_weights()[1:] == []
    opt.minimize(p.f)
    state = [w["tensor"] for w in opt.get_weights()[1:]]
    assert len(state) == 6 and all(isinstance(v, tf.Variable) and not v.trainable for v in state)
    assert len(tf.engine().state.registered_variables) == n_vars + 6


def test_adam_and_adamax_make_their_scalars_in_the_constructor():
    n = len(tf.engine().state.registered_variables)
    adam = train.adam()
    assert len(tf.engine().state.registered_variables) == n + 2
    assert adam.acc_beta1.trainable and adam.acc_beta1.array_sync() == pytest.approx(0.9)
    adamax = train.adamax()
    assert len(tf.engine().state.registered_variables) == n + 4
    assert adamax.iteration.array_sync() == 0.0
    adam.dispose()
    adamax.dispose()
    assert len(tf.engine().state.registered_variables) == n


def test_optimizer_inside_tidy_keeps_its_state():
    p = Problem()
    opt = train.adam(0.05)
    tf.tidy(lambda: opt.minimize(p.f))
    n = counts()
    tf.tidy(lambda: opt.minimize(p.f))
    assert counts() == n
    assert all(not w["tensor"].is_disposed for w in opt.get_weights())


def test_optimizers_are_in_the_serialization_map():
    # TF.js's registerOptimizers puts all seven into SerializationMap (as 'Custom>' names).
    table = tf.serialization.SerializationMap.get_map().class_name_map["optimizer"]
    assert sorted(table) == ["Adadelta", "Adagrad", "Adam", "Adamax", "Momentum", "RMSProp", "SGD"]
    original = tf.train.rmsprop(0.01, 0.8, 0.1, 1e-6, True)
    cls = table[original.get_class_name()]
    copy = cls.from_config(cls, original.get_config())
    assert type(copy) is type(original) and copy.get_config() == original.get_config()
    assert tf.serialization.get_registered_name(cls) == "Custom>RMSProp"
    tf.dispose([original, copy])
