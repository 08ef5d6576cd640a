"""``chainer.links``: Chainer's links, each holding its parameters around a pure ``fnet.nn`` spec.

``import fnet.compat.links as L`` gives the names of ``chainer.links``; the modules are grouped
as Chainer's: ``connection``, ``activation``, ``normalization``, ``rnn`` (with ``peephole`` and
``tree_lstm``, links made of other links), ``loss``, ``model``, ``vision`` (the pretrained
convnets), and ``theano`` (Chainer's ``TheanoFunction``, which fnet does not support:
constructing one says so). The package's names are those the modules declare in their
``__all__`` (one list per module, not repeated here).
"""

from . import activation, connection, loss, model, normalization, peephole, rnn, theano, tree_lstm, vision

_MODULES = (connection, activation, normalization, rnn, peephole, tree_lstm, loss, model, vision, theano)

globals().update({name: getattr(module, name) for module in _MODULES for name in module.__all__})

__all__ = [module.__name__.rpartition(".")[2] for module in _MODULES] + [
    name for module in _MODULES for name in module.__all__
]
