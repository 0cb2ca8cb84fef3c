"""Completeness of the op list of catalog §2.3 (all 250 op functions), its kernels and their
gradients (catalog §2.5).

Checks:
(a) every TF.js op function is exported under its snake_case name: top-level ops on
    ``tidytensor``, namespaced ones on ``tf.image`` / ``tf.linalg`` / ``tf.losses`` /
    ``tf.spectral`` / ``tf.signal`` / ``tf.sparse`` / ``tf.string`` / ``tf.fused`` / ``tf.math``;
(b) every one of TF.js's 137 chained Tensor methods exists on ``Tensor`` and runs its op;
(c) every kernel the catalog lists for an op, and every kernel constant any op module uses,
    has a kernel registered for the ``'cpu'`` backend;
(d) each family's op modules have ``__all__`` and the golden specs cover each op;
(e) the 101 kernels with a TF.js gradient have one registered, saving what TF.js saves;
(f) every registered gradient, and every differentiable op, is exercised by a
    ``tf.testing.check_grads`` call or a golden ``grad`` case somewhere in ``tests/``: the suite's
    gradient tests run in subprocesses (one per test folder) with :class:`GradCoverageRecorder`,
    which records the kernels whose gradient functions the tape calls (for kernels the
    function under test ran, not check_grads' own loss) and the public ops the function under
    test called under a tape.
    Adding a gradient or a differentiable op without a gradient test fails here.

The op, kernel and method lists are copied from the catalog (tfjs-catalog.md §2.3-2.5), so they
do not depend on what the implementation happens to define.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import inspect
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tidytensor
import tidytensor.kernel_names as kernel_names
from tidytensor import Tensor
from tidytensor.kernel_registry import get_gradient, get_kernel, registered_gradients
from tidytensor.naming import snake_case
from tidytensor.ops._chained import CHAINED_OPS, CORE_OP_METHODS

TESTS_DIR = Path(__file__).resolve().parent
ROOT = TESTS_DIR.parent
SPECS_DIR = TESTS_DIR / "golden" / "specs"
OPS_DIR = ROOT / "src" / "tidytensor" / "ops"

#: Catalog §2.3: family -> (catalog heading, TF.js op names in table order). Namespaced ops
#: carry their namespace (``image.cropAndResize`` is ``tf.image.cropAndResize``).
FAMILY_OPS: dict[str, tuple[str, list[str]]] = {
    "creation": (
        "Creation",
        """buffer clone complex diag eye fill imag linspace oneHot ones onesLike print range real
        scalar tensor tensor1d tensor2d tensor3d tensor4d tensor5d tensor6d truncatedNormal
        variable zeros zerosLike""".split(),
    ),
    "random": (
        "Random",
        """multinomial rand randomGamma randomNormal randomStandardNormal randomUniform
        randomUniformInt""".split(),
    ),
    "arithmetic": (
        "Arithmetic",
        """add addN div divNoNan floorDiv maximum minimum mod mul pow squaredDifference
        sub""".split(),
    ),
    "basic_math": (
        "Basic math",
        """abs acos acosh asin asinh atan atan2 atanh ceil clipByValue cos cosh elu erf exp expm1
        floor isFinite isInf isNaN leakyRelu log log1p logSigmoid neg prelu reciprocal relu
        relu6 round rsqrt selu sigmoid sign sin sinh softplus sqrt square step tan
        tanh""".split(),
    ),
    "reduction": (
        "Reduction",
        """all any argMax argMin bincount denseBincount logSumExp max mean min prod
        sum""".split(),
    ),
    "matrices": (
        "Matrices",
        "dot einsum euclideanNorm matMul outerProduct transpose norm".split(),
    ),
    "logical": (
        "Logical",
        """bitwiseAnd equal greater greaterEqual less lessEqual logicalAnd logicalNot
        logicalOr logicalXor notEqual where whereAsync""".split(),
    ),
    "transformations": (
        "Transformations",
        """batchToSpaceND broadcastArgs broadcastTo cast depthToSpace ensureShape expandDims
        mirrorPad pad pad1d pad2d pad3d pad4d reshape setdiff1dAsync spaceToBatchND
        squeeze""".split(),
    ),
    "slicing_joining": (
        "Slicing and Joining",
        """concat concat1d concat2d concat3d concat4d gather meshgrid reverse reverse1d reverse2d
        reverse3d reverse4d slice slice1d slice2d slice3d slice4d split stack stridedSlice
        tensorScatterUpdate tile unstack booleanMaskAsync scatterND gatherND""".split(),
    ),
    "convolution": (
        "Convolution",
        """avgPool avgPool3d conv1d conv2d conv2dTranspose conv3d conv3dTranspose depthwiseConv2d
        dilation2d maxPool maxPool3d maxPoolWithArgmax pool separableConv2d""".split(),
    ),
    "normalization": (
        "Normalization",
        """batchNorm batchNorm2d batchNorm3d batchNorm4d localResponseNormalization logSoftmax
        moments softmax sparseToDense""".split(),
    ),
    "image": (
        "Images",
        """image.cropAndResize image.flipLeftRight image.grayscaleToRGB image.rgbToGrayscale
        image.rotateWithOffset image.nonMaxSuppression image.nonMaxSuppressionAsync
        image.nonMaxSuppressionWithScore image.nonMaxSuppressionWithScoreAsync
        image.nonMaxSuppressionPadded image.nonMaxSuppressionPaddedAsync image.resizeBilinear
        image.resizeNearestNeighbor image.threshold image.transform""".split(),
    ),
    "rnn": ("RNN", ["basicLSTMCell", "multiRNNCell"]),
    "scan": ("Scan", ["cumprod", "cumsum"]),
    "segment": ("Segment", ["unsortedSegmentSum"]),
    "evaluation": (
        "Evaluation",
        """lowerBound topk unique upperBound searchSorted inTopKAsync
        math.confusionMatrix""".split(),
    ),
    "moving_average": ("Moving Average", ["movingAverage"]),
    "dropout": ("Dropout", ["dropout"]),
    "spectral": ("Spectral", "spectral.fft spectral.ifft spectral.irfft spectral.rfft".split()),
    "signal": (
        "Signal",
        "signal.hammingWindow signal.hannWindow signal.frame signal.stft".split(),
    ),
    "signal_helpers": ("Signal (helpers)", ["enclosingPowerOfTwo", "cosineWindow"]),
    "linalg": ("Linear Algebra", "linalg.bandPart linalg.gramSchmidt linalg.qr".split()),
    "losses": (
        "Losses",
        """losses.absoluteDifference losses.computeWeightedLoss losses.cosineDistance
        losses.hingeLoss losses.huberLoss losses.logLoss losses.meanSquaredError
        losses.sigmoidCrossEntropy losses.softmaxCrossEntropy""".split(),
    ),
    "sparse": (
        "Sparse",
        """sparse.sparseFillEmptyRows sparse.sparseReshape sparse.sparseSegmentMean
        sparse.sparseSegmentSum""".split(),
    ),
    "ragged": ("Ragged", ["raggedGather", "raggedRange", "raggedTensorToTensor"]),
    "string": (
        "String",
        """string.stringNGrams string.stringSplit string.stringToHashBucketFast
        string.staticRegexReplace""".split(),
    ),
    "fused": ("Fused", ["fused.matMul", "fused.conv2d", "fused.depthwiseConv2d"]),
}

#: The "# ops" column of the catalog's count table, to catch copying mistakes above.
CATALOG_COUNTS = {
    "creation": 26,
    "random": 7,
    "arithmetic": 12,
    "basic_math": 42,
    "reduction": 12,
    "matrices": 7,
    "logical": 13,
    "transformations": 17,
    "slicing_joining": 26,
    "convolution": 14,
    "normalization": 9,
    "image": 15,
    "rnn": 2,
    "scan": 2,
    "segment": 1,
    "evaluation": 7,
    "moving_average": 1,
    "dropout": 1,
    "spectral": 4,
    "signal": 4,
    "signal_helpers": 2,
    "linalg": 3,
    "losses": 9,
    "sparse": 4,
    "ragged": 3,
    "string": 4,
    "fused": 3,
}

#: The modules of ``tidytensor.ops`` that implement each family.
FAMILY_MODULES: dict[str, tuple[str, ...]] = {
    **{fam: (fam,) for fam in FAMILY_OPS},
    "convolution": ("convolution", "pooling"),  # the catalog's one category, split in two
    "evaluation": ("evaluation", "math_namespace"),
    "signal": ("signal_ns",),
    "signal_helpers": ("signal",),
}

#: Modules of ``tidytensor.ops`` that are a namespace (their ``__all__`` is ``tf.<ns>.*``).
MODULE_NAMESPACE = {
    "image": "image",
    "linalg": "linalg",
    "losses": "losses",
    "spectral": "spectral",
    "sparse": "sparse",
    "string": "string",
    "fused": "fused",
    "math_namespace": "math",
    "signal_ns": "signal",
}

#: Catalog §2.3 "kernel(s) run" column: the kernels each family's own ops run directly.
#: (Composite ops run other families' ops, whose kernels are listed under those families.)
FAMILY_KERNELS: dict[str, list[str]] = {
    "creation": """Complex Diag Fill Identity Imag LinSpace OneHot OnesLike Range Real
    ZerosLike""".split(),
    "random": ["Multinomial"],
    "arithmetic": """Add AddN FloorDiv Maximum Minimum Mod Multiply Pow RealDiv SquaredDifference
    Sub""".split(),
    "basic_math": """Abs Acos Acosh Asin Asinh Atan Atan2 Atanh Ceil ClipByValue ComplexAbs Cos
    Cosh Elu Erf Exp Expm1 Floor IsFinite IsInf IsNan LeakyRelu Log Log1p Neg Prelu Reciprocal
    Relu Relu6 Round Rsqrt Selu Sigmoid Sign Sin Sinh Softplus Sqrt Square Step Tan
    Tanh""".split(),
    "reduction": """All Any ArgMax ArgMin Bincount DenseBincount Max Mean Min Prod Sum""".split(),
    "matrices": ["BatchMatMul", "Einsum", "Transpose"],
    "logical": """BitwiseAnd Equal Greater GreaterEqual Less LessEqual LogicalAnd LogicalNot
    LogicalOr NotEqual Select""".split(),
    "transformations": """BatchToSpaceND BroadcastArgs Cast DepthToSpace ExpandDims MirrorPad
    PadV2 Reshape SpaceToBatchND Tile""".split(),
    "slicing_joining": """Concat GatherNd GatherV2 Pack Reverse ScatterNd Slice SplitV StridedSlice
    TensorScatterUpdate Tile Unpack""".split(),
    "convolution": """AvgPool AvgPool3D Conv2D Conv2DBackpropInput Conv3D Conv3DBackpropInputV2
    DepthwiseConv2dNative Dilation2D MaxPool MaxPool3D MaxPoolWithArgmax""".split(),
    "normalization": ["FusedBatchNorm", "LRN", "Softmax", "SparseToDense"],
    "image": """CropAndResize FlipLeftRight RotateWithOffset NonMaxSuppressionV3
    NonMaxSuppressionV5 NonMaxSuppressionV4 ResizeBilinear ResizeNearestNeighbor
    Transform""".split(),
    "rnn": [],
    "scan": ["Cumprod", "Cumsum"],
    "segment": ["UnsortedSegmentSum"],
    "evaluation": ["TopK", "Unique", "SearchSorted"],
    "moving_average": [],
    "dropout": [],
    "spectral": ["FFT", "IFFT"],
    "signal": [],
    "signal_helpers": [],
    "linalg": [],
    "losses": [],
    "sparse": """SparseFillEmptyRows SparseReshape SparseSegmentMean SparseSegmentSum""".split(),
    "ragged": ["RaggedGather", "RaggedRange", "RaggedTensorToTensor"],
    "string": """StringNGrams StringSplit StringToHashBucketFast StaticRegexReplace""".split(),
    "fused": ["_FusedMatMul", "FusedConv2D", "FusedDepthwiseConv2D"],
}

#: Catalog §2.5: the 101 kernels with a TF.js gradient -> (input positions TF.js saves, or
#: "all" for saveAllInputs; whether it saves the output). Positions follow kernel_names.py.
GRADIENT_KERNELS: dict[str, tuple[tuple[int, ...] | str, bool]] = {
    **{
        name: ((0,), False)
        for name in """Abs Acos Acosh ArgMax ArgMin Asin Asinh Atan Atanh AvgPool AvgPool3D
        ClipByValue ComplexAbs Cos Cosh Cumsum Erf ExpandDims Expm1 LeakyRelu Log Log1p Mean
        MirrorPad OneHot PadV2 Prod Reciprocal Relu Relu6 Reshape ResizeBilinear
        ResizeNearestNeighbor Rsqrt Select Selu Sin Sinh Slice Softplus Sqrt Square Sum Tan
        Tile""".split()
    },
    **{
        name: ((0, 1), False)
        for name in """Add Atan2 BatchMatMul Conv2D Conv2DBackpropInput Conv3D
        DepthwiseConv2dNative Dilation2D FloorDiv GatherV2 GreaterEqual Maximum Minimum Mod
        Multiply Prelu RealDiv SquaredDifference Sub""".split()
    },
    **{
        name: ((), False)
        for name in """BatchToSpaceND BroadcastTo Cast Ceil Floor Identity IsFinite IsInf IsNan
        Neg OnesLike Reverse Round Sign SpaceToBatchND SplitV Step Transpose Unpack
        ZerosLike""".split()
    },
    **{name: ((), True) for name in "Elu Exp LogSoftmax Sigmoid Softmax Tanh".split()},
    **{name: ((0,), True) for name in "LRN Max MaxPool MaxPool3D Min".split()},
    **{name: ("all", False) for name in ("AddN", "Concat", "Pack")},
    "FusedBatchNorm": ((0, 3, 4, 1), False),
    "Pow": ((0, 1), True),
    "UnsortedSegmentSum": ((1,), False),
}

#: Kernels whose inputs vary in number, so that saving every input is the faithful rendering
#: of TF.js's list (batchNorm leaves out ``scale`` / ``offset`` when they are not given).
VARIABLE_INPUT_GRADIENTS = {"FusedBatchNorm"}

#: Kernels TF.js registers a gradient for but no TF.js CPU kernel exists for (``broadcastTo``
#: runs Tile; ``logSoftmax`` is a custom-gradient composite): their gradient cannot run.
GRADIENTS_WITHOUT_CPU_KERNEL = {"BroadcastTo", "LogSoftmax"}

#: Catalog §2.4: TF.js's 137 chained Tensor methods.
CHAINED_METHODS = """
abs acos acosh add all any argMax argMin as1D as2D as3D as4D as5D asScalar asType asin asinh
atan atan2 atanh avgPool batchNorm batchToSpaceND broadcastTo cast ceil clipByValue concat conv1d
conv2d conv2dTranspose cos cosh cumprod cumsum depthToSpace depthwiseConv2d dilation2d div
divNoNan dot elu equal erf euclideanNorm exp expandDims expm1 fft flatten floor floorDiv gather
greater greaterEqual ifft irfft isFinite isInf isNaN leakyRelu less lessEqual
localResponseNormalization log log1p logSigmoid logSoftmax logSumExp logicalAnd logicalNot
logicalOr logicalXor matMul max maxPool maximum mean min minimum mirrorPad mod mul neg norm
notEqual oneHot onesLike pad pool pow prelu prod reciprocal relu relu6 reshape reshapeAs
resizeBilinear resizeNearestNeighbor reverse rfft round rsqrt selu separableConv2d sigmoid sign
sin sinh slice softmax softplus spaceToBatchND split sqrt square squaredDifference squeeze stack
step stridedSlice sub sum tan tanh tile toBool toFloat toInt topk transpose unique
unsortedSegmentSum unstack where zerosLike
""".split()

#: Chained methods that are not "the op of the same name with self first" (catalog §2.4),
#: mapped to the op they are built on.
SPECIAL_CHAINED = {
    "flatten": "reshape",
    "asScalar": "reshape",
    "as1D": "reshape",
    "as2D": "reshape",
    "as3D": "reshape",
    "as4D": "reshape",
    "as5D": "reshape",
    "reshapeAs": "reshape",
    "asType": "cast",
    "toFloat": "cast",
    "toInt": "cast",
    "toBool": "cast",
}

#: Catalog §2.3 gradient column: "yes" (a registered kernel gradient), "custom" (customGrad)
#: and "composite" (built from differentiable ops). Partial composites, "no" and "n/a" are
#: not listed; ``ensureShape`` (the same tensor back) is.
GRAD_YES = """clone oneHot onesLike zerosLike add addN div floorDiv maximum minimum mod mul pow
squaredDifference sub abs acos acosh asin asinh atan atan2 atanh ceil clipByValue cos cosh elu
erf exp expm1 floor isFinite isInf isNaN leakyRelu log log1p neg prelu reciprocal relu relu6
round rsqrt selu sigmoid sign sin sinh softplus sqrt square step tan tanh matMul transpose
avgPool avgPool3d conv2d conv2dTranspose conv3d depthwiseConv2d dilation2d maxPool maxPool3d
argMax argMin max mean min prod sum batchNorm localResponseNormalization softmax
image.resizeBilinear image.resizeNearestNeighbor greaterEqual where cumsum unsortedSegmentSum
concat gather reverse slice split stack tile unstack batchToSpaceND broadcastTo cast expandDims
mirrorPad pad reshape spaceToBatchND""".split()
GRAD_CUSTOM = """logSigmoid logSoftmax losses.softmaxCrossEntropy fused.matMul fused.conv2d
fused.depthwiseConv2d""".split()
GRAD_COMPOSITE = """dot euclideanNorm outerProduct norm conv1d pool separableConv2d logSumExp
batchNorm2d batchNorm3d batchNorm4d moments image.grayscaleToRGB image.nonMaxSuppressionAsync
image.nonMaxSuppressionWithScoreAsync image.nonMaxSuppressionPaddedAsync basicLSTMCell
multiRNNCell concat1d concat2d concat3d concat4d reverse1d reverse2d reverse3d reverse4d slice1d
slice2d slice3d slice4d booleanMaskAsync pad1d pad2d pad3d pad4d squeeze inTopKAsync
math.confusionMatrix movingAverage dropout signal.stft enclosingPowerOfTwo cosineWindow
linalg.gramSchmidt losses.absoluteDifference losses.cosineDistance losses.hingeLoss
losses.huberLoss losses.logLoss losses.meanSquaredError losses.sigmoidCrossEntropy
ensureShape""".split()

#: Composites with no float input to differentiate, or async in TF.js (an async op cannot run
#: inside ``tf.grads``): their gradient column says composite, but no gradient test can apply.
NO_GRADIENT_TO_TEST = {
    "image.nonMaxSuppressionAsync": "returns box indices (async)",
    "image.nonMaxSuppressionWithScoreAsync": "returns box indices (async)",
    "image.nonMaxSuppressionPaddedAsync": "returns box indices (async)",
    "inTopKAsync": "returns bools (async)",
    "booleanMaskAsync": "async in TF.js: cannot run inside tf.grads",
    "math.confusionMatrix": "integer labels in, int32 counts out",
    "enclosingPowerOfTwo": "an integer from an integer",
    "cosineWindow": "a window from its length and coefficients",
    "signal.stft": "complex64 output (rfft): no real-valued loss to check",
}

#: Ops a JSON golden spec cannot express; each is compared with TF.js in its family's tests.
GOLDEN_SPEC_EXEMPT = {
    "multi_rnn_cell": "takes a list of Python cell functions (tests/ops/test_rnn.py compares "
    "it with values computed by TF.js)",
}

FAMILIES = list(FAMILY_OPS)


def qualified_snake(js_name: str) -> str:
    """``'image.cropAndResize'`` -> ``'image.crop_and_resize'``."""
    return ".".join(snake_case(part) for part in js_name.split("."))


FAMILY_SNAKE = {fam: {qualified_snake(n) for n in ops} for fam, (_, ops) in FAMILY_OPS.items()}
ALL_OPS_SNAKE = set().union(*FAMILY_SNAKE.values())
KERNEL_NAME_VALUES = {
    v for n, v in vars(kernel_names).items() if n.isupper() and isinstance(v, str)
}
DIFFERENTIABLE_OPS = sorted(
    qualified_snake(n)
    for n in (*GRAD_YES, *GRAD_CUSTOM, *GRAD_COMPOSITE)
    if n not in NO_GRADIENT_TO_TEST
)


def _split(qualified: str) -> tuple[str | None, str]:
    namespace, _, name = qualified.rpartition(".")
    return namespace or None, name


def _module(name: str):
    return importlib.import_module(f"tidytensor.ops.{name}")


def _qualified_all(module_name: str) -> set[str]:
    """A module's ``__all__``, qualified with its namespace."""
    ns = MODULE_NAMESPACE.get(module_name)
    return {f"{ns}.{n}" if ns else n for n in getattr(_module(module_name), "__all__", [])}


def _chained_op(js_method: str) -> str:
    """The qualified snake_case op a chained method runs (``resizeBilinear`` -> its tf.image op)."""
    base = snake_case(SPECIAL_CHAINED.get(js_method, js_method))
    if base in ALL_OPS_SNAKE:
        return base
    matches = [q for q in ALL_OPS_SNAKE if _split(q)[1] == base]
    assert len(matches) == 1, f"chained method {js_method}: no single op named {base}: {matches}"
    return matches[0]


# ---------------------------------------------------------------------------------------------
# Self-checks of the lists held in this file
# ---------------------------------------------------------------------------------------------


def test_lists_match_catalog_counts():
    counts = {fam: len(ops) for fam, (_, ops) in FAMILY_OPS.items()}
    assert counts == CATALOG_COUNTS
    assert sum(counts.values()) == 250
    all_names = [n for _, ops in FAMILY_OPS.values() for n in ops]
    assert len(set(all_names)) == 250, "an op is listed twice"
    for fam, (_, ops) in FAMILY_OPS.items():
        assert len(FAMILY_SNAKE[fam]) == len(ops), f"{fam}: two TF.js names share a snake_case"
    assert len(ALL_OPS_SNAKE) == 250
    assert set(FAMILY_MODULES) == set(FAMILY_OPS) == set(FAMILY_KERNELS)


def test_listed_kernels_are_known_kernel_names():
    unknown = {fam: sorted(set(ks) - KERNEL_NAME_VALUES) for fam, ks in FAMILY_KERNELS.items()}
    assert not any(unknown.values()), f"not in kernel_names.py: {unknown}"
    assert len(GRADIENT_KERNELS) == 101
    assert not set(GRADIENT_KERNELS) - KERNEL_NAME_VALUES


def test_gradient_column_lists():
    assert len(GRAD_YES) == 99 and len(GRAD_CUSTOM) == 6 and len(GRAD_COMPOSITE) == 52
    listed = [*GRAD_YES, *GRAD_CUSTOM, *GRAD_COMPOSITE]
    assert len(set(listed)) == len(listed)
    all_js = {n for _, ops in FAMILY_OPS.values() for n in ops}
    assert set(listed) <= all_js
    assert set(NO_GRADIENT_TO_TEST) <= set(listed)


def test_chained_method_list_matches_catalog():
    assert len(CHAINED_METHODS) == 137 == len(set(CHAINED_METHODS))
    assert set(CHAINED_OPS) == set(CHAINED_METHODS), "ops/_chained.py differs from catalog §2.4"
    for js in CHAINED_METHODS:
        _chained_op(js)  # every method maps onto exactly one catalog op


def test_naming_rule_examples():
    # The spellings API.md fixes, plus names of the later families.
    expected = {
        "matMul": "mat_mul",
        "gatherND": "gather_nd",
        "isNaN": "is_nan",
        "addN": "add_n",
        "logSumExp": "log_sum_exp",
        "batchToSpaceND": "batch_to_space_nd",
        "tensor1d": "tensor1d",
        "setdiff1dAsync": "setdiff1d_async",
        "randomUniformInt": "random_uniform_int",
        "conv2dTranspose": "conv2d_transpose",
        "avgPool3d": "avg_pool3d",
        "basicLSTMCell": "basic_lstm_cell",
        "multiRNNCell": "multi_rnn_cell",
        "grayscaleToRGB": "grayscale_to_rgb",
        "stringNGrams": "string_n_grams",
        "inTopKAsync": "in_top_k_async",
        "depthwiseConv2d": "depthwise_conv2d",
    }
    assert {js: snake_case(js) for js in expected} == expected


# ---------------------------------------------------------------------------------------------
# (a) every op exported under its snake_case name, in TF.js's namespace
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_ops_exported(family):
    heading, ops = FAMILY_OPS[family]
    exported = set(tidytensor.__all__)
    missing = []
    for js in ops:
        namespace, name = _split(qualified_snake(js))
        if namespace is None:
            ok = callable(getattr(tidytensor, name, None)) and name in exported
        else:
            ns = getattr(tidytensor, namespace, None)
            ns_all = getattr(ns, "__all__", None)
            ok = (
                namespace in exported
                and callable(getattr(ns, name, None))
                and (ns_all is None or name in ns_all)
            )
        if not ok:
            missing.append(f"{js} -> tf.{qualified_snake(js)}")
    assert not missing, f"{heading}: {len(missing)}/{len(ops)} ops not exported: {missing}"


def test_namespaces_are_exported():
    namespaces = {_split(q)[0] for q in ALL_OPS_SNAKE} - {None}
    assert namespaces == {
        "image",
        "linalg",
        "losses",
        "spectral",
        "signal",
        "sparse",
        "string",
        "fused",
        "math",
    }
    for ns in namespaces:
        assert ns in tidytensor.__all__, f"tf.{ns} is not in tidytensor.__all__"
        assert getattr(tidytensor, ns, None) is not None, f"tf.{ns} does not exist"


def test_reduction_enum_is_exported():
    # tf.losses.Reduction (catalog §3.4) is what the losses' last argument takes.
    assert tidytensor.losses.Reduction is tidytensor.Reduction
    assert {"NONE", "MEAN", "SUM", "SUM_BY_NONZERO_WEIGHTS"} <= set(dir(tidytensor.Reduction))


# ---------------------------------------------------------------------------------------------
# (b) chained Tensor methods
# ---------------------------------------------------------------------------------------------


def test_chained_methods_exist():
    missing = [
        f"{js} -> Tensor.{snake_case(js)}"
        for js in (*CHAINED_METHODS, *CORE_OP_METHODS)
        if not callable(getattr(Tensor, snake_case(js), None))
    ]
    assert not missing, f"{len(missing)}/{len(CHAINED_METHODS)} chained methods missing: {missing}"


def _rand(shape, seed=0, low=-1.0, high=1.0, dtype="float32"):
    values = np.random.default_rng(seed).uniform(low, high, shape)
    if dtype == "int32":
        values = np.round(values)
    return tidytensor.tensor(values.astype(dtype), list(shape), dtype)


def _complex(n, seed=0):
    return tidytensor.complex(_rand([n], seed), _rand([n], seed + 1))


#: Chained methods of the later families: receiver and arguments (made lazily, inside the
#: test's scope). The method's result must equal the op's on the same arguments.
METHOD_CALLS: dict[str, Any] = {
    "avgPool": lambda: (_rand([1, 4, 4, 2]), 2, 2, "valid"),
    "maxPool": lambda: (_rand([1, 4, 4, 2]), 2, 1, "same"),
    "pool": lambda: (_rand([1, 4, 4, 2]), [2, 2], "max", "valid"),
    "conv1d": lambda: (_rand([1, 5, 2]), _rand([2, 2, 3], 1), 1, "same"),
    "conv2d": lambda: (_rand([1, 4, 4, 2]), _rand([2, 2, 2, 3], 1), 1, "same"),
    "conv2dTranspose": lambda: (
        _rand([1, 4, 4, 2]),
        _rand([2, 2, 3, 2], 1),
        [1, 4, 4, 3],
        1,
        "same",
    ),
    "depthwiseConv2d": lambda: (_rand([1, 4, 4, 2]), _rand([2, 2, 2, 1], 1), 1, "same"),
    "dilation2d": lambda: (_rand([1, 4, 4, 2]), _rand([2, 2, 2], 1), 1, "same"),
    "separableConv2d": lambda: (
        _rand([1, 4, 4, 2]),
        _rand([2, 2, 2, 1], 1),
        _rand([1, 1, 2, 3], 2),
        1,
        "same",
    ),
    "batchNorm": lambda: (_rand([2, 3]), _rand([3], 1), _rand([3], 2, 0.5, 1.5)),
    "localResponseNormalization": lambda: (_rand([1, 2, 2, 4]), 2),
    "logSoftmax": lambda: (_rand([2, 3]),),
    "softmax": lambda: (_rand([2, 3]), 1),
    "resizeBilinear": lambda: (_rand([1, 2, 2, 1]), [3, 3]),
    "resizeNearestNeighbor": lambda: (_rand([1, 2, 2, 1]), [4, 3]),
    "cumprod": lambda: (_rand([2, 3]), 1),
    "cumsum": lambda: (_rand([2, 3]), 1, True),
    "unsortedSegmentSum": lambda: (
        _rand([3, 2]),
        tidytensor.tensor1d([0, 1, 0], "int32"),
        2,
    ),
    "topk": lambda: (_rand([5]), 2),
    "unique": lambda: (tidytensor.tensor1d([3, 1, 3, 2], "int32"),),
    "fft": lambda: (_complex(4),),
    "ifft": lambda: (_complex(4),),
    "rfft": lambda: (_rand([6]),),
    "irfft": lambda: (_complex(4),),
}


def _values(result: Any) -> Any:
    if isinstance(result, Tensor):
        return (result.dtype, result.shape, result.numpy().tolist())
    if hasattr(result, "_asdict"):
        return {k: _values(v) for k, v in result._asdict().items()}
    if isinstance(result, (list, tuple)):
        return [_values(r) for r in result]
    return result


@pytest.mark.parametrize("js_method", list(METHOD_CALLS))
def test_chained_method_runs_its_op(js_method):
    assert js_method in CHAINED_METHODS
    namespace, name = _split(_chained_op(js_method))
    op = getattr(getattr(tidytensor, namespace) if namespace else tidytensor, name)
    receiver, *args = METHOD_CALLS[js_method]()
    via_method = getattr(receiver, snake_case(js_method))(*args)
    via_op = op(receiver, *args)
    assert _values(via_method) == _values(via_op)


# ---------------------------------------------------------------------------------------------
# (c) kernels registered for 'cpu'
# ---------------------------------------------------------------------------------------------


def _kernel_aliases(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Names bound to the kernel_names module, and kernel constants imported by name."""
    aliases, constants = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            for alias in node.names:
                if alias.name == "kernel_names":
                    aliases.add(alias.asname or alias.name)
                elif module.endswith("kernel_names"):
                    constants.add(alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.endswith("kernel_names"):
                    aliases.add(alias.asname or alias.name)
    return aliases, constants


def _kernel_constants_used(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    aliases, constants = _kernel_aliases(tree)
    used = set(constants)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr.isupper()
        ):
            used.add(node.attr)
    return used


def _family_source_files(family: str) -> set[Path]:
    """The family's module files and the files its exported ops are defined in."""
    files = set()
    for module_name in FAMILY_MODULES[family]:
        module = _module(module_name)
        files.add(Path(inspect.getfile(module)))
        for name in getattr(module, "__all__", []):
            obj = inspect.unwrap(getattr(module, name, None) or (lambda: None))
            mod = sys.modules.get(getattr(obj, "__module__", "") or "")
            if mod is not None and mod.__name__.startswith("tidytensor.ops"):
                files.add(Path(inspect.getfile(mod)))
    return files


@pytest.mark.parametrize("family", FAMILIES)
def test_kernels_registered_for_cpu(family):
    used_constants = set()
    for path in _family_source_files(family):
        used_constants |= _kernel_constants_used(path)
    unknown = sorted(c for c in used_constants if not hasattr(kernel_names, c))
    assert not unknown, f"{family}: kernel constants not in kernel_names.py: {unknown}"
    needed = set(FAMILY_KERNELS[family]) | {getattr(kernel_names, c) for c in used_constants}
    missing = sorted(name for name in needed if get_kernel(name, "cpu") is None)
    assert not missing, (
        f"{family}: {len(missing)}/{len(needed)} kernels not registered for cpu: {missing}"
    )


def _ops_module_files() -> list[Path]:
    return sorted(p for p in OPS_DIR.glob("*.py") if not p.name.startswith("_"))


def test_every_ops_module_belongs_to_a_family():
    """So that a new op module is held to every check in this file."""
    known = {m for mods in FAMILY_MODULES.values() for m in mods}
    strays = sorted(p.stem for p in _ops_module_files() if p.stem not in known)
    assert not strays, f"ops modules in no family of FAMILY_MODULES: {strays}"


def test_every_kernel_any_op_uses_has_a_cpu_kernel():
    used: dict[str, set[str]] = {}
    for path in _ops_module_files():
        for constant in _kernel_constants_used(path):
            used.setdefault(constant, set()).add(path.name)
    unknown = sorted(c for c in used if not hasattr(kernel_names, c))
    assert not unknown, f"kernel constants not in kernel_names.py: {unknown}"
    missing = {
        getattr(kernel_names, c): sorted(files)
        for c, files in used.items()
        if get_kernel(getattr(kernel_names, c), "cpu") is None
    }
    assert not missing, f"kernels used by ops with no 'cpu' kernel (kernel: used in): {missing}"


# ---------------------------------------------------------------------------------------------
# (d) __all__ and golden spec coverage
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_module_all(family):
    for module_name in FAMILY_MODULES[family]:
        module = _module(module_name)
        assert isinstance(getattr(module, "__all__", None), (list, tuple)), (
            f"ops/{module_name}.py has no __all__"
        )
        names = list(module.__all__)
        assert names, f"ops/{module_name}.py: __all__ is empty"
        assert len(set(names)) == len(names), f"ops/{module_name}.py: __all__ has duplicates"
        undefined = [n for n in names if not callable(getattr(module, n, None))]
        assert not undefined, f"ops/{module_name}.py: __all__ names that are not ops: {undefined}"
        strays = sorted(_qualified_all(module_name) - ALL_OPS_SNAKE)
        assert not strays, f"ops/{module_name}.py exports names that are not TF.js ops: {strays}"


def _spec_ops() -> dict[str, set[str]]:
    """Qualified snake_case op name -> the spec files with a case for it."""
    found: dict[str, set[str]] = {}
    for path in sorted(SPECS_DIR.glob("*.json")):
        cases = json.loads(path.read_text())
        assert isinstance(cases, list), f"{path.name}: the spec must be a JSON list of cases"
        for case in cases:
            assert isinstance(case, dict) and "op" in case and "name" in case, (
                f"{path.name}: bad case {case!r}"
            )
            found.setdefault(qualified_snake(case["op"]), set()).add(path.name)
    return found


@pytest.mark.parametrize("family", FAMILIES)
def test_golden_specs_cover_family(family):
    covered = _spec_ops()
    required = set(FAMILY_SNAKE[family])
    for module_name in FAMILY_MODULES[family]:
        required |= _qualified_all(module_name)
    missing = sorted(required - set(covered) - set(GOLDEN_SPEC_EXEMPT))
    assert not missing, (
        f"no golden spec case for {len(missing)}/{len(required)} {family} ops: {missing}"
    )


# ---------------------------------------------------------------------------------------------
# (e) gradients registered, saving what TF.js saves
# ---------------------------------------------------------------------------------------------


def test_every_tfjs_gradient_is_registered():
    missing = sorted(name for name in GRADIENT_KERNELS if get_gradient(name) is None)
    assert not missing, f"{len(missing)}/101 TF.js kernel gradients not registered: {missing}"


def test_no_gradient_where_tfjs_has_none():
    # Kernels of TF.js (kernel_names.py); tidytensor's own kernels (e.g. the fused recurrent
    # layers' in kernel_names_recurrent.py) may have gradients, which (f) still requires tested.
    extra = sorted((set(registered_gradients()) & KERNEL_NAME_VALUES) - set(GRADIENT_KERNELS))
    assert not extra, f"gradients registered for TF.js kernels TF.js has none for: {extra}"


@pytest.mark.parametrize("kernel", sorted(GRADIENT_KERNELS))
def test_gradient_saves_what_tfjs_saves(kernel):
    config = get_gradient(kernel)
    assert config is not None, f"{kernel} has no registered gradient"
    inputs, output = GRADIENT_KERNELS[kernel]
    ours = "all" if config.save_all_inputs else tuple(config.inputs_to_save)
    if kernel in VARIABLE_INPUT_GRADIENTS:
        assert ours == "all" or set(ours) == set(inputs)
    elif inputs == "all":
        assert ours == "all", f"{kernel}: TF.js saves all inputs, this saves {ours}"
    else:
        assert ours != "all" and sorted(ours) == sorted(inputs), (
            f"{kernel}: saves inputs {ours}, TF.js saves {inputs}"
        )
    assert any(config.outputs_to_save) == output, (
        f"{kernel}: outputs_to_save {config.outputs_to_save}, TF.js saves the output: {output}"
    )


# ---------------------------------------------------------------------------------------------
# (f) every gradient and every differentiable op exercised by a gradient test
# ---------------------------------------------------------------------------------------------


class GradCoverageRecorder:
    """A pytest plugin that runs only the suite's gradient tests and records what they cover.

    It keeps the tests whose function calls ``check_grads`` and the golden cases with a
    ``grad`` list, and records:

    - ``kernels``: kernels whose registered gradient function the tape called for a kernel
      that the function under test ran (inside the ``f`` given to ``check_grads``, or inside
      a golden grad case's op; check_grads' own loss, ``sum(f(x) * w)``, does not count);
    - ``ops``: the public ops (``tf.x``, ``tf.<ns>.x``, ``Tensor.x``) the function under test
      called directly while a tape was recording, and the op of each golden grad case that
      ran without raising.
    """

    def __init__(self, out_path: Path):
        self.out_path = out_path
        self.kernels: set[str] = set()
        self.ops: set[str] = set()
        self.active = 0  # > 0 inside a function under test
        self.depth = 0  # > 0 inside a recorded public op
        self.selected = 0

    # -- patches ---------------------------------------------------------------------------
    def _install(self) -> None:
        import golden_util
        import tidytensor.kernel_registry as registry
        import tidytensor.testing as testing
        from tidytensor.engine import ENGINE

        recorder = self
        original_get_gradient = registry.get_gradient

        def get_gradient(kernel: str):
            config = original_get_gradient(kernel)
            if config is None or not recorder.active:
                return config
            grad_func = config.grad_func

            def recording_grad_func(*args: Any, **kwargs: Any) -> Any:
                recorder.kernels.add(kernel)
                return grad_func(*args, **kwargs)

            return dataclasses.replace(config, grad_func=recording_grad_func)

        registry.get_gradient = get_gradient

        def under_test(f: Any) -> Any:
            @functools.wraps(f)
            def traced(*args: Any, **kwargs: Any) -> Any:
                recorder.active += 1
                try:
                    return f(*args, **kwargs)
                finally:
                    recorder.active -= 1

            return traced

        original_check_grads = testing.check_grads

        @functools.wraps(original_check_grads)
        def check_grads(f: Any, args: Any, *rest: Any, **kwargs: Any) -> Any:
            return original_check_grads(under_test(f), args, *rest, **kwargs)

        testing.check_grads = check_grads

        original_call_case = golden_util.call_case

        @functools.wraps(original_call_case)
        def call_case(case: dict) -> Any:
            if not case.get("grad"):
                return original_call_case(case)
            result = under_test(original_call_case)(case)
            recorder.ops.add(qualified_snake(case["op"]))
            return result

        golden_util.call_case = call_case

        def recording_op(fn: Any, qualified: str) -> Any:
            @functools.wraps(fn)
            def recorded(*args: Any, **kwargs: Any) -> Any:
                if recorder.active and not recorder.depth and ENGINE.state.active_tape is not None:
                    recorder.ops.add(qualified)
                recorder.depth += 1
                try:
                    return fn(*args, **kwargs)
                finally:
                    recorder.depth -= 1

            return recorded

        for qualified in ALL_OPS_SNAKE:
            namespace, name = _split(qualified)
            owner = getattr(tidytensor, namespace, None) if namespace else tidytensor
            fn = getattr(owner, name, None)
            if callable(fn):
                setattr(owner, name, recording_op(fn, qualified))
        for js in (*CHAINED_METHODS, *CORE_OP_METHODS):
            method = getattr(Tensor, snake_case(js), None)
            if callable(method):
                setattr(Tensor, snake_case(js), recording_op(method, _chained_op(js)))

    # -- pytest hooks ----------------------------------------------------------------------
    def pytest_configure(self, config: Any) -> None:
        self._install()

    @staticmethod
    def _is_gradient_test(item: Any) -> bool:
        fn = getattr(item, "function", None)
        if fn is None:
            return False  # doctests
        callspec = getattr(item, "callspec", None)
        params = callspec.params.values() if callspec is not None else ()
        if any(isinstance(p, dict) and "op" in p and p.get("grad") for p in params):
            return True
        try:
            source = inspect.getsource(inspect.unwrap(fn))
        except (OSError, TypeError):
            return False
        return "check_grads" in source

    def pytest_collection_modifyitems(self, session: Any, config: Any, items: list) -> None:
        keep = [item for item in items if self._is_gradient_test(item)]
        dropped = [item for item in items if not self._is_gradient_test(item)]
        items[:] = keep
        self.selected = len(keep)
        config.hook.pytest_deselected(items=dropped)

    def pytest_sessionfinish(self, session: Any, exitstatus: Any) -> None:
        self.out_path.write_text(
            json.dumps(
                {
                    "kernels": sorted(self.kernels),
                    "ops": sorted(self.ops),
                    "selected": self.selected,
                    "exitstatus": int(exitstatus),
                }
            )
        )


def _record_gradient_coverage(out_path: Path, files: list[str]) -> int:
    """Runs the gradient tests of ``files`` with the recorder; writes its findings to
    ``out_path``."""
    for path in (str(ROOT / "src"), str(TESTS_DIR)):
        if path not in sys.path:
            sys.path.insert(0, path)
    args = [
        *files,
        f"--rootdir={ROOT}",
        "-q",
        "-p",
        "no:cacheprovider",
        "--continue-on-collection-errors",
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",  # tidytensor is imported before pytest
    ]
    return int(pytest.main(args, plugins=[GradCoverageRecorder(out_path)]))


def _test_file_groups() -> list[list[str]]:
    """Every test file under tests/ but this one, grouped by folder: one pytest session per
    folder, as the suite's folders are run (two folders may hold test files of one basename,
    which one session cannot import side by side)."""
    this = Path(__file__).resolve()
    groups: dict[Path, list[str]] = {}
    for path in sorted(TESTS_DIR.rglob("test_*.py")):
        if "node_modules" in path.parts or path.resolve() == this:
            continue
        groups.setdefault(path.parent, []).append(str(path))
    return list(groups.values())


@pytest.fixture(scope="module")
def grad_coverage(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("grad_coverage")
    coverage: dict[str, Any] = {"kernels": set(), "ops": set(), "selected": 0}
    outputs = []
    for i, files in enumerate(_test_file_groups()):
        out = tmp / f"coverage{i}.json"
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), str(out), *files],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=1200,
        )
        folder = Path(files[0]).parent.relative_to(ROOT)
        assert out.is_file(), (
            f"the gradient-coverage run of {folder} wrote nothing (exit {proc.returncode}):\n"
            f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
        )
        found = json.loads(out.read_text())
        coverage["kernels"] |= set(found["kernels"])
        coverage["ops"] |= set(found["ops"])
        coverage["selected"] += found["selected"]
        if found["exitstatus"] not in (0, 5):  # 5: no gradient test in that folder
            outputs.append(f"--- {folder} (exit {found['exitstatus']}):\n{proc.stdout[-1500:]}")
    coverage["output"] = "\n".join(outputs)
    return coverage


def test_gradient_tests_were_found(grad_coverage):
    assert grad_coverage["selected"] >= 200, grad_coverage["output"]
    assert "Multiply" in grad_coverage["kernels"] and "exp" in grad_coverage["ops"]
    # check_grads' own loss (sum of f(x) * w) is not credited to the function under test.
    assert len(grad_coverage["kernels"]) >= 50, grad_coverage["output"]


def test_every_registered_gradient_is_exercised(grad_coverage):
    registered = set(registered_gradients())
    unrunnable = {name for name in registered if get_kernel(name, "cpu") is None}
    assert unrunnable <= GRADIENTS_WITHOUT_CPU_KERNEL, (
        f"gradients registered for kernels with no cpu kernel: {sorted(unrunnable)}"
    )
    missing = sorted(registered - unrunnable - set(grad_coverage["kernels"]))
    assert not missing, (
        f"{len(missing)} kernels have a registered gradient that no check_grads table entry or "
        f"golden grad case runs (add one to the family's GRAD_OPS table): {missing}\n"
        f"gradient-test runs that failed:\n{grad_coverage['output'] or 'none'}"
    )


def test_every_differentiable_op_is_exercised(grad_coverage):
    missing = sorted(set(DIFFERENTIABLE_OPS) - set(grad_coverage["ops"]))
    assert not missing, (
        f"{len(missing)}/{len(DIFFERENTIABLE_OPS)} differentiable ops are called by no "
        f"check_grads table entry or golden grad case: {missing}\n"
        f"gradient-test runs that failed:\n{grad_coverage['output'] or 'none'}"
    )


if __name__ == "__main__":
    sys.exit(_record_gradient_coverage(Path(sys.argv[1]), sys.argv[2:]))
