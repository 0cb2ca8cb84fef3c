"""``tidytensor summary MODEL`` and ``tidytensor predict MODEL --input FILE`` (wired into
:mod:`tidytensor.cli`). MODEL is a TF.js model (directory, ``model.json``, URL) or a Keras
``.keras``/``.h5`` file."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
from typing import Any

import numpy as np

from .errors import TidyTensorError
from .graph_model import GraphModel
from .io.artifacts import (
    GRAPH_MODEL_FORMAT,
    ModelArtifacts,
    is_graph_topology,
    weight_data_length,
)
from .io.router import get_load_handler
from .layers.engine.keras_files import is_keras_file, keras_file_version, load_keras_file
from .layers.engine.saving import model_from_artifacts
from .ops import tensor
from .py_strings import py_shape
from .scopes import dispose, tidy

__all__ = ["load_for_cli", "run"]


def _err(message: str) -> int:
    print(f"tidytensor: error: {message}", file=sys.stderr)
    return 1


def load_for_cli(model: str, strict: bool = True) -> tuple[Any, ModelArtifacts]:
    """A layers model, or a graph model when ``model.json`` holds one."""
    if is_keras_file(model):  # Keras's own files: no TF.js artifacts, the model describes it
        artifacts = ModelArtifacts(format="keras", generated_by=keras_file_version(model))
        return load_keras_file(model), artifacts
    artifacts = get_load_handler(model).load()
    if artifacts.format == GRAPH_MODEL_FORMAT or is_graph_topology(artifacts.model_topology):
        return GraphModel(artifacts), artifacts
    return model_from_artifacts(artifacts, strict), artifacts


def import_modules(names: list[str]) -> None:
    """``--import MODULE``: each a dotted module name (found from the current directory, as
    ``python -m`` finds it) or the path of a ``.py`` file, imported in order, so that the
    custom classes it registers (``tf.serialization.register_class``) are known on load."""
    if names and "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    for name in names:
        if name.endswith(".py"):
            path = os.path.expanduser(name)
            if not os.path.isfile(path):
                raise OSError(f"--import {name}: no such file")
            module_name = os.path.splitext(os.path.basename(path))[0]
            spec = importlib.util.spec_from_file_location(module_name, path)
            if spec is None or spec.loader is None:
                raise OSError(f"--import {name}: cannot import this file")
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = module
            spec.loader.exec_module(module)
        else:
            try:
                importlib.import_module(name)
            except ModuleNotFoundError as exc:
                raise OSError(
                    f"--import {name}: no module named {exc.name!r} (looked in the current "
                    "directory and sys.path; a file path must end in .py)"
                ) from None


def run(args: Any) -> int:
    try:
        import_modules(getattr(args, "imports", []))
        if args.command == "summary":
            return _summary(args)
        return _predict(args)
    except (TidyTensorError, OSError, ValueError) as exc:
        message = str(exc)
        if "Unknown layer" in message and not getattr(args, "imports", []):
            message += (
                f"\nA custom layer: give tidytensor {args.command} --import MODULE, the module "
                "that registers it."
            )
        return _err(message)


def _describe_weights(artifacts: ModelArtifacts) -> list[str]:
    specs = artifacts.weight_specs or []
    lines = []
    model_specs = [s for s in specs if s.get("group") != "optimizer"]
    opt_specs = [s for s in specs if s.get("group") == "optimizer"]
    n_bytes = weight_data_length(artifacts.weight_data)
    files = sum(len(g["paths"]) for g in artifacts.weights_manifest or [])
    groups = len(artifacts.weights_manifest or [])
    lines.append(
        f"Weights: {len(model_specs)} tensors"
        + (f" + {len(opt_specs)} optimizer tensors" if opt_specs else "")
        + f", {n_bytes} bytes"
        + (f" in {files} file(s), {groups} group(s)" if files else "")
    )
    quantized: dict[str, int] = {}
    for s in specs:
        q = s.get("quantization")
        if q:
            quantized[q["dtype"]] = quantized.get(q["dtype"], 0) + 1
    if quantized:
        lines.append(
            "Quantized: " + ", ".join(f"{n} as {dtype}" for dtype, n in sorted(quantized.items()))
        )
    return lines


def _graph_summary(model: GraphModel, artifacts: ModelArtifacts) -> None:
    """A graph model's inputs, outputs, weights and op types (most used first)."""
    print(f"Class: GraphModel (model version {model.model_version})")

    def info(x: Any) -> str:
        shape = py_shape(x.shape) if x.shape is not None else "?"
        return f"{x.name} {shape} {x.dtype or '?'}"

    print(f"Inputs: {', '.join(info(x) for x in model.inputs)}")
    print(f"Outputs: {', '.join(info(x) for x in model.outputs)}")
    if model.signature:
        keys = lambda part: ", ".join((model.signature.get(part) or {}).keys())  # noqa: E731
        print(f"Signature: inputs [{keys('inputs')}], outputs [{keys('outputs')}]")
    for line in _describe_weights(artifacts):
        print(line)
    counts: dict[str, int] = {}
    graphs = [model.graph, *model.graph.functions.values()]
    for graph in graphs:
        for node in graph.nodes.values():
            counts[node.op] = counts.get(node.op, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    functions = len(model.graph.functions)
    print(
        f"Nodes: {sum(counts.values())}"
        + (f" (with {functions} function(s))" if functions else "")
        + f", {len(counts)} op types: "
        + ", ".join(f"{op} x{n}" for op, n in ranked)
    )
    if model.initializer_graph is not None:
        print(f"Initializer: {len(model.initializer_graph.nodes)} nodes (run at load)")
    if artifacts.user_defined_metadata:
        print(f"User-defined metadata: {json.dumps(artifacts.user_defined_metadata)}")


def _summary(args: Any) -> int:
    model, artifacts = load_for_cli(args.model)
    try:
        print(f"Model: {args.model}")
        print(f"Format: {artifacts.format or 'layers-model'}")
        if artifacts.generated_by:
            print(f"Generated by: {artifacts.generated_by}")
        if artifacts.converted_by:
            print(f"Converted by: {artifacts.converted_by}")
        if isinstance(model, GraphModel):
            _graph_summary(model, artifacts)
            return 0
        print(f"Class: {type(model).__name__} ({model.name})")
        inputs = [f"{x.name} {py_shape(list(x.shape))}" for x in model.inputs]
        outputs = [f"{x.source_layer.name} {py_shape(list(x.shape))}" for x in model.outputs]
        print(f"Inputs: {', '.join(inputs)}")
        print(f"Outputs: {', '.join(outputs)}")
        if artifacts.format == "keras":
            n_bytes = sum(w.read().size * 4 for w in model.weights)
            print(f"Weights: {len(model.weights)} tensors, {n_bytes} bytes")
        for line in _describe_weights(artifacts) if artifacts.format != "keras" else []:
            print(line)
        if artifacts.training_config:
            cfg = artifacts.training_config
            opt = (cfg.get("optimizer_config") or {}).get("class_name")
            print(
                f"Training config: loss={cfg.get('loss')} metrics={cfg.get('metrics')} optimizer={opt}"
            )
        if artifacts.user_defined_metadata:
            print(f"User-defined metadata: {json.dumps(artifacts.user_defined_metadata)}")
        model.summary(args.line_length)
    finally:
        model.dispose()
    return 0


def _read_inputs(path: str, input_names: list[str]) -> list[np.ndarray]:
    ext = os.path.splitext(path)[1].lower()
    if ext == ".npy":
        return [np.load(path, allow_pickle=False)]
    if ext == ".npz":
        with np.load(path, allow_pickle=False) as z:
            if all(n in z.files for n in input_names):
                return [z[n] for n in input_names]
            return [z[k] for k in z.files]
    if ext == ".json":
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
        if isinstance(obj, dict):
            if "inputs" in obj:
                obj = obj["inputs"]
            else:
                missing = [n for n in input_names if n not in obj]
                if missing:
                    raise ValueError(f"{path}: no value for input(s) {', '.join(missing)}")
                return [np.asarray(obj[n], np.float32) for n in input_names]
        if len(input_names) > 1:
            if not isinstance(obj, list) or len(obj) != len(input_names):
                raise ValueError(
                    f"{path}: the model has {len(input_names)} inputs ({', '.join(input_names)}): "
                    "give a list with one nested list per input, or an object keyed by input name"
                )
            return [np.asarray(x, np.float32) for x in obj]
        return [np.asarray(obj, np.float32)]
    raise ValueError(f"{path}: --input must be a .json, .npy or .npz file")


def _write_outputs(path: str, outputs: list[np.ndarray], names: list[str]) -> None:
    ext = os.path.splitext(path)[1].lower()
    if ext == ".npy":
        if len(outputs) != 1:
            raise ValueError(
                f"{path}: the model has {len(outputs)} outputs; write them to a .npz or .json"
            )
        np.save(path, outputs[0])
    elif ext == ".npz":
        np.savez(path, **dict(zip(names, outputs, strict=True)))
    elif ext == ".json":
        with open(path, "w", encoding="utf-8") as f:
            json.dump(_json_outputs(outputs), f)
    else:
        raise ValueError(f"{path}: --output must be a .json, .npy or .npz file")


def _json_outputs(outputs: list[np.ndarray]) -> Any:
    values = [o.tolist() for o in outputs]
    return values[0] if len(values) == 1 else values


def _predict(args: Any) -> int:
    model, _ = load_for_cli(args.model, strict=not args.no_strict)
    graph = isinstance(model, GraphModel)
    try:
        names = model.input_nodes if graph else list(model.input_names)
        arrays = _read_inputs(args.input, names)

        def run_model() -> list[np.ndarray]:
            if graph:  # each input in its placeholder's dtype
                dtypes = [x.dtype or "float32" for x in model.inputs]
                xs = [tensor(a, dtype=d) for a, d in zip(arrays, dtypes, strict=False)]
                ys = model.predict(xs)
            else:
                xs = [tensor(a) for a in arrays]
                ys = model.predict(xs[0] if len(xs) == 1 else xs, batch_size=args.batch_size)
            if isinstance(ys, dict):
                ys = list(ys.values())
            ys = ys if isinstance(ys, list) else [ys]
            out = [y.numpy() for y in ys]
            dispose(ys)
            return out

        outputs = tidy(run_model)
        if args.output:
            output_names = model.output_nodes if graph else list(model.output_names)
            _write_outputs(args.output, outputs, [n.replace(":", "_") for n in output_names])
        else:
            print(json.dumps(_json_outputs(outputs)))
    finally:
        model.dispose()
    return 0
