"""testing.fix_random: the same random numbers in every run, and the random state restored after."""

from __future__ import annotations

import random
import unittest

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat import functions as F
from fnet.compat import testing


def draw_after_seeding() -> float:
    numpy.random.seed(100)
    return numpy.random.uniform()


def test_a_method_draws_as_if_numpy_were_seeded_with_100(scratch_module):
    drawn = []

    @testing.fix_random()
    def test_draw(self):
        drawn.append(numpy.random.uniform())

    case = scratch_module.case("TestDraw", unittest.TestCase, test_draw=test_draw)("test_draw")
    for outer_seed in (7, 8):
        numpy.random.seed(outer_seed)
        case.test_draw()
        # what the test drew did not move the outer state
        assert numpy.random.uniform() == numpy.random.RandomState(outer_seed).uniform()
    assert drawn == [draw_after_seeding()] * 2


def test_python_random_state_is_restored(scratch_module):
    @testing.fix_random()
    def test_python(self):
        random.random()

    random.seed(3)
    expected = random.Random(3).random()
    scratch_module.case("TestPython", unittest.TestCase, test_python=test_python)("test_python").test_python()
    assert random.random() == expected


def test_a_class_is_seeded_in_setup_and_keeps_its_name(scratch_module):
    drawn = []

    class TestNoise(unittest.TestCase):
        def setUp(self):
            self.noise = numpy.random.uniform()

        def test_noise(self):
            drawn.append((self.noise, numpy.random.uniform()))

    TestNoise.__module__ = scratch_module.__name__
    assert testing.fix_random()(TestNoise) is TestNoise  # still collected under its name
    for _ in range(2):
        unittest.TestSuite([TestNoise("test_noise")]).run(unittest.TestResult())
    numpy.random.seed(100)
    assert drawn == [tuple(numpy.random.uniform(size=2))] * 2


def test_chainer_randomness_is_fixed_too(scratch_module):
    """Dropout draws its key from NumPy's global state."""
    masks = []

    @testing.fix_random()
    def test_dropout(self):
        masks.append(F.dropout(numpy.ones(20, numpy.float32)).array)

    case = scratch_module.case("TestDropout", unittest.TestCase, test_dropout=test_dropout)("test_dropout")
    with chainer.using_config("train", True):
        case.test_dropout()
        case.test_dropout()
    numpy.testing.assert_array_equal(masks[0], masks[1])


def test_pytest_classes_name_their_setup_methods(scratch_module):
    drawn = []

    class TestPlain:
        def test_draw(self):
            drawn.append(numpy.random.uniform())

    TestPlain.__module__ = scratch_module.__name__
    testing.fix_random(setup_method="setup_method", teardown_method="teardown_method")(TestPlain)
    instance = TestPlain()
    instance.setup_method(TestPlain.test_draw)
    instance.test_draw()
    instance.teardown_method(TestPlain.test_draw)
    assert drawn == [draw_after_seeding()]


def test_parameterized_classes_are_each_fixed(scratch_module):
    drawn = {}

    def test_draw(self):
        drawn[self.x] = numpy.random.uniform()

    bundle = testing.fix_random()(
        testing.parameterize({"x": 1}, {"x": 2})(
            scratch_module.case("TestMany", unittest.TestCase, test_draw=test_draw)
        )
    )
    for case in bundle.cases:
        unittest.TestSuite([case.klass("test_draw")]).run(unittest.TestResult())
    assert drawn == {1: draw_after_seeding(), 2: draw_after_seeding()}


def test_generate_seed_needs_a_fixed_state():
    with pytest.raises(RuntimeError, match="decorate the test with testing.fix_random"):
        testing.generate_seed()


def test_generate_seed_inside_a_fixed_test(scratch_module):
    seeds = []

    @testing.fix_random()
    def test_seed(self):
        seeds.append(testing.generate_seed())

    case = scratch_module.case("TestSeed", unittest.TestCase, test_seed=test_seed)("test_seed")
    case.test_seed()
    case.test_seed()
    numpy.random.seed(100)
    assert seeds == [numpy.random.randint(0xFFFFFFFF)] * 2


def test_do_setup_seeds_and_do_teardown_restores():
    from fnet.compat.testing import random as testing_random

    numpy.random.seed(7)
    expected_after = numpy.random.rand()
    numpy.random.seed(7)
    testing_random.do_setup()
    first = numpy.random.rand()
    testing_random.do_teardown()
    assert numpy.random.rand() == expected_after  # the state before do_setup is back
    testing_random.do_setup()
    assert numpy.random.rand() == first  # seeded the same way each time
    testing_random.do_teardown()
    with pytest.raises(RuntimeError, match="call do_setup"):
        testing_random.do_teardown()
