"""tidytensor: TensorFlow.js's system for Python.

>>> import tidytensor as tf
>>> tf.tidy(lambda: tf.tensor([1, 2, 3]).add(1)).array_sync()
[2.0, 3.0, 4.0]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import config, data, datasets, testing, train, viz
from . import ops as _ops
from .autodiff import custom_grad, grad, grads, value_and_grad, value_and_grads, variable_grads
from .backends import cupy_backend as _cupy_backend
from .backends import numpy_backend as _numpy_backend
from .compiled import Function, function
from .engine import ENGINE as _ENGINE
from .errors import (
    ArgumentTypeError,
    BackendNotFoundError,
    DTypeError,
    InvalidArgumentError,
    KernelLeakError,
    KernelNotRegisteredError,
    LeakWarning,
    MemoryAlertWarning,
    ResourceExhaustedError,
    ShapeError,
    TensorDisposedError,
    TensorIndexError,
    TidyTensorError,
    VariableExistsError,
)
from .ops import *  # noqa: F403

if TYPE_CHECKING:  # ``from .ops import *`` spelled out for type checkers (ops.__all__ is built)
    from .ops.arithmetic import *  # noqa: F403
    from .ops.basic_math import *  # noqa: F403
    from .ops.convolution import *  # noqa: F403
    from .ops.creation import *  # noqa: F403
    from .ops.dropout import *  # noqa: F403
    from .ops.evaluation import *  # noqa: F403
    from .ops.logical import *  # noqa: F403
    from .ops.matrices import *  # noqa: F403
    from .ops.moving_average import *  # noqa: F403
    from .ops.normalization import *  # noqa: F403
    from .ops.pooling import *  # noqa: F403
    from .ops.ragged import *  # noqa: F403
    from .ops.random import *  # noqa: F403
    from .ops.reduction import *  # noqa: F403
    from .ops.rnn import *  # noqa: F403
    from .ops.scan import *  # noqa: F403
    from .ops.segment import *  # noqa: F403
    from .ops.signal_util import *  # noqa: F403
    from .ops.slicing_joining import *  # noqa: F403
    from .ops.transformations import *  # noqa: F403

from .ops import NAMESPACES as _NAMESPACES
from .ops import math_namespace as math
from .ops import signal
from .ops._chained import install as _install_chained
from .ops._op import OP_SCOPE_SUFFIX, op
from .optimizers import (
    AdadeltaOptimizer,
    AdagradOptimizer,
    AdamaxOptimizer,
    AdamOptimizer,
    MomentumOptimizer,
    Optimizer,
    RMSPropOptimizer,
    SGDOptimizer,
)
from .runtime import *  # noqa: F403
from .scopes import *  # noqa: F403
from .tensor import Tensor, TensorBuffer, Variable

__version__ = "0.1.0"

image = _NAMESPACES["image"]
linalg = _NAMESPACES["linalg"]
losses = _NAMESPACES["losses"]
spectral = _NAMESPACES["spectral"]
sparse = _NAMESPACES["sparse"]
string = _NAMESPACES["string"]
fused = _NAMESPACES["fused"]
Reduction = losses.Reduction

_numpy_backend.register(_ENGINE)
_cupy_backend.register(_ENGINE)  # only with CuPy and a visible NVIDIA device
_install_chained()

# The Layers API builds on the ops above.
from . import (  # noqa: E402
    distribute,  # data-parallel training on Ray (Ray itself is imported on first use)
    io,
    layers,
)
from .graph_model import GraphModel, load_graph_model  # noqa: E402
from .layers import (  # noqa: E402
    constraints,
    initializers,
    metrics,
    regularizers,
    serialization,
)
from .layers.engine import models  # noqa: E402 - tf.models.model_from_json
from .layers.engine.input_layer import input  # noqa: E402, A004 - TF.js's name
from .layers.engine.models import Functional, LayersModel, Sequential, model, sequential  # noqa: E402
from .layers.engine.saving import load_layers_model  # noqa: E402
from .layers.engine.topology import SymbolicTensor  # noqa: E402
from .layers.training import callbacks  # noqa: E402
from .layers.training.callbacks import (  # noqa: E402
    Callback,
    CallbackList,
    CustomCallback,
    EarlyStopping,
    History,
    register_callback_constructor,
)

__all__ = [
    *_ops.__all__,
    *__import__("tidytensor.runtime", fromlist=["__all__"]).__all__,
    *__import__("tidytensor.scopes", fromlist=["__all__"]).__all__,
    "custom_grad",
    "grad",
    "grads",
    "value_and_grad",
    "value_and_grads",
    "variable_grads",
    "image",
    "linalg",
    "losses",
    "spectral",
    "sparse",
    "string",
    "fused",
    "config",
    "function",
    "Function",
    "data",
    "viz",
    "math",
    "signal",
    "train",
    "testing",
    "ResourceExhaustedError",
    "LeakWarning",
    "Reduction",
    "MemoryAlertWarning",
    "Optimizer",
    "SGDOptimizer",
    "MomentumOptimizer",
    "AdagradOptimizer",
    "AdadeltaOptimizer",
    "AdamOptimizer",
    "AdamaxOptimizer",
    "RMSPropOptimizer",
    "layers",
    "io",
    "load_layers_model",
    "load_graph_model",
    "GraphModel",
    "datasets",
    "callbacks",
    "distribute",
    "metrics",
    "Callback",
    "CallbackList",
    "CustomCallback",
    "EarlyStopping",
    "History",
    "register_callback_constructor",
    "constraints",
    "initializers",
    "regularizers",
    "serialization",
    "SymbolicTensor",
    "input",
    "Functional",
    "LayersModel",
    "Sequential",
    "model",
    "models",
    "sequential",
    "OP_SCOPE_SUFFIX",
    "op",
    "Tensor",
    "TensorBuffer",
    "Variable",
    "ArgumentTypeError",
    "BackendNotFoundError",
    "DTypeError",
    "InvalidArgumentError",
    "KernelLeakError",
    "KernelNotRegisteredError",
    "ShapeError",
    "TensorDisposedError",
    "TensorIndexError",
    "TidyTensorError",
    "VariableExistsError",
]
