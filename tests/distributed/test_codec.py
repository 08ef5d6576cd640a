"""The wire format of ``*_obj`` messages: plain values, and types that a layer above registers."""

import numpy
import pytest

from fnet.distributed import _codec, register_message_type
from fnet.errors import ArgumentTypeError, InvalidInputError


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


register_message_type(Point, 120, lambda p: [p.x, p.y], lambda plain: Point(*plain))


def test_plain_values_come_back_equal():
    sent = {"k": [1, 2.5, "s", None, b"b"], "t": (1, (2,)), "a": numpy.arange(6.0).reshape(2, 3)}
    got = _codec.decode(_codec.encode("test", sent))
    assert got["k"] == sent["k"] and got["t"] == sent["t"]
    numpy.testing.assert_array_equal(got["a"], sent["a"])


def test_a_registered_type_travels_as_its_plain_values_and_is_rebuilt():
    got = _codec.decode(_codec.encode("test", {"p": Point(1, numpy.float32(2.5)), "ps": (Point(3, 4),)}))
    assert isinstance(got["p"], Point) and (got["p"].x, got["p"].y) == (1, 2.5)
    assert got["p"].y.dtype == numpy.float32
    assert isinstance(got["ps"], tuple) and got["ps"][0].x == 3


def test_an_unregistered_type_is_refused_naming_it():
    class Other:
        pass

    with pytest.raises(ArgumentTypeError, match=r"send_obj: expected plain data .* got .*Other"):
        _codec.encode("send_obj", [Other()])


def test_a_code_taken_by_another_type_or_out_of_range_is_refused():
    class Other:
        pass

    with pytest.raises(ArgumentTypeError, match="code 120 is taken by another type"):
        register_message_type(Other, 120, list, list)
    with pytest.raises(ArgumentTypeError, match=r"expected code to be an int in \[16, 127\], got 3"):
        register_message_type(Other, 3, list, list)


def test_a_message_of_a_type_this_rank_has_not_registered_is_a_clear_error():
    class Elsewhere:
        pass

    register_message_type(Elsewhere, 121, lambda _: 0, lambda _: Elsewhere())
    data = _codec.encode("send_obj", Elsewhere())
    del _codec._rebuilders[121], _codec._registered[Elsewhere]  # as on a rank that never registered it
    with pytest.raises(InvalidInputError, match="type code 121, which this rank has not registered"):
        _codec.decode(data)
