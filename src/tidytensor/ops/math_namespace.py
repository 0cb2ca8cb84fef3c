"""``tf.math``: TF.js's one op exported under that namespace (``tf.math.confusionMatrix``)."""

from __future__ import annotations

from .evaluation import confusion_matrix

__all__ = ["confusion_matrix"]
