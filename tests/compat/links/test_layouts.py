"""Every link saves the keys, shapes and dtypes Chainer 7.8.1 saves (its npz layout), before and
after the first call of the links that size themselves then, and takes Chainer's constructor
arguments (tests/golden/make_links_names.py)."""

import inspect
import json
import pathlib

import numpy
import pytest

import fnet.compat.links as L
from fnet.compat.serializers import DictionarySerializer

HERE = pathlib.Path(__file__).parents[2] / "golden"
GOLDEN = json.loads((HERE / "links_names.json").read_text())
SIGNATURES = json.loads((HERE / "links_signatures.json").read_text())
# the pretrained convnets' layouts are in their own golden (tests/golden/make_vision.py)
VISION = json.loads((HERE / "vision_layouts.json").read_text())["layouts"]
# Keywords Chainer parses out of **kwargs; here they are named keyword-only parameters.
KWARGS_AS_KEYWORDS = {"dilate", "groups", "conv_init", "bias_init"}
NAMESPACE = {
    "L": L,
    "numpy": numpy,
    "x": lambda *shape: numpy.ones(shape, numpy.float32),
    "ids": lambda *shape: numpy.zeros(shape, numpy.int32),
}


def layout(link) -> dict:
    """The keys a serializer writes, each ``[shape, dtype]`` or None (uninitialized), as the golden."""
    serializer = DictionarySerializer()
    serializer.save(link)
    result = {}
    for key, value in sorted(serializer.target.items()):
        value = numpy.asarray(value)
        result[key] = None if value.dtype == object else [list(value.shape), str(value.dtype)]
    return result


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_layout_is_chainers(case):
    entry = GOLDEN[case]
    link = eval(entry["make"], NAMESPACE)
    assert layout(link) == entry["before"]
    if entry["call"] is not None:
        eval(entry["call"], {**NAMESPACE, "link": link})
        assert layout(link) == entry["after"]


def test_namedparams_are_the_layouts_parameters():
    link = L.InceptionBN(3, 2, 2, 2, 2, 2, "max", proj_pool=2)
    names = {path.lstrip("/") for path, _ in link.namedparams()}
    persistents = {
        key
        for key in GOLDEN["inception_bn"]["before"]
        if key.rsplit("/", 1)[-1] in ("N", "avg_mean", "avg_var")
    }
    assert names == set(GOLDEN["inception_bn"]["before"]) - persistents


# Links kept at Chainer's paths only to say that they cannot work here (no case can make one)
UNSUPPORTED = {"TheanoFunction"}  # Theano does not install on Python 3.11+


def test_every_link_of_the_checklist_is_exported_and_has_a_case():
    made = {entry["make"].split("(")[0].removeprefix("L.") for entry in GOLDEN.values()}
    made |= set(VISION) | {"ResNetLayers"}  # ResNetLayers: the base of ResNet50Layers, its layout
    assert made <= set(L.__all__)
    assert {name for name in L.__all__ if name[0].isupper()} - UNSUPPORTED == made


def signature(cls) -> list:
    """The golden's rows for ``cls``'s constructor, without ``*args``/``**kwargs`` and the
    keywords Chainer reads from them."""
    rows = []
    for param in inspect.signature(cls).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if param.kind is param.KEYWORD_ONLY and param.name in KWARGS_AS_KEYWORDS:
            continue
        default = param.default
        if default is param.empty:
            default = None
        elif callable(default) and hasattr(default, "__name__"):
            default = default.__name__
        else:
            default = repr(default)
        rows.append([param.name, param.kind.name, default])
    return rows


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_constructor_arguments_are_chainers(name):
    expected = [row for row in SIGNATURES[name] if row[1] not in ("VAR_POSITIONAL", "VAR_KEYWORD")]
    assert signature(getattr(L, name)) == expected


@pytest.mark.parametrize(
    "make, keyword",
    [
        (lambda **kw: L.Convolution2D(1, 2, 3, **kw), "deterministic"),
        (lambda **kw: L.Deconvolution2D(1, 2, 3, **kw), "deterministic"),
        (lambda **kw: L.NStepLSTM(1, 2, 3, 0.0, **kw), "use_cudnn"),
        (lambda **kw: L.NStepGRU(1, 2, 3, 0.0, **kw), "use_bi_direction"),
        (lambda **kw: L.StatefulZoneoutLSTM(2, 3, **kw), "train"),
    ],
)
def test_chainer_v1_keywords_are_refused_with_chainers_message(make, keyword):
    with pytest.raises(ValueError, match=f"{keyword}.* is not supported anymore"):
        make(**{keyword: True})
    with pytest.raises(TypeError):
        make(unknown_keyword=True)
