"""Chainer's module tree outside ``chainer.functions``: one table per package, declared through
:mod:`fnet.compat._modules`.

Each table maps a Chainer module (relative to its package) to the names it holds; the names are
read from the fnet.compat module that keeps them (the package itself, unless a row says
otherwise as ``"module:Name"``). ``install()`` declares every row and lets the real modules above
them (``fnet.compat.links.connection``, ``fnet.compat.optimizers``...) reach them as attributes.
"""

from __future__ import annotations

import importlib
import importlib.util

from . import _modules

__all__ = ["TABLES", "install"]

# package (under fnet.compat) -> {Chainer module under that package: "Name ..." }
TABLES: dict[str, dict[str, str]] = {
    "": {
        "function": (
            "function_node:Function function_node:FunctionAdapter function_hooks:FunctionHook "
            "variable:no_backprop_mode variable:force_backprop_mode"
        ),
        "initializer": "initializers:Initializer initializers:get_fans",
        "link_hook": "link_hooks.link_hook:LinkHook",
        "_backend": "backend:Device",
        "_backprop": "variable:backward",
        "_runtime_info": "runtime_info:print_runtime_info runtime_info:_get_runtime_info",
    },
    "dataset": {
        "dataset_mixin": "DatasetMixin",
        "iterator": "Iterator",
    },
    "dataset.tabular": {
        "delegate_dataset": "DelegateDataset",
        "tabular_dataset": "dataset:TabularDataset",
    },
    "initializers": {
        "constant": "Constant Identity NaN One Zero",
        "normal": "GlorotNormal HeNormal LeCunNormal Normal",
        "orthogonal": "Orthogonal",
        "sampling": "DownsamplingConvFilter UpsamplingDeconvFilter",
        "uniform": "GlorotUniform HeUniform LeCunUniform Uniform",
    },
    "links": {
        "activation.maxout": "Maxout",
        "activation.prelu": "PReLU",
        "activation.simplified_dropconnect": "SimplifiedDropconnect",
        "activation.swish": "Swish",
        "connection.bias": "Bias",
        "connection.bilinear": "Bilinear",
        "connection.convolution_2d": "Convolution2D",
        "connection.convolution_nd": "Convolution1D Convolution3D ConvolutionND",
        "connection.deconvolution_2d": "Deconvolution2D",
        "connection.deconvolution_nd": "Deconvolution1D Deconvolution3D DeconvolutionND",
        "connection.deformable_convolution_2d": (
            "DeformableConvolution2D links.connection:DeformableConvolution2DSampler"
        ),
        "connection.depthwise_convolution_2d": "DepthwiseConvolution2D",
        "connection.dilated_convolution_2d": "DilatedConvolution2D",
        "connection.embed_id": "EmbedID",
        "connection.highway": "Highway",
        "connection.inception": "Inception",
        "connection.inceptionbn": "InceptionBN",
        "connection.linear": "Linear",
        "connection.local_convolution_2d": "LocalConvolution2D",
        "connection.mlp_convolution_2d": "MLPConvolution2D",
        "connection.parameter": "Parameter",
        "connection.scale": "Scale",
        "loss.black_out": "BlackOut",
        "loss.crf1d": "CRF1d",
        "loss.hierarchical_softmax": "BinaryHierarchicalSoftmax",
        "loss.negative_sampling": "NegativeSampling",
        "model.classifier": "Classifier",
        "model.vision.googlenet": (
            "links.vision.googlenet:GoogLeNet links.vision.googlenet:prepare links.vision.googlenet:available"
        ),
        "model.vision.resnet": (
            "links.vision.resnet:ResNetLayers links.vision.resnet:ResNet50Layers "
            "links.vision.resnet:ResNet101Layers links.vision.resnet:ResNet152Layers "
            "links.vision.resnet:BuildingBlock links.vision.resnet:BottleneckA "
            "links.vision.resnet:BottleneckB links.vision.resnet:prepare links.vision.resnet:available"
        ),
        "model.vision.vgg": (
            "links.vision.vgg:VGGLayers links.vision.vgg:VGG16Layers links.vision.vgg:VGG19Layers "
            "links.vision.vgg:prepare links.vision.vgg:available"
        ),
        "normalization.batch_normalization": "BatchNormalization",
        "normalization.batch_renormalization": "BatchRenormalization",
        "normalization.decorrelated_batch_normalization": (
            "DecorrelatedBatchNormalization links.normalization:fix_avg_mean "
            "links.normalization:fix_avg_projection"
        ),
        "normalization.group_normalization": "GroupNormalization",
        "normalization.layer_normalization": "LayerNormalization",
        "rnn.gru": "GRU StatefulGRU StatelessGRU links.rnn:GRUBase",
        "rnn.lstm": "LSTM StatelessLSTM links.rnn:LSTMBase",
        "rnn.mgu": "StatefulMGU StatelessMGU links.rnn:MGUBase",
        "rnn.n_step_gru": "NStepBiGRU NStepGRU links.rnn:NStepGRUBase",
        "rnn.n_step_lstm": "NStepBiLSTM NStepLSTM links.rnn:NStepLSTMBase",
        "rnn.n_step_rnn": (
            "NStepBiRNNReLU NStepBiRNNTanh NStepRNNReLU NStepRNNTanh links.rnn:NStepRNNBase "
            "links.rnn:argsort_list_descent links.rnn:permutate_list"
        ),
        "rnn.peephole": "StatefulPeepholeLSTM",
        "rnn.tree_lstm": "ChildSumTreeLSTM NaryTreeLSTM",
        "rnn.zoneoutlstm": "StatefulZoneoutLSTM",
        "theano.theano_function": "TheanoFunction",
    },
    "optimizers": {
        "ada_delta": "AdaDelta AdaDeltaRule",
        "ada_grad": "AdaGrad AdaGradRule",
        "adam": "Adam AdamRule AdamW AMSGrad AdaBound AMSBound",
        "corrected_momentum_sgd": "CorrectedMomentumSGD CorrectedMomentumSGDRule",
        "momentum_sgd": "MomentumSGD MomentumSGDRule",
        "msvag": "MSVAG MSVAGRule",
        "nesterov_ag": "NesterovAG NesterovAGRule",
        "rmsprop": "RMSprop RMSpropRule",
        "rmsprop_graves": "RMSpropGraves RMSpropGravesRule",
        "sgd": "SGD SGDRule",
        "smorms3": "SMORMS3 SMORMS3Rule",
    },
    "optimizer_hooks": {
        "gradient_clipping": "GradientClipping",
        "gradient_hard_clipping": "GradientHardClipping",
        "gradient_lars": "GradientLARS",
        "gradient_noise": "GradientNoise exponential_decay_noise",
        "lasso": "Lasso",
        "weight_decay": "WeightDecay",
    },
    "distributions": {
        "bernoulli": "Bernoulli _bernoulli_log_prob",
        "beta": "Beta",
        "categorical": "Categorical",
        "cauchy": "Cauchy",
        "chisquare": "Chisquare",
        "dirichlet": "Dirichlet",
        "exponential": "Exponential",
        "gamma": "Gamma",
        "geometric": "Geometric",
        "gumbel": "Gumbel",
        "independent": "Independent",
        "laplace": "Laplace _laplace_cdf _laplace_icdf",
        "log_normal": "LogNormal",
        "multivariate_normal": "MultivariateNormal _triangular_inv",
        "normal": "Normal",
        "one_hot_categorical": "OneHotCategorical",
        "pareto": "Pareto",
        "poisson": "Poisson",
        "uniform": "Uniform",
        "utils": "_modified_xlogx",
    },
    "function_hooks": {
        "cuda_profile": "CUDAProfileHook",
        "cupy_memory_profile": "CupyMemoryProfileHook",
        "debug_print": "PrintHook",
        "timer": "TimerHook",
    },
    "iterators": {
        "multiprocess_iterator": "MultiprocessIterator",
        "multithread_iterator": "MultithreadIterator",
        "order_samplers": "OrderSampler ShuffleOrderSampler",
        "serial_iterator": "SerialIterator",
    },
    "training": {
        "_updater": "Updater",
    },
    "training.extensions": {
        "util": "training._progress:ProgressBar",
        "_snapshot": (
            "snapshot snapshot_object _find_snapshot_files _find_latest_snapshot _find_stale_snapshots"
        ),
    },
    "training.triggers": {
        "early_stopping_trigger": "EarlyStoppingTrigger",
        "interval_trigger": "IntervalTrigger",
        "manual_schedule_trigger": "ManualScheduleTrigger",
        "minmax_value_trigger": "BestValueTrigger MaxValueTrigger MinValueTrigger",
        "once_trigger": "OnceTrigger",
        "time_trigger": "TimeTrigger",
    },
    "training.updaters": {
        "multiprocess_parallel_updater": (
            "MultiprocessParallelUpdater training._gather:gather_grads training._gather:gather_params "
            "training._gather:scatter_grads training._gather:scatter_params training._gather:size_num_grads"
        ),
        "parallel_updater": "ParallelUpdater",
        "standard_updater": "StandardUpdater",
    },
    "utils": {
        "_collections": "collections:OrderedDict",
        "array": "size_of_shape sum_to",
        "walker_alias": "WalkerAlias",
    },
}

_ROOT = "fnet.compat"


def _absolute(name: str) -> str:
    return f"{_ROOT}.{name}" if name else _ROOT


def _contents(package: str, names: str):
    """The ``contents`` of a declaration: ``names`` (``Name`` in ``package``, or ``module:Name``)
    read from their modules when the declared module is first imported."""
    entries = [entry.rpartition(":") for entry in names.split()]

    def contents() -> dict[str, object]:
        found = {}
        for source, _, name in entries:
            where = source if source in _STANDARD else _absolute(source if source else package)
            found[name] = getattr(importlib.import_module(where), name)
        return found

    return contents


_STANDARD = {"collections"}  # standard-library modules a row may name
_adopted: set[str] = set()


def install() -> None:
    """Declare every module of ``TABLES``, and let each real module above one of them (a file of
    fnet.compat, e.g. ``links/connection.py``) reach it as an attribute and import it."""
    for package, rows in TABLES.items():
        for module, names in rows.items():
            full = f"{_absolute(package)}.{module}"
            _modules.declare(full, _contents(package, names))
            parts = full.split(".")
            for cut in range(2, len(parts)):
                above = ".".join(parts[:cut])
                if above in _adopted:
                    continue
                spec = importlib.util.find_spec(above)
                if spec is None or spec.origin is None:
                    break  # declared from here down
                real = importlib.import_module(above)
                _modules.adopt(vars(real))
                _adopted.add(above)
