"""Op table, part 3: TF.js's converter categories ``creation``, ``slice_join``,
``transformation``, ``reduction``, ``evaluation``, ``graph``, ``spectral`` and ``ragged``.

``Placeholder``, ``PlaceholderWithDefault`` and ``Const`` are here so the table names every op;
the executor feeds placeholders and constants itself (their values are the model's inputs and
weights), as TF.js's executor does.
"""

from __future__ import annotations

import sys
from typing import Any

from .. import ops as tf
from ..errors import InvalidArgumentError
from .op_spec import Params, Spec, spec

__all__ = [
    "CREATION",
    "EVALUATION",
    "GRAPH",
    "RAGGED",
    "REDUCTION",
    "SLICE_JOIN",
    "SPECTRAL",
    "TRANSFORMATION",
]


def _pair(result: Any, first: str, second: str) -> list[Any]:
    """A result object's two tensors, in TF.js's output order."""
    return [result[first], result[second]]


def _ragged_gather(result: Any) -> list[Any]:
    return [*result["output_nested_splits"], result["output_dense_values"]]


def keep_or_clone(x: Any) -> Any:
    """TF.js's ``cloneTensor``: a kept tensor (a weight) as is, anything else cloned."""
    return x if x is None or x.kept else tf.clone(x)


CREATION: dict[str, Spec] = {
    "Fill": spec(lambda p: tf.fill(p.shape, p.value, p.dtype), "shape## value#", dtype="T:dtype"),
    "LinSpace": spec(lambda p: tf.linspace(p.start, p.stop, p.num), "start# stop# num#"),
    "OneHot": spec(
        lambda p: tf.one_hot(p.indices, p.depth, p.on_value, p.off_value, p.dtype),
        "indices depth# on_value# off_value#",
        dtype="T:dtype",
    ),
    "Ones": spec(lambda p: tf.ones(p.shape, p.dtype), "shape##", dtype="T:dtype"),
    "OnesLike": spec(lambda p: tf.ones_like(p.x), "x"),
    "Zeros": spec(lambda p: tf.zeros(p.shape, p.dtype), "shape##", dtype="T:dtype"),
    "ZerosLike": spec(lambda p: tf.zeros_like(p.x), "x"),
    "RandomStandardNormal": spec(
        lambda p: tf.random_standard_normal(p.shape, p.dtype, p.seed),
        "shape##",
        seed="seed:number=0",
        seed2="seed2:number=0",
        dtype="dtype:dtype",
    ),
    "RandomUniform": spec(
        lambda p: tf.random_uniform(p.shape, p.minval, p.maxval, p.dtype),
        "shape##",
        minval="minval:number=0",
        maxval="maxval:number=1",
        dtype="dtype:dtype",
        seed="seed:number=0",
        seed2="seed2:number=0",
    ),
    # TF.js reads minval/maxval from attributes TensorFlow does not have: here, the inputs.
    "RandomUniformInt": spec(
        lambda p: tf.random_uniform_int(p.shape, p.minval, p.maxval, p.seed),
        "shape## minval# maxval#",
        seed="seed:number=0",
        seed2="seed2:number=0",
    ),
    "Range": spec(
        lambda p: tf.range(p.start, p.stop, p.step, p.dtype),
        "start# stop# step#",
        dtype="Tidx:dtype",
    ),
    "TruncatedNormal": spec(
        lambda p: tf.truncated_normal(p.shape, p.mean, p.stddev, p.dtype, p.seed),
        "shape##",
        mean="mean:number=0",
        stddev="stddev:number=1",
        seed="seed:number",
        seed2="seed2:number",
        dtype="dtype:dtype",
    ),
    "Multinomial": spec(
        lambda p: tf.multinomial(p.logits, p.num_samples, p.seed),
        "logits num_samples#",
        seed="seed:number",
        seed2="seed2:number",
        output_dtype="output_dtype:dtype",
    ),
}


def _pack(p: Params) -> Any:
    """``Pack``: tensors whose shapes differ only by size-1 dimensions are reshaped to the
    first one's shape (as TF.js does), then stacked."""
    tensors = p.tensors
    shape = list(tensors[0].shape)
    squeezed = [d for d in shape if d != 1]
    same = []
    for t in tensors:
        if list(t.shape) == shape:
            same.append(t)
        elif [d for d in t.shape if d != 1] == squeezed:
            same.append(tf.reshape(t, shape))
        else:
            raise InvalidArgumentError("the input tensors shape does not match")
    return tf.stack(same, p.axis)


def _reverse(p: Params) -> Any:
    dims = p.dims.data_sync()
    return tf.reverse(p.x, [i for i, flag in enumerate(dims) if flag])


def _sparse_to_dense(p: Params) -> Any:
    default = p.default_value
    if default.dtype != p.sparse_values.dtype:
        default = tf.cast(default, p.sparse_values.dtype)
    return tf.sparse_to_dense(p.sparse_indices, p.sparse_values, p.output_shape, default)


SLICE_JOIN: dict[str, Spec] = {
    "ConcatV2": spec(lambda p: tf.concat(p.tensors, p.axis), "tensors*@0:-1 axis#@-1"),
    "Concat": spec(lambda p: tf.concat(p.tensors, p.axis), "axis#@0 tensors*@1"),
    "GatherV2": spec(
        lambda p: tf.gather(p.x, tf.cast(p.indices, "int32"), p.axis, p.batch_dims),
        "x indices axis#",
        batch_dims="batch_dims:number=0",
    ),
    "Gather": spec(lambda p: tf.gather(p.x, tf.cast(p.indices, "int32"), 0), "x indices"),
    "Reverse": spec(_reverse, "x dims"),
    "ReverseV2": spec(lambda p: tf.reverse(p.x, p.axis), "x axis##"),
    "Slice": spec(lambda p: tf.slice(p.x, p.begin, p.size), "x begin## size##"),
    "StridedSlice": spec(
        lambda p: tf.strided_slice(
            p.x,
            p.begin,
            p.end,
            p.strides,
            p.begin_mask,
            p.end_mask,
            p.ellipsis_mask,
            p.new_axis_mask,
            p.shrink_axis_mask,
        ),
        "x begin## end## strides##",
        begin_mask="begin_mask:number=0",
        end_mask="end_mask:number=0",
        new_axis_mask="new_axis_mask:number=0",
        ellipsis_mask="ellipsis_mask:number=0",
        shrink_axis_mask="shrink_axis_mask:number=0",
    ),
    "Pack": spec(_pack, "tensors*", axis="axis:number=0"),
    "Unpack": spec(
        lambda p: tf.unstack(p.tensor, p.axis), "tensor", axis="axis:number=0", num="num:number"
    ),
    "Tile": spec(lambda p: tf.tile(p.x, p.reps), "x reps##"),
    "Split": spec(
        lambda p: tf.split(p.x, p.num_or_size_splits, p.axis),
        "axis#@0 x@1",
        num_or_size_splits="num_split:number=1",
    ),
    "SplitV": spec(
        lambda p: tf.split(p.x, p.num_or_size_splits, p.axis), "x num_or_size_splits## axis#"
    ),
    "ScatterNd": spec(
        lambda p: tf.scatter_nd(p.indices, p.values, p.shape), "indices values shape##"
    ),
    "GatherNd": spec(lambda p: tf.gather_nd(p.x, p.indices), "x indices"),
    "SparseToDense": spec(
        _sparse_to_dense,
        "sparse_indices output_shape## sparse_values default_value",
        validate_indices="validate_indices:bool=false",
    ),
    "TensorScatterUpdate": spec(
        lambda p: tf.tensor_scatter_update(p.tensor, p.indices, p.values), "tensor indices values"
    ),
}


def _squeeze(p: Params) -> Any:
    axis = p.axis if p.axis is not None else p.squeeze_dims
    return tf.squeeze(p.x, axis if axis else None)


TRANSFORMATION: dict[str, Spec] = {
    "Cast": spec(lambda p: tf.cast(p.x, p.dtype), "x", src="SrcT:dtype", dtype="DstT:dtype"),
    "ExpandDims": spec(lambda p: tf.expand_dims(p.x, p.axis), "x axis#"),
    "MirrorPad": spec(
        lambda p: tf.mirror_pad(p.x, p.padding, p.mode), "x padding##", mode="mode:string"
    ),
    "Pad": spec(
        lambda p: tf.pad(p.x, p.padding, p.constant_value),
        "x padding##",
        constant_value="constant_value:number=0",
    ),
    "PadV2": spec(
        lambda p: tf.pad(p.x, p.padding, p.constant_value), "x padding## constant_value#"
    ),
    "Reshape": spec(lambda p: tf.reshape(p.x, p.shape), "x shape##"),
    # TF.js reads the shape from an input 1 TensorFlow does not have: here, the attribute.
    "EnsureShape": spec(
        lambda p: tf.ensure_shape(p.x, [None if d == -1 else d for d in p.shape]),
        "x",
        shape="shape:shape",
    ),
    "Squeeze": spec(_squeeze, "x", axis="axis:number[]", squeeze_dims="squeeze_dims:number[]"),
    "SpaceToBatchND": spec(
        lambda p: tf.space_to_batch_nd(p.x, p.block_shape, p.paddings), "x block_shape## paddings##"
    ),
    "BatchToSpaceND": spec(
        lambda p: tf.batch_to_space_nd(p.x, p.block_shape, p.crops), "x block_shape## crops##"
    ),
    "DepthToSpace": spec(
        lambda p: tf.depth_to_space(p.x, p.block_size, p.data_format.upper()),
        "x",
        block_size="block_size:number",
        data_format="data_format:string",
    ),
    "BroadcastTo": spec(lambda p: tf.broadcast_to(p.x, p.shape), "x shape##"),
    "BroadcastArgs": spec(lambda p: tf.broadcast_args(p.s0, p.s1), "s0 s1"),
}


def _reduce(fn: Any) -> Spec:
    return spec(
        lambda p: fn(p.x, p.axis, p.keep_dims), "x axis##", keep_dims="keep_dims:bool=false"
    )


def _cumulative(fn: Any) -> Spec:
    return spec(
        lambda p: fn(p.x, p.axis, p.exclusive, p.reverse),
        "x axis#",
        exclusive="exclusive:bool",
        reverse="reverse:bool",
    )


REDUCTION: dict[str, Spec] = {
    "Bincount": spec(lambda p: tf.bincount(p.x, p.weights, p.size), "x size# weights"),
    "DenseBincount": spec(
        lambda p: tf.dense_bincount(p.x, p.weights, p.size, p.binary_output),
        "x size# weights",
        output_type="T:dtype",
        binary_output="binary_output:bool",
    ),
    "Max": _reduce(tf.max),
    "Mean": _reduce(tf.mean),
    "Min": _reduce(tf.min),
    "Sum": _reduce(tf.sum),
    "All": _reduce(tf.all),
    "Any": _reduce(tf.any),
    "Prod": _reduce(tf.prod),
    "ArgMax": spec(lambda p: tf.arg_max(p.x, p.axis), "x axis#"),
    "ArgMin": spec(lambda p: tf.arg_min(p.x, p.axis), "x axis#"),
    "Cumprod": _cumulative(tf.cumprod),
    "Cumsum": _cumulative(tf.cumsum),
}

EVALUATION: dict[str, Spec] = {
    "LowerBound": spec(
        lambda p: tf.lower_bound(p.sorted_sequence, p.values), "sorted_sequence values"
    ),
    "UpperBound": spec(
        lambda p: tf.upper_bound(p.sorted_sequence, p.values), "sorted_sequence values"
    ),
    "TopKV2": spec(
        lambda p: _pair(tf.topk(p.x, p.k, p.sorted), "values", "indices"),
        "x k#",
        sorted="sorted:bool",
    ),
    "Unique": spec(lambda p: _pair(tf.unique(p.x), "values", "indices"), "x", dynamic=True),
    "UniqueV2": spec(
        lambda p: _pair(tf.unique(p.x, p.axis), "values", "indices"), "x axis#", dynamic=True
    ),
}


def _print(p: Params) -> Any:
    sys.stderr.write(
        "The graph has a tf.print() operation,usually used for debugging, which slows down "
        "performance.\n"
    )
    print(p.message)
    for tensor in p.data:
        values = tensor.data_sync().tolist()[: p.summarize]
        print(values)
    return p.x


GRAPH: dict[str, Spec] = {
    "PlaceholderWithDefault": spec(
        lambda p: p.default, "default", shape="shape:shape", dtype="dtype:dtype"
    ),
    "Placeholder": spec(lambda p: None, "", shape="shape:shape", dtype="dtype:dtype"),
    "Const": spec(lambda p: None, ""),
    "Identity": spec(lambda p: keep_or_clone(p.x), "x"),
    "IdentityN": spec(lambda p: [keep_or_clone(t) for t in p.x], "x*"),
    "Snapshot": spec(lambda p: keep_or_clone(p.x), "x"),
    "Rank": spec(lambda p: tf.scalar(p.x.rank, "int32"), "x"),
    "Size": spec(lambda p: tf.scalar(p.x.size, "int32"), "x"),
    "Shape": spec(lambda p: tf.tensor1d(list(p.x.shape), "int32"), "x"),
    # TF.js makes ShapeN's shapes float32 (its executor's tensor1d default), Shape's int32.
    "ShapeN": spec(lambda p: [tf.tensor1d(list(t.shape)) for t in p.x], "x*"),
    "Print": spec(_print, "x data*@1", message="message:String", summarize="summarize:number=3"),
    "NoOp": spec(lambda p: [], ""),
    "StopGradient": spec(lambda p: keep_or_clone(p.x), "x"),
    # TF.js ignores fake quantization (its executor passes the input through).
    "FakeQuantWithMinMaxVars": spec(
        lambda p: keep_or_clone(p.x), "x", min="min:number", max="max:number"
    ),
}

SPECTRAL: dict[str, Spec] = {
    "FFT": spec(lambda p: tf.spectral.fft(p.x), "x"),
    "IFFT": spec(lambda p: tf.spectral.ifft(p.x), "x"),
    "RFFT": spec(lambda p: tf.spectral.rfft(p.x), "x fft_length##"),
    "IRFFT": spec(lambda p: tf.spectral.irfft(p.x), "x fft_length##"),
}

RAGGED: dict[str, Spec] = {
    "RaggedGather": spec(
        lambda p: _ragged_gather(
            tf.ragged_gather(
                p.params_nested_splits, p.params_dense_values, p.indices, p.output_ragged_rank
            )
        ),
        "params_nested_splits*@0:-2 params_dense_values@-2 indices@-1",
        output_ragged_rank="OUTPUT_RAGGED_RANK:number",
    ),
    "RaggedRange": spec(
        lambda p: _pair(
            tf.ragged_range(p.starts, p.limits, p.deltas), "rt_nested_splits", "rt_dense_values"
        ),
        "starts limits deltas",
    ),
    "RaggedTensorToTensor": spec(
        lambda p: tf.ragged_tensor_to_tensor(
            p.shape, p.values, p.default_value, p.row_partition_tensors, p.row_partition_types
        ),
        "shape values default_value row_partition_tensors*@3",
        # TF.js lower-cases these; the op takes TensorFlow's names (ROW_SPLITS...).
        row_partition_types="row_partition_types:String[]",
    ),
}
