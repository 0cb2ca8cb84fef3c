"""TF.js's kernel names, spelled as TF and TF.js spell them (re-exported by ``kernel_names``).

Ops, gradients and backend kernels meet only through these names. Each comment lists the
kernel's inputs in the positional order ``run_kernel`` takes them, then its attrs.
"""

# ruff: noqa: E501

ABS = "Abs"  # inputs: x
ACOS = "Acos"  # inputs: x
ACOSH = "Acosh"  # inputs: x
ADD = "Add"  # inputs: a, b
ADD_N = "AddN"  # inputs: *tensors
ALL = "All"  # inputs: x; attrs: axis, keep_dims
ANY = "Any"  # inputs: x; attrs: axis, keep_dims
ARG_MAX = "ArgMax"  # inputs: x; attrs: axis
ARG_MIN = "ArgMin"  # inputs: x; attrs: axis
ASIN = "Asin"  # inputs: x
ASINH = "Asinh"  # inputs: x
ATAN = "Atan"  # inputs: x
ATANH = "Atanh"  # inputs: x
ATAN2 = "Atan2"  # inputs: a, b
AVG_POOL = "AvgPool"  # inputs: x; attrs: filter_size, strides, pad, dim_rounding_mode
AVG_POOL_GRAD = "AvgPoolGrad"  # inputs: dy, input; attrs: filter_size, strides, pad
AVG_POOL3D = (
    "AvgPool3D"  # inputs: x; attrs: filter_size, strides, pad, dim_rounding_mode, data_format
)
AVG_POOL3D_GRAD = (
    "AvgPool3DGrad"  # inputs: dy, input; attrs: filter_size, strides, pad, dim_rounding_mode
)
BATCH_MAT_MUL = "BatchMatMul"  # inputs: a, b; attrs: transpose_a, transpose_b
BATCH_TO_SPACE_ND = "BatchToSpaceND"  # inputs: x; attrs: block_shape, crops
BINCOUNT = "Bincount"  # inputs: x, weights; attrs: size
BITWISE_AND = "BitwiseAnd"  # inputs: a, b
BROADCAST_TO = "BroadcastTo"  # inputs: x
BROADCAST_ARGS = "BroadcastArgs"  # inputs: s0, s1
CAST = "Cast"  # inputs: x; attrs: dtype
CEIL = "Ceil"  # inputs: x
CLIP_BY_VALUE = "ClipByValue"  # inputs: x; attrs: clip_value_min, clip_value_max
COMPLEX = "Complex"  # inputs: real, imag
COMPLEX_ABS = "ComplexAbs"  # inputs: x
CONCAT = "Concat"  # inputs: *tensors; attrs: axis
CONV2D = (
    "Conv2D"  # inputs: x, filter; attrs: strides, pad, data_format, dilations, dim_rounding_mode
)
CONV2D_BACKPROP_FILTER = "Conv2DBackpropFilter"  # inputs: x, dy; attrs: strides, pad, data_format, dim_rounding_mode, filter_shape
CONV2D_BACKPROP_INPUT = "Conv2DBackpropInput"  # inputs: dy, filter; attrs: strides, pad, data_format, dim_rounding_mode, input_shape
CONV3D = "Conv3D"  # inputs: x, filter; attrs: strides, pad, data_format, dilations
CONV3D_BACKPROP_FILTER_V2 = (
    "Conv3DBackpropFilterV2"  # inputs: x, dy; attrs: strides, pad, filter_shape
)
CONV3D_BACKPROP_INPUT_V2 = (
    "Conv3DBackpropInputV2"  # inputs: dy, filter; attrs: strides, pad, input_shape
)
COS = "Cos"  # inputs: x
COSH = "Cosh"  # inputs: x
CUMPROD = "Cumprod"  # inputs: x; attrs: axis, exclusive, reverse
CUMSUM = "Cumsum"  # inputs: x; attrs: axis, exclusive, reverse
CROP_AND_RESIZE = (
    "CropAndResize"  # inputs: image, boxes, box_ind; attrs: crop_size, method, extrapolation_value
)
DENSE_BINCOUNT = "DenseBincount"  # inputs: x, weights; attrs: size, binary_output
DEPTH_TO_SPACE = "DepthToSpace"  # inputs: x; attrs: block_size, data_format
DEPTHWISE_CONV2D_NATIVE = "DepthwiseConv2dNative"  # inputs: x, filter; attrs: strides, pad, data_format, dilations, dim_rounding_mode
DEPTHWISE_CONV2D_NATIVE_BACKPROP_FILTER = "DepthwiseConv2dNativeBackpropFilter"  # inputs: x, dy; attrs: strides, dilations, pad, dim_rounding_mode, filter_shape
DEPTHWISE_CONV2D_NATIVE_BACKPROP_INPUT = "DepthwiseConv2dNativeBackpropInput"  # inputs: dy, filter; attrs: strides, dilations, pad, dim_rounding_mode, input_shape
DIAG = "Diag"  # inputs: x
DILATION2D = "Dilation2D"  # inputs: x, filter; attrs: strides, pad, dilations
DILATION2D_BACKPROP_INPUT = "Dilation2DBackpropInput"  # inputs: x, filter, dy
DILATION2D_BACKPROP_FILTER = "Dilation2DBackpropFilter"  # inputs: x, filter, dy
DRAW = "Draw"  # inputs: image; attrs: canvas, options
REAL_DIV = "RealDiv"  # inputs: a, b
EINSUM = "Einsum"  # inputs: *tensors; attrs: equation
ELU = "Elu"  # inputs: x
ELU_GRAD = "EluGrad"  # inputs: dy, y
ERF = "Erf"  # inputs: x
EQUAL = "Equal"  # inputs: a, b
EXP = "Exp"  # inputs: x
EXPAND_DIMS = "ExpandDims"  # inputs: input; attrs: dim
EXPM1 = "Expm1"  # inputs: x
FFT = "FFT"  # inputs: input
FILL = "Fill"  # inputs: (none); attrs: shape, value, dtype
FLIP_LEFT_RIGHT = "FlipLeftRight"  # inputs: image
FLOOR = "Floor"  # inputs: x
FLOOR_DIV = "FloorDiv"  # inputs: a, b
FUSED_BATCH_NORM = (
    "FusedBatchNorm"  # inputs: x, scale, offset, mean, variance; attrs: variance_epsilon
)
GATHER_V2 = "GatherV2"  # inputs: x, indices; attrs: axis, batch_dims
GATHER_ND = "GatherNd"  # inputs: params, indices
GREATER = "Greater"  # inputs: a, b
GREATER_EQUAL = "GreaterEqual"  # inputs: a, b
IDENTITY = "Identity"  # inputs: x
IFFT = "IFFT"  # inputs: input
IMAG = "Imag"  # inputs: input
IS_FINITE = "IsFinite"  # inputs: x
IS_INF = "IsInf"  # inputs: x
IS_NAN = "IsNan"  # inputs: x
LEAKY_RELU = "LeakyRelu"  # inputs: x; attrs: alpha
LESS = "Less"  # inputs: a, b
LESS_EQUAL = "LessEqual"  # inputs: a, b
LIN_SPACE = "LinSpace"  # inputs: (none); attrs: start, stop, num
LOG = "Log"  # inputs: x
LOG1P = "Log1p"  # inputs: x
LOGICAL_AND = "LogicalAnd"  # inputs: a, b
LOGICAL_NOT = "LogicalNot"  # inputs: x
LOGICAL_OR = "LogicalOr"  # inputs: a, b
LOGICAL_XOR = "LogicalXor"  # inputs: a, b
LOG_SOFTMAX = "LogSoftmax"  # inputs: logits; attrs: axis
LOWER_BOUND = "LowerBound"  # inputs: sorted_sequence, values
LRN = "LRN"  # inputs: x; attrs: depth_radius, bias, alpha, beta
LRN_GRAD = "LRNGrad"  # inputs: x, y, dy; attrs: depth_radius, bias, alpha, beta
MATRIX_BAND_PART = "MatrixBandPart"  # inputs: input, num_lower, num_upper; attrs:
MAX = "Max"  # inputs: x; attrs: reduction_indices, keep_dims
MAXIMUM = "Maximum"  # inputs: a, b
MAX_POOL = "MaxPool"  # inputs: x; attrs: filter_size, strides, pad, dim_rounding_mode
MAX_POOL_GRAD = (
    "MaxPoolGrad"  # inputs: dy, input, output; attrs: filter_size, strides, pad, dim_rounding_mode
)
MAX_POOL3D = (
    "MaxPool3D"  # inputs: x; attrs: filter_size, strides, pad, data_format, dim_rounding_mode
)
MAX_POOL3D_GRAD = "MaxPool3DGrad"  # inputs: dy, input, output; attrs: filter_size, strides, pad, dim_rounding_mode
MAX_POOL_WITH_ARGMAX = (
    "MaxPoolWithArgmax"  # inputs: x; attrs: filter_size, strides, pad, include_batch_in_index
)
MEAN = "Mean"  # inputs: x; attrs: axis, keep_dims
MIN = "Min"  # inputs: x; attrs: axis, keep_dims
MINIMUM = "Minimum"  # inputs: a, b
MIRROR_PAD = "MirrorPad"  # inputs: x; attrs: paddings, mode
MOD = "Mod"  # inputs: a, b
MULTINOMIAL = "Multinomial"  # inputs: logits; attrs: num_samples, seed, normalized
MULTIPLY = "Multiply"  # inputs: a, b
NEG = "Neg"  # inputs: x
NOT_EQUAL = "NotEqual"  # inputs: a, b
NON_MAX_SUPPRESSION_V3 = "NonMaxSuppressionV3"  # inputs: boxes, scores; attrs: max_output_size, iou_threshold, score_threshold
NON_MAX_SUPPRESSION_V4 = "NonMaxSuppressionV4"  # inputs: boxes, scores; attrs: max_output_size, iou_threshold, score_threshold, pad_to_max_output_size
NON_MAX_SUPPRESSION_V5 = "NonMaxSuppressionV5"  # inputs: boxes, scores; attrs: max_output_size, iou_threshold, score_threshold, soft_nms_sigma
ONES_LIKE = "OnesLike"  # inputs: x
ONE_HOT = "OneHot"  # inputs: indices; attrs: depth, on_value, off_value, dtype
PACK = "Pack"  # inputs: *tensors; attrs: axis
PAD_V2 = "PadV2"  # inputs: x; attrs: paddings, constant_value
POOL = "Pool"  # inputs: input
POW = "Pow"  # inputs: a, b
PRELU = "Prelu"  # inputs: x, alpha
PROD = "Prod"  # inputs: x; attrs: axis, keep_dims
RAGGED_GATHER = "RaggedGather"  # inputs: *tensors; attrs: output_ragged_rank
RAGGED_RANGE = "RaggedRange"  # inputs: starts, limits, deltas
RAGGED_TENSOR_TO_TENSOR = "RaggedTensorToTensor"  # inputs: *tensors; attrs: row_partition_types
RANGE = "Range"  # inputs: (none); attrs: start, stop, step, dtype
REAL = "Real"  # inputs: input
RECIPROCAL = "Reciprocal"  # inputs: x
RELU = "Relu"  # inputs: x
RESHAPE = "Reshape"  # inputs: x; attrs: shape
RESIZE_NEAREST_NEIGHBOR = (
    "ResizeNearestNeighbor"  # inputs: images; attrs: align_corners, half_pixel_centers, size
)
RESIZE_NEAREST_NEIGHBOR_GRAD = "ResizeNearestNeighborGrad"  # inputs: images, dy
RESIZE_BILINEAR = "ResizeBilinear"  # inputs: images; attrs: align_corners, half_pixel_centers, size
RESIZE_BILINEAR_GRAD = "ResizeBilinearGrad"  # inputs: images, dy
RELU6 = "Relu6"  # inputs: x
REVERSE = "Reverse"  # inputs: x; attrs: dims
ROUND = "Round"  # inputs: x
RSQRT = "Rsqrt"  # inputs: x
SCATTER_ND = "ScatterNd"  # inputs: indices, updates; attrs: shape
TENSOR_SCATTER_UPDATE = "TensorScatterUpdate"  # inputs: tensor, indices, updates; attrs:
SEARCH_SORTED = "SearchSorted"  # inputs: sorted_sequence, values; attrs: side
SELECT = "Select"  # inputs: condition, t, e
SELU = "Selu"  # inputs: x
SLICE = "Slice"  # inputs: x; attrs: begin, size
SIN = "Sin"  # inputs: x
SINH = "Sinh"  # inputs: x
SIGN = "Sign"  # inputs: x
SIGMOID = "Sigmoid"  # inputs: x
SOFTPLUS = "Softplus"  # inputs: x
SQRT = "Sqrt"  # inputs: x
SUM = "Sum"  # inputs: x; attrs: axis, keep_dims
SPACE_TO_BATCH_ND = "SpaceToBatchND"  # inputs: x; attrs: block_shape, paddings
SPLIT_V = "SplitV"  # inputs: x; attrs: num_or_size_splits, axis
SOFTMAX = "Softmax"  # inputs: logits; attrs: dim
SPARSE_FILL_EMPTY_ROWS = (
    "SparseFillEmptyRows"  # inputs: indices, values, dense_shape, default_value
)
SPARSE_RESHAPE = "SparseReshape"  # inputs: input_indices, input_shape, new_shape
SPARSE_SEGMENT_MEAN = "SparseSegmentMean"  # inputs: data, indices, segment_ids
SPARSE_SEGMENT_SUM = "SparseSegmentSum"  # inputs: data, indices, segment_ids
SPARSE_TO_DENSE = (
    "SparseToDense"  # inputs: sparse_indices, sparse_values, default_value; attrs: output_shape
)
SQUARED_DIFFERENCE = "SquaredDifference"  # inputs: a, b
SQUARE = "Square"  # inputs: x
STATIC_REGEX_REPLACE = "StaticRegexReplace"  # inputs: x; attrs: pattern, rewrite, replace_global
STRIDED_SLICE = "StridedSlice"  # inputs: x; attrs: begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask
STRING_N_GRAMS = "StringNGrams"  # inputs: data, data_splits; attrs: separator, n_gram_widths, left_pad, right_pad, pad_width, preserve_short_sequences
STRING_SPLIT = "StringSplit"  # inputs: input, delimiter; attrs: skip_empty
STRING_TO_HASH_BUCKET_FAST = "StringToHashBucketFast"  # inputs: input; attrs: num_buckets
SUB = "Sub"  # inputs: a, b
TAN = "Tan"  # inputs: x
TANH = "Tanh"  # inputs: x
TILE = "Tile"  # inputs: x; attrs: reps
TOP_K = "TopK"  # inputs: x; attrs: k, sorted
TRANSFORM = "Transform"  # inputs: image, transforms; attrs: interpolation, fill_mode, fill_value, output_shape
TRANSPOSE = "Transpose"  # inputs: x; attrs: perm
UNIQUE = "Unique"  # inputs: x; attrs: axis
UNPACK = "Unpack"  # inputs: value; attrs: axis
UNSORTED_SEGMENT_SUM = "UnsortedSegmentSum"  # inputs: x, segment_ids; attrs: num_segments
UPPER_BOUND = "UpperBound"  # inputs: sorted_sequence, values
ZEROS_LIKE = "ZerosLike"  # inputs: x
STEP = "Step"  # inputs: x; attrs: alpha
FROM_PIXELS = "FromPixels"  # inputs: pixels; attrs: num_channels
ROTATE_WITH_OFFSET = "RotateWithOffset"  # inputs: image; attrs: radians, fill_value, center
FUSED_MAT_MUL = "_FusedMatMul"  # inputs: a, b, bias, prelu_activation_weights; attrs: transpose_a, transpose_b, activation, leakyrelu_alpha
FUSED_CONV2D = "FusedConv2D"  # inputs: x, filter, bias, prelu_activation_weights; attrs: strides, pad, data_format, dilations, dim_rounding_mode, activation, leakyrelu_alpha
FUSED_DEPTHWISE_CONV2D = "FusedDepthwiseConv2D"  # inputs: x, filter, bias, prelu_activation_weights; attrs: strides, pad, data_format, dilations, dim_rounding_mode, activation, leakyrelu_alpha
