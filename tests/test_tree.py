"""Tests of fnet.tree: flatten/unflatten, paths, map, static fields, custom nodes, mismatches."""

from __future__ import annotations

import collections

import attrs
import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fnet import tree
from fnet.errors import TreeStructureError

Point = collections.namedtuple("Point", ["x", "y"])


@attrs.frozen
class Linear:
    W: object
    b: object
    activation: str = tree.static_field(default="relu")


class Box:
    """A plain class made a node with register_node: one child, one static tag."""

    def __init__(self, value, tag):
        self.value = value
        self.tag = tag

    def __eq__(self, other):
        return type(other) is Box and self.value == other.value and self.tag == other.tag


tree.register_node(
    Box,
    lambda b: ([b.value], b.tag),
    lambda tag, children: Box(children[0], tag),
    lambda b, tag: ("value",),
)


def roundtrip(t):
    leaves, struct = tree.flatten(t)
    return tree.unflatten(struct, leaves)


# -- flatten / unflatten ------------------------------------------------------------------------


def test_dict_leaves_in_sorted_key_order():
    leaves, struct = tree.flatten({"b": 1, "c": 2, "a": 3})
    assert leaves == [3, 1, 2]
    assert tree.unflatten(struct, [30, 10, 20]) == {"a": 30, "b": 10, "c": 20}


def test_dict_insertion_order_does_not_change_structure():
    assert tree.structure({"a": 1, "b": 2}) == tree.structure({"b": 2, "a": 1})
    assert hash(tree.structure({"a": 1, "b": 2})) == hash(tree.structure({"b": 2, "a": 1}))


@pytest.mark.parametrize(
    "t, expected_leaves",
    [
        ([1, 2, 3], [1, 2, 3]),
        ((1, (2, 3)), [1, 2, 3]),
        (Point(1, 2), [1, 2]),
        (None, []),
        ([None, 1, None], [1]),
        ({}, []),
        ([], []),
        ((), []),
        ({"l1": {"W": 1, "b": 2}, "l2": [Point(3, None), (4,)]}, [1, 2, 3, 4]),
        (5, [5]),
    ],
)
def test_flatten_unflatten_roundtrip(t, expected_leaves):
    leaves, struct = tree.flatten(t)
    assert leaves == expected_leaves
    back = tree.unflatten(struct, leaves)
    assert back == t
    assert type(back) is type(t)
    assert struct.num_leaves == len(leaves)


def test_unflatten_keeps_container_types():
    t = {"a": [1, (2, Point(3, 4))]}
    back = roundtrip(t)
    assert type(back["a"]) is list
    assert type(back["a"][1]) is tuple
    assert type(back["a"][1][1]) is Point


def test_arrays_are_leaves():
    x = numpy.ones((2, 3))
    leaves, struct = tree.flatten({"x": x})
    assert leaves[0] is x
    assert tree.unflatten(struct, leaves)["x"] is x


def test_unflatten_with_wrong_number_of_leaves():
    struct = tree.structure([1, 2])
    with pytest.raises(TreeStructureError, match="unflatten: expected 2 leaves .* got 1"):
        tree.unflatten(struct, [1])


def test_list_and_tuple_structures_differ():
    assert tree.structure([1, 2]) != tree.structure((1, 2))
    assert tree.structure([1, 2]) != tree.structure([1, 2, 3])
    assert tree.structure([None]) != tree.structure([1])
    assert tree.structure(Point(1, 2)) != tree.structure((1, 2))


def test_structure_is_hashable_and_usable_as_dict_key():
    cache = {tree.structure({"a": [1, 2]}): "seen"}
    assert cache[tree.structure({"a": [5, 6]})] == "seen"
    assert tree.structure({"a": [5, 6]}) not in {tree.structure({"a": [5]}): 1}


def test_leaves_and_is_leaf():
    t = {"a": (1, 2), "b": [3]}
    assert tree.leaves(t) == [1, 2, 3]
    assert tree.leaves(t, is_leaf=lambda x: isinstance(x, tuple)) == [(1, 2), 3]
    assert tree.leaves([None, 1], is_leaf=lambda x: x is None) == [None, 1]


# -- attrs classes and static fields ------------------------------------------------------------


def test_attrs_fields_in_order_static_fields_in_structure():
    layer = Linear(W=1, b=2, activation="tanh")
    leaves, struct = tree.flatten(layer)
    assert leaves == [1, 2]
    back = tree.unflatten(struct, [10, 20])
    assert back == Linear(W=10, b=20, activation="tanh")
    assert type(back) is Linear


def test_static_fields_distinguish_structures():
    relu, tanh = Linear(1, 2, "relu"), Linear(1, 2, "tanh")
    assert tree.structure(relu) != tree.structure(tanh)
    assert tree.structure(relu) == tree.structure(Linear(5, 6, "relu"))
    assert hash(tree.structure(relu)) == hash(tree.structure(Linear(5, 6, "relu")))


def test_static_field_keeps_user_metadata():
    @attrs.frozen
    class Spec:
        n: int = tree.static_field(default=3, metadata={"doc": "size"})

    field = attrs.fields(Spec).n
    assert field.metadata["doc"] == "size"
    assert tree.leaves(Spec()) == []
    assert tree.unflatten(tree.structure(Spec(4)), []) == Spec(4)


def test_attrs_paths_use_field_names():
    assert tree.flatten_with_paths({"l1": Linear(1, 2)}) == [(("l1", "W"), 1), (("l1", "b"), 2)]


def test_attrs_mutable_class_is_a_node_too():
    @attrs.define
    class State:
        count: int
        total: float = 0.0

    assert tree.leaves(State(1, 2.5)) == [1, 2.5]
    assert roundtrip(State(1, 2.5)) == State(1, 2.5)


# -- register_node ------------------------------------------------------------------------------


def test_register_node_custom_class():
    b = Box([1, 2], "t")
    leaves, struct = tree.flatten(b)
    assert leaves == [1, 2]
    assert tree.unflatten(struct, [3, 4]) == Box([3, 4], "t")
    assert tree.structure(Box(1, "t")) != tree.structure(Box(1, "u"))
    assert tree.flatten_with_paths({"box": b}) == [(("box", "value", 0), 1), (("box", "value", 1), 2)]
    assert tree.map(lambda x: x * 10, b) == Box([10, 20], "t")


def test_register_node_default_keys_are_indices():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    tree.register_node(Pair, lambda p: ([p.a, p.b], None), lambda aux, c: Pair(*c))
    assert tree.flatten_with_paths(Pair(1, [2])) == [((0,), 1), ((1, 0), 2)]
    assert tree.path_str(tree.flatten_with_paths(Pair(1, [2]))[1][0]) == "1/0"


# -- map, paths ---------------------------------------------------------------------------------


def test_map_over_several_trees():
    a = {"x": 1, "y": (2, 3)}
    b = {"x": 10, "y": (20, 30)}
    c = {"x": 100, "y": (200, 300)}
    assert tree.map(lambda p, q, r: p + q + r, a, b, c) == {"x": 111, "y": (222, 333)}


def test_map_keeps_none_and_empty_nodes():
    assert tree.map(lambda x: x + 1, [None, {}, (), 1]) == [None, {}, (), 2]


def test_map_with_is_leaf_treats_none_as_a_leaf():
    out = tree.map(lambda x, t: x if t is None else x + t, [1, 2], [None, 5], is_leaf=lambda v: v is None)
    assert out == [1, 7]


def test_flatten_with_paths_and_path_str():
    params = {"l2": {"W": 3, "b": 4}, "l1": {"W": 1, "b": 2}, "seq": [Point(5, 6)]}
    pairs = tree.flatten_with_paths(params)
    assert [tree.path_str(p) for p, _ in pairs] == ["l1/W", "l1/b", "l2/W", "l2/b", "seq/0/x", "seq/0/y"]
    assert [leaf for _, leaf in pairs] == tree.leaves(params)
    assert tree.path_str(("l1", "W")) == "l1/W"
    assert tree.path_str(()) == ""


def test_map_with_paths():
    params = {"l1": {"W": 1, "b": 2}, "l2": [3]}
    named = tree.map_with_paths(lambda p, x: f"{tree.path_str(p)}={x}", params)
    assert named == {"l1": {"W": "l1/W=1", "b": "l1/b=2"}, "l2": ["l2/0=3"]}
    summed = tree.map_with_paths(lambda p, x, y: (tree.path_str(p), x + y), params, params)
    assert summed["l1"]["b"] == ("l1/b", 4)


def test_all_equal_structure():
    assert tree.all_equal_structure([1, 2], [3, 4], [5, 6])
    assert not tree.all_equal_structure([1, 2], [3, 4], (5, 6))


# -- mismatches name the first differing path ---------------------------------------------------


def test_map_mismatch_names_first_differing_path():
    a = {"l1": {"W": 1, "b": 2}, "l2": {"W": 3}}
    b = {"l1": {"W": 1, "b": (2, 3)}, "l2": {"W": 3, "x": 4}}
    with pytest.raises(TreeStructureError) as info:
        tree.map(lambda x, y: x, a, b)
    assert str(info.value) == (
        "tree.map: tree structures differ at 'l1/b'\n"
        "  tree: a leaf (int)\n"
        "  rest[0]: a tuple of length 2\n"
        "  hint: the trees must have the same nesting, dict keys and sequence lengths"
    )


def test_map_mismatch_of_dict_keys():
    with pytest.raises(TreeStructureError, match="differ at 'l1'") as info:
        tree.map(lambda x, y: x, {"l1": {"W": 1, "b": 2}}, {"l1": {"W": 1, "c": 2}})
    assert "tree: a dict with keys ['W', 'b']" in str(info.value)
    assert "rest[0]: a dict with keys ['W', 'c']" in str(info.value)


def test_map_mismatch_at_the_root_and_in_later_trees():
    with pytest.raises(TreeStructureError, match="differ at the root") as info:
        tree.map(lambda x, y: x, [1, 2], (1, 2))
    assert "a list of length 2" in str(info.value) and "a tuple of length 2" in str(info.value)
    with pytest.raises(TreeStructureError, match=r"differ at '1'(.|\n)*rest\[1\]: a list of length 3"):
        tree.map(lambda x, y, z: x, [1, [2]], [1, [2]], [1, [2, 3, 4]])


def test_map_mismatch_of_static_fields_shows_them():
    with pytest.raises(TreeStructureError) as info:
        tree.map(lambda x, y: x, {"l1": Linear(1, 2, "relu")}, {"l1": Linear(1, 2, "tanh")})
    text = str(info.value)
    assert "differ at 'l1'" in text
    assert "a Linear node with static fields activation='relu'" in text
    assert "a Linear node with static fields activation='tanh'" in text


def test_map_mismatch_respects_is_leaf():
    def tagged(x):
        return isinstance(x, list) and bool(x) and x[0] == "leaf"

    with pytest.raises(TreeStructureError) as info:
        tree.map(lambda x, y: x, [["leaf", 1]], [["node", 1]], is_leaf=tagged)
    assert "differ at '0'" in str(info.value)
    assert "tree: a leaf (list)" in str(info.value) and "rest[0]: a list of length 2" in str(info.value)


def test_mismatch_is_a_value_error():
    with pytest.raises(ValueError):
        tree.map(lambda x, y: x, [1], [1, 2])


# -- property: random nested structures round-trip ----------------------------------------------

_leaf = st.one_of(st.integers(), st.floats(allow_nan=False), st.text(max_size=3))
_keys = st.text(alphabet="abcdefgh", min_size=1, max_size=3)
_trees = st.recursive(
    st.one_of(_leaf, st.none()),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(_keys, children, max_size=4),
        st.tuples(children, children).map(lambda xy: Point(*xy)),
        st.tuples(children, children, st.sampled_from(["relu", "tanh"])).map(lambda t: Linear(*t)),
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(_trees)
def test_property_flatten_unflatten_roundtrip(t):
    leaves, struct = tree.flatten(t)
    assert tree.unflatten(struct, leaves) == t
    # rebuilding from other leaves keeps the structure and puts each leaf at its path
    numbered = tree.unflatten(struct, range(len(leaves)))
    assert tree.structure(numbered) == struct
    assert hash(tree.structure(numbered)) == hash(struct)
    assert tree.leaves(numbered) == list(range(len(leaves)))
    assert [p for p, _ in tree.flatten_with_paths(numbered)] == [p for p, _ in tree.flatten_with_paths(t)]
    assert tree.map(lambda x: x, t) == t


def test_dict_keys_of_mixed_types_raise_a_clear_error():
    with pytest.raises(TreeStructureError, match="dict keys must be mutually orderable"):
        tree.flatten({1: 0, "a": 0})


def test_summary_lists_paths_and_avals_then_the_totals():
    import numpy

    import fnet

    params = {
        "predictor": {
            "l1": {"W": numpy.zeros((512, 784), numpy.float32), "b": numpy.zeros(512, numpy.float32)}
        },
        "scale": numpy.float64(2.0),
        "steps": 3,
        "extra": None,
    }
    assert tree.summary(params).splitlines() == [
        "predictor/l1/W  float32[512, 784]",
        "predictor/l1/b  float32[512]",
        "scale           float64[]",
        "steps           int 3",  # not an array: shown, not counted
        "total: 401,921 parameters (1.5 MiB)",
    ]
    assert tree.summary(numpy.zeros(1, numpy.int8)) == "(root)  int8[1]\ntotal: 1 parameter (1 B)"
    assert tree.summary({}) == "total: 0 parameters (0 B)"
    assert (
        tree.summary([numpy.zeros(300, numpy.float32)]).splitlines()[-1] == "total: 300 parameters (1.2 KiB)"
    )

    seen = []

    def f(w):
        seen.append(tree.summary({"w": w}))  # a traced leaf shows its value's aval
        return fnet.ops.sum(w)

    fnet.grad(f)(numpy.ones((2, 3), numpy.float32))
    assert seen == ["w  float32[2, 3]\ntotal: 6 parameters (24 B)"]
