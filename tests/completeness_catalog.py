"""The catalog lists that the completeness tests check the implementation against: the op
list of catalog §2.3 (all 250 op functions), its kernels, the chained Tensor methods (§2.4)
and the kernels' gradients (§2.5), with the helpers that name ops the way ``tidytensor``
exports them.

The checks, one file each:

- ``test_completeness_ops.py``: the lists' own self-checks;
  (a) every TF.js op function is exported under its snake_case name: top-level ops on
  ``tidytensor``, namespaced ones on ``tf.image`` / ``tf.linalg`` / ``tf.losses`` /
  ``tf.spectral`` / ``tf.signal`` / ``tf.sparse`` / ``tf.string`` / ``tf.fused`` /
  ``tf.math``;
  (b) every one of TF.js's 137 chained Tensor methods exists on ``Tensor`` and runs its op;
  (d) each family's op modules have ``__all__`` and the golden specs cover each op.
- ``test_completeness_kernels.py``:
  (c) every kernel the catalog lists for an op, and every kernel constant any op module uses,
  has a kernel registered for the ``'cpu'`` backend;
  (e) the 101 kernels with a TF.js gradient have one registered, saving what TF.js saves.
- ``test_completeness_gradient_tests.py``:
  (f) every registered gradient, and every differentiable op, is exercised by a
  ``tf.testing.check_grads`` call or a golden ``grad`` case somewhere in ``tests/``.
- ``test_completeness_kernel_places.py``:
  (g) every registered kernel, tidytensor's fused ``Tidy*`` ones included, is found in the
  same four places by its family name: op (``ops/<family>.py``), kernel name
  (``kernel_names/tfjs.py`` or ``kernel_names/<family>.py``), kernel
  (``backends/xp_kernels/<family>.py``), gradient (``gradients/<family>.py``); and the shape
  geometry ops and kernels share lives below both (``geometry/``).

The op, kernel and method lists are copied from the catalog (tfjs-catalog.md §2.3-2.5), so they
do not depend on what the implementation happens to define.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import tidytensor.kernel_names as kernel_names
from tidytensor.naming import snake_case

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
    "signal": ("signal",),
    "signal_helpers": ("signal_util",),
}

#: tidytensor's own kernel families: fused ``Tidy*`` kernels with no TF.js op. Each has its
#: kernel names in ``kernel_names_<family>.py``, internal ops (not exported as ``tf.*``) in
#: ``ops/<family>.py``, kernels in ``backends/xp_kernels/<family>.py`` and, where its kernels
#: have gradients, ``gradients/<family>.py``.
INTERNAL_FAMILIES = ("layers_dense", "layers_losses", "recurrent", "optimizers")

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
    "signal": "signal",
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
#: "all" for saveAllInputs; whether it saves the output). Positions follow kernel_names/tfjs.py.
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


def split_qualified(qualified: str) -> tuple[str | None, str]:
    namespace, _, name = qualified.rpartition(".")
    return namespace or None, name


def ops_module(name: str):
    return importlib.import_module(f"tidytensor.ops.{name}")


def qualified_all(module_name: str) -> set[str]:
    """A module's ``__all__``, qualified with its namespace."""
    ns = MODULE_NAMESPACE.get(module_name)
    return {f"{ns}.{n}" if ns else n for n in getattr(ops_module(module_name), "__all__", [])}


def chained_op(js_method: str) -> str:
    """The qualified snake_case op a chained method runs (``resizeBilinear`` -> its tf.image op)."""
    base = snake_case(SPECIAL_CHAINED.get(js_method, js_method))
    if base in ALL_OPS_SNAKE:
        return base
    matches = [q for q in ALL_OPS_SNAKE if split_qualified(q)[1] == base]
    assert len(matches) == 1, f"chained method {js_method}: no single op named {base}: {matches}"
    return matches[0]
