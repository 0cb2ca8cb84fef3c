"""Differential fuzz of the optimizers: replays tests/golden/results/optimizers_fuzz.json.

tests/golden/optimizers_fuzz.js draws random optimizer scenarios (every optimizer, random
hyperparameters, variables of random shapes with scalars and empty tensors, special values in
the gradients, minimize / apply_gradients in dict and list forms with subsets and new
variables, get_weights / set_weights round trips and transfers, configs) and records what
TF.js 4.22.0 (cpu backend) does after every action. Each scenario is replayed here twice, with
the fused optimizer kernels on and off, and must give TF.js's results both times: variable
values and costs bit for bit, optimizer weights, iterations, configs, tf.memory() counts and
error messages.

Regenerate: cd tests/golden && node optimizers_fuzz.js   (another seed: node optimizers_fuzz.js
<seed> <outfile>; point OPTIMIZERS_FUZZ_GOLDEN at that file to replay it).
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import numpy as np
import pytest

import tidytensor as tf
import tidytensor.train as train
from python_spelling import python_spelling
from tidytensor.optimizers import OPTIMIZER_CLASSES

GOLDEN_PATH = Path(
    os.environ.get(
        "OPTIMIZERS_FUZZ_GOLDEN",
        Path(__file__).parent.parent / "golden" / "results" / "optimizers_fuzz.json",
    )
)
GOLDEN = json.loads(GOLDEN_PATH.read_text())
SCENARIOS = GOLDEN["scenarios"]
ERRORS = GOLDEN["errors"]


def f32(b64: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(b64), dtype="<f4")


def tensor_of(b64: str, shape: list[int]) -> tf.Tensor:
    return tf.tensor(f32(b64).reshape(shape), shape, "float32")


def counts(base: list[int] | None = None) -> list[int]:
    m = tf.memory()
    now = [m.num_tensors, m.num_data_buffers, m.num_bytes]
    return [a - b for a, b in zip(now, base, strict=True)] if base else now


def same_bits(actual, expected_b64: str) -> bool:
    a = np.ascontiguousarray(np.asarray(actual, dtype=np.float32)).reshape(-1)
    e = f32(expected_b64)
    if a.shape != e.shape:
        return False
    # NaN payloads are not compared (TF.js and NumPy may make different quiet NaNs).
    both_nan = np.isnan(a) & np.isnan(e)
    return bool(np.all(both_nan | (a.view(np.uint32) == e.view(np.uint32))))


def describe(actual, expected_b64: str) -> str:
    a = np.asarray(actual, dtype=np.float32).reshape(-1)
    e = f32(expected_b64)
    return f"tidytensor {a.tolist()} vs TF.js {e.tolist()}"


def from_config(via: str, class_name: str, config: dict):
    # TF.js's tf.serialization map holds the optimizer classes; tidytensor's
    # tf.serialization map holds the Layers kinds only, and OPTIMIZER_CLASSES the optimizers.
    cls = OPTIMIZER_CLASSES[class_name]
    return cls.from_config(cls, config)


def same_gist(actual: str, expected: str) -> bool:
    """Whether tidytensor's error message says what TF.js's does. tidytensor may add detail
    after TF.js's text (assign() names the variable), and spells names as Python does."""
    expected = python_spelling(expected)
    if actual == expected or actual.startswith(expected.rstrip(".")):
        return True
    # TF.js fails with a JavaScript TypeError when a disposed optimizer's state is used;
    # tidytensor says that a tensor is disposed.
    if expected.startswith("Cannot read properties of undefined"):
        return "disposed" in actual
    # tidytensor's use-after-dispose error also names the tensor, the op and the lines.
    if expected == "Tensor is disposed.":
        return actual.startswith("Tensor ") and " is disposed" in actual
    return False


def config_equal(actual: dict, expected: dict) -> bool:
    if list(actual) != list(expected):
        return False
    for key, value in expected.items():
        got = actual[key]
        if isinstance(value, bool) or value is None:
            if got != value:
                return False
        elif float(got) != float(value):
            return False
    return True


def snapshot(opt, variables: dict, order: list[str], base: list[int]) -> tuple:
    """What an atomic step must leave unchanged when it fails: every variable's bits, the
    optimizer's weights (names and bits), iterations and the memory counts."""
    values = tuple(
        variables[n].data_sync().tobytes() for n in order if not variables[n].is_disposed
    )
    try:
        ws = opt.get_weights()
    except Exception:  # noqa: BLE001 - Adamax has no get_weights (as in TF.js)
        weights = None
    else:
        weights = tuple(
            (w["name"], None if w["tensor"].is_disposed else w["tensor"].data_sync().tobytes())
            for w in ws
        )
        ws[0]["tensor"].dispose()
    return values, weights, opt.iterations, tuple(counts(base))


def replay(sc: dict, fused: bool) -> list[str]:
    """Runs one scenario; returns its mismatches with TF.js (empty when it agrees)."""
    problems: list[str] = []
    res = sc["result"]
    variables: dict[str, tf.Variable] = {}
    order: list[str] = []
    shapes: dict[str, list[int]] = {}

    def make_var(v: dict) -> None:
        if v.get("dtype") == "int32":
            t = tf.tensor(v["init"], v["shape"], "int32")
        else:
            t = tensor_of(v["init"], v["shape"])
        variables[v["name"]] = tf.variable(t, v["trainable"], v["name"])
        t.dispose()
        order.append(v["name"])
        shapes[v["name"]] = v["shape"]

    tf.set_kernel_fusion(fused)
    try:
        for v in sc["vars"]:
            make_var(v)
        base = counts()
        opt = getattr(train, sc["factory"])(*sc["args"])
        if opt.get_class_name() != res["className"]:
            problems.append(f"class_name {opt.get_class_name()} vs {res['class_name']}")
        if counts(base) != res["construct"]:
            problems.append(f"construct mem {counts(base)} vs {res['construct']}")
        problems_before = len(problems)
        for step, (a, expected) in enumerate(zip(sc["actions"], res["steps"], strict=True)):
            where = f"action {step} ({a['op']})"
            rec: dict = {}
            error = None
            before = snapshot(opt, variables, order, base)
            try:
                op = a["op"]
                if op == "addVar":
                    make_var(a)
                elif op == "minimize":
                    cs = [
                        (variables[t["name"]], tensor_of(t["c"], shapes[t["name"]]), t["q"])
                        for t in a["terms"]
                    ]

                    def f(cs=cs):
                        total = None
                        for v, c, q in cs:
                            term = tf.sum(tf.mul(v, c))
                            if q is not None:
                                term = tf.add(term, tf.mul(tf.sum(tf.square(v)), q))
                            total = term if total is None else tf.add(total, term)
                        return total

                    var_list = (
                        None if a["varList"] is None else [variables[n] for n in a["varList"]]
                    )
                    try:
                        cost = opt.minimize(f, a["returnCost"], var_list)
                        if a["returnCost"]:
                            rec["cost"] = cost.data_sync()
                            rec["cost_mem"] = counts(base)
                            cost.dispose()
                    finally:
                        tf.dispose([c for _, c, _ in cs])
                    if not a["returnCost"]:
                        rec["returned_null"] = cost is None
                elif op == "apply":
                    made = []

                    def grad_of(e, made=made):
                        if e.get("self"):
                            return variables[e["name"]]
                        if e["grad"] is None:
                            return None
                        if e.get("dtype") == "int32":
                            t = tf.tensor(e["grad"], shapes[e["name"]], "int32")
                        else:
                            t = tensor_of(e["grad"], e.get("shape", shapes[e["name"]]))
                        made.append(t)
                        return t

                    if a["form"] == "dict":
                        grads = {}
                        for e in a["entries"]:
                            t = grad_of(e)
                            if t is not None:
                                grads[e["name"]] = t
                    else:
                        grads = [{"name": e["name"], "tensor": grad_of(e)} for e in a["entries"]]
                    try:
                        opt.apply_gradients(grads)
                    finally:
                        tf.dispose(made)
                elif op == "weights":
                    ws = opt.get_weights()
                    rec["weights"] = [
                        (w["name"], w["tensor"].dtype, w["tensor"].shape, w["tensor"].data_sync())
                        for w in ws
                    ]
                    ws[0]["tensor"].dispose()
                elif op == "roundTrip":
                    ws = opt.get_weights()
                    opt.set_weights(ws)
                    ws[0]["tensor"].dispose()
                elif op == "transfer":
                    ws = opt.get_weights()
                    opt2 = from_config(a["via"], opt.get_class_name(), opt.get_config())
                    opt2.set_weights(ws)
                    ws[0]["tensor"].dispose()
                    opt.dispose()
                    opt = opt2
                elif op == "config":
                    rec["config"] = opt.get_config()
                    copy = from_config("serialization", opt.get_class_name(), rec["config"])
                    rec["from_config"] = copy.get_config()
                    copy.dispose()
                elif op == "setLR":
                    opt.set_learning_rate(a["value"])
                elif op == "setMomentum":
                    opt.set_momentum(a["value"])
                elif op == "setTrainable":
                    variables[a["name"]].trainable = a["value"]
                elif op == "dispose":
                    opt.dispose()
            except Exception as e:  # noqa: BLE001 - compared with TF.js's error below
                error = str(e)
            if (error is None) != ("error" not in expected):
                problems.append(f"{where}: error {error!r} vs TF.js {expected.get('error')!r}")
            elif error is not None and not same_gist(error, expected["error"]):
                problems.append(f"{where}: message {error!r} vs TF.js {expected['error']!r}")
            if "cost" in expected:
                if "cost" not in rec or not same_bits(rec["cost"], expected["cost"]):
                    problems.append(f"{where}: cost {rec.get('cost')} vs {f32(expected['cost'])}")
                elif rec["cost_mem"] != expected["cost_mem"]:
                    problems.append(
                        f"{where}: mem with cost {rec['cost_mem']} vs {expected['cost_mem']}"
                    )
            if (
                "returned_null" in expected
                and rec.get("returned_null") != expected["returned_null"]
            ):
                problems.append(f"{where}: returned {rec.get('returned_null')}")
            if "weights" in expected:
                got = rec.get("weights", [])
                if [w[0] for w in got] != [w["name"] for w in expected["weights"]]:
                    problems.append(
                        f"{where}: weight names {[w[0] for w in got]} vs "
                        f"{[w['name'] for w in expected['weights']]}"
                    )
                else:
                    for (name, dtype, shape, data), w in zip(got, expected["weights"], strict=True):
                        if dtype != w["dtype"] or list(shape) != w["shape"]:
                            problems.append(f"{where}: weight {name} {dtype}{shape} vs {w}")
                        elif dtype == "int32":
                            if list(data) != w["values"]:
                                problems.append(f"{where}: weight {name} {list(data)} vs {w}")
                        elif not same_bits(data, w["values"]):
                            problems.append(
                                f"{where}: weight {name}: {describe(data, w['values'])}"
                            )
            if "config" in expected:
                if not config_equal(rec.get("config", {}), expected["config"]):
                    problems.append(f"{where}: config {rec.get('config')} vs {expected['config']}")
                if not config_equal(rec.get("from_config", {}), expected["from_config"]):
                    problems.append(
                        f"{where}: from_config {rec.get('from_config')} vs "
                        f"{expected['from_config']}"
                    )
            if opt.iterations != expected["iterations"]:
                problems.append(f"{where}: iterations {opt.iterations} vs {expected['iterations']}")
            for name, vb64 in zip(order, expected["values"], strict=True):
                data = variables[name].data_sync()
                if not same_bits(data, vb64):
                    problems.append(f"{where}: {name}: {describe(data, vb64)}")
            if counts(base) != expected["mem"]:
                problems.append(f"{where}: mem {counts(base)} vs TF.js {expected['mem']}")
            if (
                error is not None
                and a["op"] in ("apply", "minimize")
                and len(problems) > problems_before
                and same_gist(error, expected["error"])
            ):
                # TF.js left this failed step half-applied (some variables and slots updated,
                # slots of the failed step kept); tidytensor's steps are atomic: everything
                # must be exactly as before the step. The rest of the scenario continues from
                # TF.js's torn state, so it cannot be compared.
                del problems[problems_before:]
                after = snapshot(opt, variables, order, base)
                if after != before:
                    problems.append(f"{where}: failed step changed the state: {before} -> {after}")
                tf.dispose([variables[n] for n in order])
                opt.dispose()
                return problems
            problems_before = len(problems)
        try:
            opt.dispose()
            error = None
        except Exception as e:  # noqa: BLE001
            error = str(e)
        if error != res.get("dispose_error"):
            problems.append(f"dispose(): error {error!r} vs TF.js {res.get('dispose_error')!r}")
        if counts(base) != res["final_mem"]:
            problems.append(f"after dispose: mem {counts(base)} vs TF.js {res['final_mem']}")
        tf.dispose([variables[n] for n in order])
        if counts(base) != res["leaked"]:
            problems.append(f"at the end: mem {counts(base)} vs TF.js {res['leaked']}")
    finally:
        tf.set_kernel_fusion(True)
        for v in variables.values():
            if not v.is_disposed:
                v.dispose()
    return problems


def _ids(sc: dict) -> str:
    return f"{sc['id']}-{sc['factory']}"


# Momentum's dispose() keeps its -learning_rate scalar, and set_weights() leaves the old state
# variables registered, exactly as in TF.js: the leak checker is told so (counts are compared
# with TF.js's above instead).
@pytest.mark.tidytensor_allow_leaks
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "unfused"])
@pytest.mark.parametrize("sc", SCENARIOS, ids=_ids)
def test_fuzz_scenario(sc, fused):
    problems = replay(sc, fused)
    assert not problems, f"scenario {sc['id']} {sc['factory']}{sc['args']}:\n" + "\n".join(
        problems[:20]
    )


# ---------------------------------------------------------------------- bad arguments
#: Messages that say what TF.js's do in Python's terms.
SAME_GIST = {
    # TF.js: "The varList passed in variableGrads(f, varList) must be an array of variables"
    "minimize_var_list_not_variables": (
        "var_list for variable_grads(f, var_list) must be a list of Variables"
    ),
}


def _error_of(fn) -> str | None:
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return str(e)
    return None


@pytest.mark.tidytensor_allow_leaks
def test_fuzz_error_messages():
    w = tf.variable(tf.zeros([3]), True, "err_w")
    nt = tf.variable(tf.zeros([2]), False, "err_nt")
    zeros = tf.zeros([3])
    got = {
        "rmsprop_null_lr": _error_of(lambda: train.rmsprop(None)),
        "minimize_not_scalar": _error_of(lambda: train.sgd(0.1).minimize(lambda: tf.mul(w, 2))),
        "minimize_unconnected": _error_of(lambda: train.adam(0.1).minimize(lambda: tf.scalar(1))),
        "minimize_only_non_trainable": _error_of(
            lambda: train.sgd(0.1).minimize(lambda: tf.sum(nt), True, [nt])
        ),
        "minimize_var_list_not_variables": _error_of(
            lambda: train.sgd(0.1).minimize(lambda: tf.sum(w), True, [zeros])
        ),
        "minimize_f_not_function": _error_of(lambda: train.sgd(0.1).minimize(3)),
        "adamax_get_weights": _error_of(lambda: train.adamax().get_weights()),
        "adamax_set_weights": _error_of(lambda: train.adamax().set_weights([])),
        "sgd_set_weights_extra": _error_of(
            lambda: train.sgd(0.1).set_weights(
                [
                    {"name": "iter", "tensor": tf.scalar(1, "int32")},
                    {"name": "x", "tensor": tf.zeros([2])},
                ]
            )
        ),
    }
    tf.dispose([w, nt, zeros])
    assert set(got) == set(ERRORS)
    for key, expected in ERRORS.items():
        assert got[key] is not None, key
        if key in SAME_GIST:  # worded for Python's names
            assert got[key] == SAME_GIST[key], key
        else:
            assert same_gist(got[key], expected), key
