"""The links of Chainer's pretrained convnets (``VGG16Layers``, ``ResNet50Layers``,
``GoogLeNet``...): a ``SpecLink`` around a ``fnet.nn.vision`` model, with Chainer's
``pretrained_model`` argument, ``functions``, ``available_layers``, ``extract`` and ``predict``.

The computation is the pure model's ``extract``; ``functions`` shows its stages as Chainer's
links do (child links and Chainer functions), for programs that read it.
"""

from __future__ import annotations

import collections
import functools
import os
from typing import Any, ClassVar

import numpy

from .... import functions as _pure
from .... import random
from ....data.convert import concat_examples
from ....data.download import DatasetCacheError, get_dataset_directory
from ....errors import message
from ....io import save_npz
from ....nn.vision import Dropout, FeatureExtractor
from ....nn.vision import prepare as _prepare
from ... import configuration
from ...functions import dropout, lift, wrap
from ...functions._lift import LIFTED
from ...link import Chain
from ...serializers import load_npz
from ...variable import Variable, no_backprop_mode
from .._adapter import SpecLink, _as_persistents, parse_kwargs

__all__ = ["PretrainedLayers", "prepare_for", "models_directory", "read_caffemodel"]

_RETIRED = "argument is not supported anymore. Use chainer.using_config"


def models_directory() -> str:
    """Chainer's cache of converted models, ``$CHAINER_DATASET_ROOT/pfnet/chainer/models``."""
    return get_dataset_directory("pfnet/chainer/models/")


def prepare_for(model: type[FeatureExtractor], image, size=(224, 224)) -> numpy.ndarray:
    """``image`` prepared for ``model`` (its mean pixel), in ``config.dtype``."""
    return _prepare(image, size, mean=model.mean_bgr, dtype=configuration.get_dtype())


def read_caffemodel(path: str):
    """The Caffe model at ``path`` as Chainer's ``CaffeFunction`` reads it (needs ``protobuf``,
    an optional dependency: imported here, as Chainer does)."""
    from ..caffe.caffe_function import CaffeFunction

    return CaffeFunction(path)


def _caffe_reader(path: str):
    """``read(layer, entry)``: the array at ``entry`` (``"W"``, ``"bias/b"``) of the Caffe
    model's ``layer``."""
    caffe = read_caffemodel(path)

    def read(layer: str, entry: str):
        node = getattr(caffe, layer)
        for name in entry.split("/"):
            node = getattr(node, name)
        return getattr(node, "array", node)

    return read


def _merged(params: dict, state: dict) -> dict:
    """One tree of the params and the state (Chainer's npz holds both under the same keys)."""
    out = dict(params)
    for name, value in state.items():
        out[name] = _merged(out.get(name, {}), value) if isinstance(value, dict) else value
    return out


@functools.cache
def _chainer_step(step):
    """A pure model's step as Chainer's ``functions`` lists it: a Chainer function."""
    if isinstance(step, Dropout):
        return functools.partial(dropout, ratio=step.ratio)
    name = getattr(step, "__name__", "")
    if getattr(_pure, name, None) is step and name in LIFTED:
        return LIFTED[name]
    return lift(step)


class PretrainedLayers(SpecLink, Chain):
    """A pretrained convnet link around the pure model ``spec``.

    ``pretrained_model``: ``'auto'`` loads Chainer's converted file ``npz_name`` from
    ``models_directory()`` (an error says where the original comes from and how to convert it
    when it is not there: nothing is downloaded); a path loads that npz file; None (or ``''``)
    keeps the random initialization of the paper.
    """

    # set by each model: the default layers of extract, the keywords forward and extract retire
    extract_layers: ClassVar[tuple[str, ...]] = ("pool5",)
    _retired_forward: ClassVar[tuple[str, ...]] = ("test",)
    _retired_extract: ClassVar[tuple[str, ...]] = ("test", "volatile")
    _pure_model: ClassVar[type[FeatureExtractor]] = FeatureExtractor

    def __init__(
        self, spec: FeatureExtractor, pretrained_model: Any = "auto", *, npz_name: str = "", url: str = ""
    ):
        SpecLink.__init__(self, spec)
        if pretrained_model == "auto":
            self._load_cached(npz_name, url)
        elif pretrained_model:
            load_npz(pretrained_model, self)

    def _load_cached(self, npz_name: str, url: str) -> None:
        """Load ``npz_name`` from Chainer's model cache, or explain how to make it from the
        original, found at ``url``."""
        path = os.path.join(models_directory(), npz_name)
        if not os.path.exists(path):
            caffemodel = self._caffemodel_name(url)
            raise DatasetCacheError(
                message(
                    type(self).__name__,
                    f"expected the converted model {path} (pretrained_model='auto'), got no such file",
                    hint=(
                        f"fnet downloads nothing: get {caffemodel} from {url}, then convert it once with\n"
                        f'    python -c "import fnet.compat.links as L; L.{type(self).__name__}'
                        f".convert_caffemodel_to_npz('{caffemodel}', '{path}')\"\n"
                        "  or copy that file from a Chainer cache; pretrained_model=None gives a random model"
                    ),
                )
            )
        load_npz(path, self)

    def _caffemodel_name(self, url: str) -> str:
        """The file name of the original Caffe model."""
        return os.path.basename(url)

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel, path_npz, **kwargs) -> None:
        """Convert the original Caffe model (read by ``CaffeFunction``) to the npz file that
        ``pretrained_model`` loads; ``kwargs`` are the model's (ResNet's ``n_layers``)."""
        model = cls._pretrained_model(**kwargs)
        params, state = model.from_caffe(
            model.init(random.key(0)), model.init_state(), _caffe_reader(path_caffemodel)
        )
        save_npz(path_npz, _merged(params, state), compression=False)

    @classmethod
    def _pretrained_model(cls, **kwargs) -> FeatureExtractor:
        """The pure model that a pretrained link holds (drawn with zeros: it is overwritten)."""
        raise TypeError(f"{cls.__name__} defines no _pretrained_model()")

    # -- what Chainer's link shows ------------------------------------------------------------
    @property
    def functions(self) -> collections.OrderedDict:
        """The stages by name, each the list of its child links and Chainer functions."""
        return collections.OrderedDict(
            (stage.name, [getattr(self, s) if isinstance(s, str) else _chainer_step(s) for s in stage.steps])
            for stage in self._spec.stages()
        )

    @property
    def available_layers(self) -> list[str]:
        """The layer names ``forward`` and ``extract`` accept, in order."""
        return self._spec.available_layers

    # -- computing ----------------------------------------------------------------------------
    def forward(self, x, layers=None, **kwargs) -> dict:
        """The activations of ``layers`` (default ``['prob']``) on ``x``, a dict of Variables.

        Dropout and batch normalization follow ``config.train``; in training the running
        statistics are updated, as Chainer's links do."""
        parse_kwargs(type(self).__name__, kwargs, {}, {k: f"{k} {_RETIRED}" for k in self._retired_forward})
        layers = ["prob"] if layers is None else list(layers)
        if not self._spec.stateful:
            found = self._apply("extract", x, layers)
        else:
            found, state = self._apply("extract", x, layers, self.state_tree())
            if configuration.config.train and not configuration.config.in_recomputing:
                self.set_state_tree(_as_persistents(state))
        return {name: wrap(value) for name, value in found.items()}

    def extract(self, images, layers=None, size=(224, 224), **kwargs) -> dict:
        """``forward`` on the ``images`` (PIL images or arrays) prepared at ``size``."""
        parse_kwargs(type(self).__name__, kwargs, {}, {k: f"{k} {_RETIRED}" for k in self._retired_extract})
        layers = list(self.extract_layers) if layers is None else layers
        x = concat_examples([prepare_for(self._pure_model, image, size) for image in images])
        return self(Variable(self.xp.asarray(x)), layers=layers)

    def predict(self, images, oversample: bool = True) -> Variable:
        """The class probabilities of ``images``, averaged over ten crops (``oversample``) or of
        the center crop, in inference mode without a graph."""
        x = concat_examples([prepare_for(self._pure_model, image, (256, 256)) for image in images])
        with no_backprop_mode(), configuration.using_config("train", False):
            args = (self.state_tree(),) if self._spec.stateful else ()
            return self._apply("predict", self.xp.asarray(x), *args, oversample=oversample)
