"""``tf.layers``: TF.js's Layers API (``tfjs-layers``) — layers, models, initializers,
activations, regularizers, constraints and their serialization.

This package is also the ``tf.layers`` namespace: every TF.js layer factory in snake_case
(``tf.layers.dense(units=3, activation='relu', input_shape=[4])``), plus ``input``,
``input_layer`` and the ``Layer`` base class.

>>> import tidytensor.layers as layers
>>> model = tf.sequential([layers.dense(units=1, input_shape=[2], kernel_initializer='ones')])
>>> model.predict(tf.tensor2d([[1, 2]])).array_sync()
[[3.0]]

Folder structure (as tfjs-layers' ``engine/`` folder beside its layer families, and Keras 3's
``trainers/`` apart from ``layers/``)
---------------------------------------------------------------------------------------------
- ``engine/``: what every model is made of, without training. ``topology`` (``Layer``,
  ``SymbolicTensor``, ``Node``, ``InputSpec``), ``input_layer`` (``tf.input``), ``container``
  (a graph of layers, its config and weights), ``executor`` (runs the graph), ``models``
  (``LayersModel``, ``Sequential``, ``tf.model``, ``tf.sequential``, ``predict``),
  ``input_data`` (batching and input checks shared by ``predict`` and training),
  ``serialization`` (the ``class_name`` registry), ``saving`` (``model.json`` ↔ model:
  ``tf.load_layers_model``, ``model.save``), ``summary``, ``state`` (name counters),
  ``variables`` (``LayerVariable``).
- ``training/``: ``Trainer``, the ``compile``/``fit``/``evaluate``/``*_on_batch``/
  ``*_dataset`` methods ``LayersModel`` mixes in, and the functions behind them: ``compile``,
  ``inputs``, ``steps``, ``loops``, ``dataset_loops``, ``args``, ``progress`` and
  ``callbacks/``.
- Beside them, one module per layer family (TF.js's ``layers/*.ts``): ``core``,
  ``convolutional``, ``convolutional_depthwise``, ``convolutional_recurrent``, ``recurrent``
  (and ``recurrent_cells``), ``merge``, ``pooling``, ``normalization``, ``noise``,
  ``padding``, ``embeddings``, ``wrappers``, ``advanced_activations``, ``preprocessing``; and
  what layers are configured with: ``activations``, ``initializers``, ``regularizers``,
  ``constraints``, ``losses``, ``metrics``, ``backend`` (TF.js's ``K`` helpers), ``utils``,
  ``errors``.

``layers.models`` and ``layers.serialization`` are ``engine.models`` and
``engine.serialization`` (``tf.serialization``), kept as attributes for short spellings.

Adding a layer family
---------------------
1. Write ``layers/<family>.py`` (TF.js's ``layers/<family>.ts``). Each layer subclasses
   :class:`~.engine.topology.Layer`, sets ``class_name`` (Keras's name), is decorated with
   ``@register_class`` and overrides what it needs:

   - ``__init__(self, <own args>, **kwargs)`` → ``super().__init__(**kwargs)``; resolve
     identifiers with ``get_activation`` / ``get_initializer`` / ``get_regularizer`` /
     ``get_constraint``; set ``self.input_spec = [InputSpec(...)]``, ``supports_masking``.
   - ``build(self, input_shape)``: ``self.add_weight(name, shape, dtype, initializer,
     regularizer, trainable, constraint)``; end with ``self.built = True``.
   - ``call(self, inputs, **kwargs)``: ops only (``from .. import ops``; ``backend as K``).
     It runs inside ``tf.tidy``: only what it returns survives (``tf.keep`` a tensor the
     layer stores for later; assigning a variable is always safe). ``kwargs`` may hold
     ``training`` and ``mask``. Unwrap a single input with ``utils.get_exactly_one_tensor``
     (the executor passes a list).
   - ``compute_output_shape(self, input_shape)`` (shapes are lists, ``None`` = unknown) and
     ``compute_mask(self, inputs, mask=None)`` for masking-aware layers.
   - ``get_config(self)``: own arguments with snake_case keys and ``model.json`` values
     (``serialize_activation(...)``, ``serialize_initializer(...)``, strings snake_cased with
     ``utils.to_snake_case`` — ``'channelsLast'`` → ``'channels_last'``), then
     ``config.update(super().get_config())``. ``from_config`` is inherited
     (``cls(**config)``; constructors must accept both spellings of string values).
   - stateful layers: set ``self._stateful = True`` and override ``reset_states``.

2. Add factories (snake_case TF.js names; required arguments positional-or-keyword, the rest
   keywords) and list them in the module's ``__all__``.
3. Add the module name to ``_FAMILIES`` below; aliases (``max_pool2d``) go in ``_ALIASES``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ..optimizers import OPTIMIZER_CLASSES as _OPTIMIZER_CLASSES
from . import activations as activations
from . import backend as backend
from . import constraints as constraints
from . import initializers as initializers
from . import regularizers as regularizers
from . import utils as utils
from .engine import models as models
from .engine import serialization as serialization
from .engine.input_layer import InputLayer as InputLayer
from .engine.input_layer import input, input_layer  # noqa: A004 - TF.js's name
from .engine.topology import InputSpec, Layer, SymbolicTensor

# As TF.js's registerOptimizers: each optimizer class is in the serialization map too.
for _cls in _OPTIMIZER_CLASSES.values():
    serialization.register_class(_cls)

#: Layer family modules whose ``__all__`` (factories) make up the ``tf.layers`` namespace.
_FAMILIES = (
    "core",
    "advanced_activations",
    "convolutional",
    "convolutional_depthwise",
    "padding",
    "pooling",
    "normalization",
    "embeddings",
    "merge",
    "noise",
    "preprocessing",
    "recurrent",
    "wrappers",
    "convolutional_recurrent",
)

#: ``alias: factory name`` pairs. The mechanical snake_case of TF.js's ``reLU``,
#: ``leakyReLU`` and ``thresholdedReLU`` splits the acronym (``re_lu``, as Keras's own
#: ``to_snake_case`` names these layers); the aliases are the spellings of Keras's and
#: PyTorch's activation functions (``keras.activations.leaky_relu``). Both make the same layer.
_ALIASES: dict[str, str] = {
    "relu": "re_lu",
    "leaky_relu": "leaky_re_lu",
    "thresholded_relu": "thresholded_re_lu",
    # The other way round: TF.js's ``prelu`` is already the activation's spelling; Keras's
    # mechanical snake_case of the class name ``PReLU`` is ``p_re_lu``.
    "p_re_lu": "prelu",
    # Keras's ``GlobalAvgPool1D``/``2D`` beside TF.js's ``globalMaxPool1d``/``2d`` aliases.
    "global_avg_pool1d": "global_average_pooling1d",
    "global_avg_pool2d": "global_average_pooling2d",
}

__all__ = ["InputSpec", "Layer", "SymbolicTensor", "input", "input_layer"]

for _name in _FAMILIES:
    _module = importlib.import_module(f"{__name__}.{_name}")
    for _factory in _module.__all__:
        globals()[_factory] = getattr(_module, _factory)
        __all__.append(_factory)
for _alias, _target in _ALIASES.items():
    globals()[_alias] = globals()[_target]
    __all__.append(_alias)
del _name, _module, _factory

if TYPE_CHECKING:  # the loop above, spelled out for type checkers
    from .advanced_activations import *  # noqa: F403
    from .convolutional import *  # noqa: F403
    from .convolutional_depthwise import *  # noqa: F403
    from .convolutional_recurrent import *  # noqa: F403
    from .core import *  # noqa: F403
    from .embeddings import *  # noqa: F403
    from .merge import *  # noqa: F403
    from .noise import *  # noqa: F403
    from .normalization import *  # noqa: F403
    from .padding import *  # noqa: F403
    from .pooling import *  # noqa: F403
    from .preprocessing import *  # noqa: F403
    from .recurrent import *  # noqa: F403
    from .wrappers import *  # noqa: F403

    relu = re_lu  # noqa: F405
    leaky_relu = leaky_re_lu  # noqa: F405
    thresholded_relu = thresholded_re_lu  # noqa: F405
