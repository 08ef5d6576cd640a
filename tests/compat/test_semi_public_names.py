"""The semi-public names (``_x``) of Chainer's modules that Chainer's own tests and programs read."""

from __future__ import annotations

import importlib.util

import numpy
import pytest

from fnet.compat import chainerx, initializers
from fnet.compat.backends import _cpu
from fnet.compat.datasets import image_dataset
from fnet.compat.testing import matrix, parameterized


def test_get_initializer_turns_initial_values_into_fillers():
    filled = numpy.empty((2, 3), numpy.int32)
    initializers._get_initializer(7)(filled)
    numpy.testing.assert_array_equal(filled, numpy.full((2, 3), 7))
    initializers._get_initializer(numpy.array([1, 2, 3]))(filled)
    numpy.testing.assert_array_equal(filled, [[1, 2, 3]] * 2)
    assert isinstance(initializers._get_initializer(None), initializers.LeCunNormal)
    assert initializers._get_initializer(print) is print
    with pytest.raises(TypeError, match="expected an initializer"):
        initializers._get_initializer(object())


def test_to_cpu_converts_an_array_or_each_of_a_list():
    a = numpy.zeros(2)
    assert _cpu._to_cpu(a) is a
    converted = _cpu._to_cpu((a, None, numpy.float32(1)))
    assert converted[0] is a and converted[1] is None and converted[2].shape == ()


def test_image_dataset_available_says_whether_pillow_is_installed():
    assert image_dataset.available == (importlib.util.find_spec("PIL") is not None)


def test_chainerx_ndarray_is_its_own_type_beside_numpy():
    assert not isinstance(numpy.zeros(1), chainerx.ndarray)
    assert isinstance(chainerx.ndarray((1,), "float32"), chainerx.ndarray)


def test_testing_private_names_chainer_tests_read():
    assert matrix._broadcast_to(numpy.ones(2), (3, 2)).shape == (3, 2)
    assert parameterized._product_dict_orig is parameterized.product_dict


def test_memory_layouts_convert_shapes_between_channel_first_and_last():
    from fnet.compat import memory_layouts as layouts

    image = numpy.zeros((2, 5, 7, 3))
    assert layouts.get_semantic_shape(image, assumed_layout=layouts.CUDNN_CHANNEL_LAST_X) == (2, 3, 5, 7)
    assert layouts.get_semantic_shape(image) == layouts.get_raw_shape(image) == (2, 5, 7, 3)
    axes = layouts._get_layout_transpose_axes(4, layouts.CUDNN_CHANNEL_FIRST_W, layouts.CUDNN_CHANNEL_LAST_W)
    assert axes == (0, 2, 3, 1)
    back = layouts._get_layout_transpose_axes(4, None, layouts.CUDNN_CHANNEL_LAST_X, inverse=True)
    assert back == (0, 3, 1, 2)
    with pytest.raises(ValueError, match="unknown layout conversion"):
        layouts._get_layout_transpose_axes(4, layouts.CUDNN_CHANNEL_LAST_X, layouts.CUDNN_CHANNEL_LAST_W)
