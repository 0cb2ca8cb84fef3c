"""Layers of ``layers/merge.py`` against TF.js goldens (tests/golden/layers_families.js):
predict output, output shape, config and summary, a no-leak check and a config round trip for
every case, TF.js's refused arguments and inputs, and hand-written edge cases."""

from __future__ import annotations

import numpy as np
import pytest
from families_golden import FamilyGoldenTests

import tidytensor as tf
from tidytensor.layers import merge as M
from tidytensor.layers.errors import LayersNotImplementedError, LayersValueError


class TestGolden(FamilyGoldenTests):
    modules = (M,)


def test_functional_forms_apply_a_new_layer():
    from tidytensor.layers.engine.input_layer import input as tf_input
    from tidytensor.layers.engine.topology import SymbolicTensor

    a, b = tf.tensor2d([[1, 5]]), tf.tensor2d([[3, 2]])
    assert M.add([a, b]).array_sync() == [[4.0, 7.0]]
    assert M.multiply([a, b]).array_sync() == [[3.0, 10.0]]
    assert M.average([a, b]).array_sync() == [[2.0, 3.5]]
    assert M.maximum([a, b]).array_sync() == [[3.0, 5.0]]
    assert M.minimum([a, b]).array_sync() == [[1.0, 2.0]]
    assert M.concatenate([a, b]).array_sync() == [[1.0, 5.0, 3.0, 2.0]]
    assert M.dot([a, b], axes=1).array_sync() == [[13.0]]
    x, y = tf_input(shape=[3]), tf_input(shape=[3])
    out = M.add([x, y])
    assert isinstance(out, SymbolicTensor) and out.shape == [None, 3]
    assert isinstance(M.add(), M.Add)


def test_functional_form_needs_a_list():
    with pytest.raises(LayersValueError, match="Add: the functional form expects a list"):
        M.add(tf.ones([1, 2]))


def test_symbolic_output_shapes():
    from tidytensor.layers.engine.input_layer import input as tf_input

    x, y = tf_input(shape=[None, 3]), tf_input(shape=[4, 3])
    assert M.concatenate(axis=1).apply([x, y]).shape == [None, None, 3]
    assert M.add().apply([tf_input(shape=[2, 1]), tf_input(shape=[3])]).shape == [None, 2, 3]
    p, q = tf_input(shape=[2, 3]), tf_input(shape=[3, 5])
    assert M.dot(axes=[2, 1]).apply([p, q]).shape == [None, 2, 5]


def test_merge_errors_name_the_layer():
    with pytest.raises(LayersValueError, match="different batch sizes"):
        M.add(name="add_bs").apply([tf.ones([2, 3]), tf.ones([3, 3])])
    with pytest.raises(LayersValueError, match=r"could not be broadcast together.*\(3,\) \(4,\)"):
        M.add(name="add_bc").apply([tf.ones([2, 3]), tf.ones([2, 4])])
    with pytest.raises(LayersValueError, match="Dot: required argument axes"):
        M.dot()
    with pytest.raises(LayersValueError, match="Dot: axes must be an integer or a list of two"):
        M.dot(axes=[1, 2, 3])
    with pytest.raises(LayersNotImplementedError, match="4D or higher"):
        M.dot(axes=1).apply([tf.ones([1, 2, 2, 2]), tf.ones([1, 2, 2, 2])])
    with pytest.raises(LayersValueError, match="Concatenate: axis must be an integer"):
        M.concatenate(axis="last")


def test_concatenate_mask_combines_input_masks():
    layer = M.concatenate(axis=-1)
    a, b = tf.ones([1, 2, 3]), tf.ones([1, 2, 1])
    mask = layer.compute_mask([a, b], [tf.tensor2d([[True, False]], None, "bool"), None])
    assert mask.array_sync() == [[True, False]]
    assert layer.compute_mask([a, b], [None, None]) is None
    assert layer.compute_mask([a, b], None) is None


def test_dot_normalize_is_cosine_similarity():
    a = tf.tensor2d([[3, 4], [1, 0]])
    b = tf.tensor2d([[4, 3], [0, 5]])
    y = M.dot(axes=1, normalize=True).apply([a, b])
    np.testing.assert_allclose(y.data_sync(), [24 / 25, 0], atol=1e-6)


def test_merge_inputs_are_not_returned_as_outputs():
    a = tf.ones([1, 2])
    y = M.maximum().apply([a, a])
    assert y is not a
    y.dispose()
    assert not a.is_disposed
