"""Differential memory accounting: random programs replayed on tidytensor against TF.js.

tests/golden/memory_programs.js draws seeded random programs (tensors, view ops that share
buffers, nested tidies returning tensors/lists/dicts, keeps, start/end scopes, disposes and
tf.dispose of nested containers, variables, assign, gradients, custom gradients, the seven
optimizers' minimize, a layers model's predict/fit/dispose, buffers, data_sync/array_sync),
runs each on TF.js 4.22.0 and records after every step (nested ones too) ``num_tensors``,
``num_data_buffers``, ``num_bytes``, which handles are disposed, the error a step raised and
the value a read returned. This test runs the same programs on tidytensor and compares every
record. The step format is described at the top of memory_programs.js.

Regenerate: ``cd tests/golden && node memory_programs.js generate`` (or, to replay the stored
programs only, ``node memory_programs.js``).
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any

import pytest

import tidytensor as tf
from golden_util import GOLDEN_DIR
from python_spelling import python_spelling
from tidytensor.naming import snake_case

# MEMORY_PROGRAMS=<name> replays programs/<name>.json (see memory_programs.js) instead.
_FILE = os.environ.get("MEMORY_PROGRAMS", "memory_programs") + ".json"
PROGRAMS = json.loads((GOLDEN_DIR / "programs" / _FILE).read_text())
RESULTS = json.loads((GOLDEN_DIR / "results" / _FILE).read_text())


def _custom_square(x, save):
    save([x])
    return {"value": x.square(), "grad_func": lambda dy, saved: [dy.mul(saved[0]).mul(2)]}


def _custom_affine(x, save):
    # No tidy around the value: its temporary x*3 is the custom_grad op's to free.
    return {"value": x.mul(3).add(1), "grad_func": lambda dy, saved: [dy.mul(3)]}


CUSTOM = [tf.custom_grad(_custom_square), tf.custom_grad(_custom_affine)]


def _round(v: Any) -> Any:
    if isinstance(v, list):
        return [_round(x) for x in v]
    if isinstance(v, (bool, str)):
        return v
    v = float(v)  # NumPy scalars too
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return round(v * 1e4) / 1e4


class Interpreter:
    """Runs one program's steps (the JSON of memory_programs.js) and records as it does."""

    def __init__(self) -> None:
        self.H: dict[int, Any] = {}
        self.B: dict[int, Any] = {}
        self.O: dict[int, Any] = {}
        self.M: dict[int, Any] = {}
        self.L: dict[int, Any] = {}
        self.trace: list[dict] = []

    # ---------------------------------------------------------------- helpers
    def build(self, c: Any) -> Any:
        if c is None:
            return None
        if "t" in c:
            return self.H[c["t"]]
        if "l" in c:
            return [self.build(x) for x in c["l"]]
        if "d" in c:
            return {k: self.build(v) for k, v in c["d"].items()}
        if "n" in c:
            return c["n"]
        return c["s"]

    def record(self, p: str, extra: dict) -> None:
        m = tf.memory()
        d = sorted(h for h, t in self.H.items() if t.is_disposed)
        self.trace.append(
            {"p": p, "n": [m.num_tensors, m.num_data_buffers, m.num_bytes], "d": d, **extra}
        )

    def run_body(self, body: list, p: str) -> None:
        for i, s in enumerate(body):
            self.exec(s, f"{p}{i}")

    def fn_of(self, F: dict, p: str):
        def f(*args):
            for h, a in zip(F["params"], args, strict=True):
                self.H[h] = a
            self.run_body(F["body"], f"{p}.f")
            return self.H[F["ret"]]

        return f

    def exec(self, s: dict, p: str) -> None:
        extra: dict = {}
        try:
            v = getattr(self, "op_" + s["op"])(s, p)
            if v is not None:
                extra["v"] = v
        except Exception as e:  # noqa: BLE001 - every error is data to compare
            extra["e"] = f"{type(e).__name__}: {e}"
        self.record(p, extra)

    def run(self, program: dict) -> list[dict]:
        for i, s in enumerate(program["steps"]):
            self.exec(s, str(i))
        return self.trace

    # ---------------------------------------------------------------- steps
    def op_tensor(self, s, p):
        self.H[s["out"]] = tf.tensor(s["values"], s["shape"], s["dtype"])

    def op_unary(self, s, p):
        x = self.H[s["x"]]
        fn = snake_case(s["fn"])
        self.H[s["out"]] = getattr(x, fn)() if s["method"] else getattr(tf, fn)(x)

    def op_binary(self, s, p):
        a = self.H[s["a"]]
        b = s["lit"] if s.get("b") is None else self.H[s["b"]]
        fn = snake_case(s["fn"])
        self.H[s["out"]] = getattr(a, fn)(b) if s["method"] else getattr(tf, fn)(a, b)

    def op_view(self, s, p):
        x = self.H[s["x"]]
        fn = snake_case(s["fn"])
        args = [] if s["fn"] in ("clone", "flatten") else [s.get("arg")]
        self.H[s["out"]] = getattr(x, fn)(*args) if s["method"] else getattr(tf, fn)(x, *args)

    def op_slice(self, s, p):
        self.H[s["out"]] = self.H[s["x"]].slice(0, 1)

    def op_concat(self, s, p):
        self.H[s["out"]] = tf.concat([self.H[h] for h in s["xs"]])

    def op_stack(self, s, p):
        self.H[s["out"]] = tf.stack([self.H[h] for h in s["xs"]])

    def op_unstack(self, s, p):
        for h, t in zip(s["outs"], tf.unstack(self.H[s["x"]]), strict=True):
            self.H[h] = t

    def op_dispose(self, s, p):
        self.H[s["x"]].dispose()

    def op_tf_dispose(self, s, p):
        tf.dispose(self.build(s["arg"]))

    def op_keep(self, s, p):
        tf.keep(self.H[s["x"]])

    def op_tidy(self, s, p):
        def fn():
            self.run_body(s["body"], f"{p}.")
            if s.get("throw"):
                raise RuntimeError("boom")
            return self.build(s["ret"])

        if s["name"] is None:
            tf.tidy(fn)
        else:
            tf.tidy(s["name"], fn)

    def op_start_scope(self, s, p):
        tf.engine().start_scope(s["name"])

    def op_end_scope(self, s, p):
        tf.engine().end_scope(self.build(s["ret"]))

    def op_variable(self, s, p):
        x = self.H[s["x"]]
        args = (s["trainable"], s["name"], s["dtype"])
        self.H[s["out"]] = x.variable(*args) if s["method"] else tf.variable(x, *args)

    def op_assign(self, s, p):
        self.H[s["v"]].assign(self.H[s["x"]])

    def op_dispose_variables(self, s, p):
        tf.dispose_variables()

    def op_data_sync(self, s, p):
        return _round(list(self.H[s["x"]].data_sync()))

    def op_array_sync(self, s, p):
        return _round(self.H[s["x"]].array_sync())

    def op_buffer(self, s, p):
        self.B[s["out"]] = tf.buffer(s["shape"], s["dtype"])

    def op_buffer_sync(self, s, p):
        self.B[s["out"]] = self.H[s["x"]].buffer_sync()

    def op_buffer_set(self, s, p):
        self.B[s["b"]].set(s["value"], *s["loc"])

    def op_to_tensor(self, s, p):
        self.H[s["out"]] = self.B[s["b"]].to_tensor()

    def op_custom(self, s, p):
        self.H[s["out"]] = CUSTOM[s["variant"]](self.H[s["x"]])

    def op_grad(self, s, p):
        dy = None if s["dy"] is None else self.H[s["dy"]]
        self.H[s["out"]] = tf.grad(self.fn_of(s["f"], p))(self.H[s["x"]], dy)

    def op_grads(self, s, p):
        out = tf.grads(self.fn_of(s["f"], p))([self.H[h] for h in s["xs"]])
        for h, t in zip(s["outs"], out, strict=True):
            self.H[h] = t

    def op_value_and_grad(self, s, p):
        r = tf.value_and_grad(self.fn_of(s["f"], p))(self.H[s["x"]])
        self.H[s["out_value"]] = r.value
        self.H[s["out_grad"]] = r.grad

    def op_value_and_grads(self, s, p):
        r = tf.value_and_grads(self.fn_of(s["f"], p))([self.H[h] for h in s["xs"]])
        self.H[s["out_value"]] = r.value
        for h, t in zip(s["out_grads"], r.grads, strict=True):
            self.H[h] = t

    def op_variable_grads(self, s, p):
        var_list = None if s["var_list"] is None else [self.H[h] for h in s["var_list"]]
        r = tf.variable_grads(self.fn_of(s["f"], p), var_list)
        self.H[s["out_value"]] = r.value
        for k, t in r.grads.items():
            if k in s["out_grads"]:
                self.H[s["out_grads"][k]] = t
        return sorted("<auto>" if k.isdigit() else k for k in r.grads)  # as memory_programs.js

    def op_optimizer(self, s, p):
        self.O[s["out"]] = getattr(tf.train, s["kind"])(*s["args"])

    def op_minimize(self, s, p):
        var_list = None if s["var_list"] is None else [self.H[h] for h in s["var_list"]]
        r = self.O[s["opt"]].minimize(self.fn_of(s["f"], p), s["return_cost"], var_list)
        if s["out"] is not None:
            self.H[s["out"]] = r
        return "null" if r is None else "tensor"

    def op_opt_dispose(self, s, p):
        self.O[s["opt"]].dispose()

    def op_model(self, s, p):
        m = tf.sequential()
        for i, u in enumerate(s["units"]):
            cfg: dict = {"units": u, "activation": s["activation"]}
            if i == 0:
                cfg["input_shape"] = [s["input_dim"]]
            m.add(tf.layers.dense(**cfg))
            if i == 0 and s.get("extra") == "dropout":
                m.add(tf.layers.dropout(rate=0.5))
            if i == 0 and s.get("extra") == "batchNormalization":
                m.add(tf.layers.batch_normalization())
        opt = s["optimizer"]
        if opt is not None:
            m.compile(
                optimizer=opt if isinstance(opt, str) else self.O[opt["o"]], loss="meanSquaredError"
            )
        self.M[s["out"]] = m

    def op_predict(self, s, p):
        kwargs = {} if s.get("batch_size") is None else {"batch_size": s["batch_size"]}
        self.H[s["out"]] = self.M[s["m"]].predict(self.H[s["x"]], **kwargs)

    def op_fit(self, s, p):
        x, y = self.H[s["x"]], self.H[s["y"]]
        kwargs = {"epochs": s["epochs"], "batch_size": s["batch_size"], "verbose": 0}
        if s.get("validation_split"):
            kwargs["validation_split"] = s["validation_split"]
        self.M[s["m"]].fit(x, y, **kwargs)

    def op_evaluate(self, s, p):
        m = self.M[s["m"]]
        self.H[s["out"]] = m.evaluate(self.H[s["x"]], self.H[s["y"]], batch_size=s["batch_size"])

    def op_layer(self, s, p):
        self.L[s["out"]] = tf.layers.dense(units=s["units"], activation=s["activation"])

    def op_apply(self, s, p):
        self.H[s["out"]] = self.L[s["l"]].apply(self.H[s["x"]])

    def op_layer_dispose(self, s, p):
        r = self.L[s["l"]].dispose()
        return [r.ref_count_after_dispose, r.num_disposed_variables]

    def op_get_weights(self, s, p):
        ws = self.O[s["opt"]].get_weights()
        self.H[s["outs"][0]] = ws[0]["tensor"]  # the new 'iter' scalar only
        return [w["name"] for w in ws]

    def op_model_dispose(self, s, p):
        r = self.M[s["m"]].dispose()
        return [r.ref_count_after_dispose, r.num_disposed_variables]


def _same_error(expected: str, actual: str) -> bool:
    actual = re.sub(
        r"\b(sequential|dense)_\w*?\d+\b", r"\1_N", actual
    )  # as memory_programs.js does
    if expected == "Tensor is disposed.":
        # tidytensor's use-after-dispose error names the tensor, the op and the sites
        # (API.md §2); TF.js's is the bare sentence.
        return "disposed" in actual
    expected = python_spelling(expected)  # the names in the user's Python spelling
    return " ".join(expected.split()) in " ".join(actual.split())


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-3, abs_tol=2e-4)
    return a == b


def _step_at(program: dict, path: str) -> dict:
    """The step a record's path names ("3", "3.1", "3.f0", "3.1.f2" ...)."""
    parts = path.split(".")
    steps = program["steps"]
    step = steps[int(parts[0])]
    for part in parts[1:]:
        if part.startswith("f"):
            step = step["f"]["body"][int(part[1:])]
        else:
            step = step["body"][int(part)]
    return step


def compare(program: dict, expected: list[dict], actual: list[dict]) -> str | None:
    """The first difference, described, or None."""
    for i, want in enumerate(expected):
        if i >= len(actual):
            return f"tidytensor stopped after {len(actual)} records; TF.js went on to {want}"
        got = actual[i]
        problems = []
        if got["p"] != want["p"]:
            problems.append(f"path {got['p']} vs TF.js {want['p']}")
        elif got["n"] != want["n"]:
            problems.append(
                f"(num_tensors, num_data_buffers, num_bytes) {got['n']} vs TF.js {want['n']}"
            )
        if got["d"] != want["d"]:
            problems.append(f"disposed handles {got['d']} vs TF.js {want['d']}")
        if ("e" in want) != ("e" in got):
            problems.append(f"error {got.get('e')!r} vs TF.js {want.get('e')!r}")
        elif "e" in want and not _same_error(want["e"], got["e"]):
            problems.append(f"error message {got['e']!r} vs TF.js {want['e']!r}")
        if "v" in want and "e" not in want:
            # Reads of values are compared where no model's random initial weights fed them.
            read = _step_at(program, want["p"])["op"] in ("data_sync", "array_sync")
            if (program["deterministic"] or not read) and not _close(want["v"], got.get("v")):
                problems.append(f"value {got.get('v')} vs TF.js {want['v']}")
        if problems:
            step = json.dumps(_step_at(program, want["p"]))
            if len(step) > 400:
                step = step[:400] + "..."
            return f"record {i}, step {want['p']} {step}:\n  " + "\n  ".join(problems)
    if len(actual) != len(expected):
        return f"tidytensor made {len(actual)} records, TF.js {len(expected)}"
    return None


@pytest.fixture(params=["instrumented", "fast"])
def kernel_path(request):
    """Each program runs on the instrumented kernel path (the kernel leak detector on, as
    tests/conftest.py sets it) and on the fast path that user code takes."""
    engine = tf.engine()
    if request.param == "fast":
        engine.check_kernel_leaks = False
        engine.update_mode()
    return request.param


@pytest.mark.tidytensor_allow_leaks  # the programs leak on purpose (kept tensors, no tidy)
@pytest.mark.parametrize("program", PROGRAMS, ids=[p["name"] for p in PROGRAMS])
def test_memory_program(program, kernel_path):
    actual = Interpreter().run(program)
    problem = compare(program, RESULTS[program["name"]], actual)
    assert problem is None, problem
