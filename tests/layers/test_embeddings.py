"""Layers of ``layers/embeddings.py`` against TF.js goldens (tests/golden/layers_families.js):
predict output, output shape, config and summary, a no-leak check and a config round trip for
every case, TF.js's refused arguments and inputs, and hand-written edge cases."""

from __future__ import annotations

import pytest
from families_golden import FamilyGoldenTests

import tidytensor as tf
from tidytensor.layers import embeddings as M
from tidytensor.layers.errors import LayersValueError


class TestGolden(FamilyGoldenTests):
    modules = (M,)


def _layer_with_table(**kwargs):
    layer = M.embedding(input_dim=4, output_dim=2, **kwargs)
    layer.apply(tf.tensor2d([[0]], None, "int32")).dispose()
    table = tf.tensor2d([[0, 0], [1, 1], [2, 2], [3, 3]])
    layer.set_weights([table])
    table.dispose()
    return layer


def test_lookup_and_float_indices():
    layer = _layer_with_table()
    y = layer.apply(tf.tensor2d([[3, 1], [0, 2]]))  # float32 indices are cast
    assert y.array_sync() == [[[3, 3], [1, 1]], [[0, 0], [2, 2]]]


def test_mask_zero_attaches_a_mask():
    from tidytensor.layers.engine.topology import get_keras_mask

    layer = _layer_with_table(mask_zero=True)
    y = layer.apply(tf.tensor2d([[0, 2, 0]], None, "int32"))
    mask = get_keras_mask(y)
    assert mask.dtype == "bool"
    assert mask.array_sync() == [[False, True, False]]
    assert _layer_with_table().compute_mask(tf.ones([1, 1])) is None


def test_default_batch_input_shape_and_symbolic_shapes():
    from tidytensor.layers.engine.input_layer import input as tf_input

    assert M.embedding(input_dim=3, output_dim=2).batch_input_shape == [None, None]
    layer = M.embedding(input_dim=3, output_dim=2, input_length=[4, None], batch_size=8)
    assert layer.batch_input_shape == [8, 4, None]
    assert layer.compute_output_shape([None, 4, 5]) == [None, 4, 5, 2]
    assert M.embedding(input_dim=3, output_dim=2).apply(tf_input(shape=[7])).shape == [
        None,
        7,
        2,
    ]


def test_input_length_mismatch_names_the_layer():
    layer = M.embedding(input_dim=3, output_dim=2, input_length=4, name="emb_len")
    with pytest.raises(LayersValueError, match='Embedding emb_len: "input_length" is 4'):
        layer.compute_output_shape([None, 5])


def test_out_of_range_index_raises():
    layer = _layer_with_table()
    with pytest.raises(Exception, match="4"):
        layer.apply(tf.tensor2d([[4]], None, "int32"))


def test_embeddings_default_initializer_is_random_uniform():
    config = M.embedding(input_dim=3, output_dim=2).get_config()
    assert config["embeddings_initializer"]["class_name"] == "RandomUniform"
    assert config["mask_zero"] is None and config["input_length"] is None
