"""The Layers API's engine (TF.js's ``tfjs-layers/src/engine/``): layers, the graphs they
make, models without their training, and ``model.json`` saving and loading. Training is in the
sibling :mod:`tidytensor.layers.training`; see :mod:`tidytensor.layers` for the folder map.

Import the modules themselves (``from tidytensor.layers.engine.models import LayersModel``):
this package imports nothing, so its modules can import each other in any order.
"""
