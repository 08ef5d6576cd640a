"""'Creating Models', 'Optimizer' and 'Serializers -- saving and loading' (doctests)."""

# --- Creating Models --------------------------------------------------------------------------

LINKS_AND_FUNCTION = """
>>> l1 = L.Linear(4, 3)
>>> l2 = L.Linear(3, 2)

>>> def my_forward(x):
...     h = l1(x)
...     return l2(h)
"""

MY_PROC = """
>>> class MyProc(object):
...     def __init__(self):
...         self.l1 = L.Linear(4, 3)
...         self.l2 = L.Linear(3, 2)
...
...     def forward(self, x):
...         h = self.l1(x)
...         return self.l2(h)
"""

# Also the first sample of the 'Optimizer' guide.
MY_CHAIN = """
>>> class MyChain(Chain):
...     def __init__(self):
...         super(MyChain, self).__init__()
...         with self.init_scope():
...             self.l1 = L.Linear(4, 3)
...             self.l2 = L.Linear(3, 2)
...
...     def forward(self, x):
...         h = self.l1(x)
...         return self.l2(h)
"""

MY_CHAIN2 = """
>>> class MyChain2(ChainList):
...     def __init__(self):
...         super(MyChain2, self).__init__(
...             L.Linear(4, 3),
...             L.Linear(3, 2),
...         )
...
...     def forward(self, x):
...         h = self[0](x)
...         return self[1](h)
"""

# --- Optimizer --------------------------------------------------------------------------------

SETUP = """
>>> model = MyChain()
>>> optimizer = optimizers.SGD().setup(model)
"""

WEIGHT_DECAY = """
>>> optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(0.0005))
"""

UPDATE_MANUALLY = """
>>> x = np.random.uniform(-1, 1, (2, 4)).astype(np.float32)
>>> model.cleargrads()
>>> # compute gradient here...
>>> loss = F.sum(model(chainer.Variable(x)))
>>> loss.backward()
>>> optimizer.update()
"""

UPDATE_WITH_LOSSFUN = """
>>> def lossfun(arg1, arg2):
...     # calculate loss
...     loss = F.sum(model(arg1 - arg2))
...     return loss

>>> arg1 = np.random.uniform(-1, 1, (2, 4)).astype(np.float32)
>>> arg2 = np.random.uniform(-1, 1, (2, 4)).astype(np.float32)
>>> optimizer.update(lossfun, chainer.Variable(arg1), chainer.Variable(arg2))
"""

# --- Serializers -- saving and loading (``model`` and ``optimizer`` as defined above) ----------

SAVE_MODEL = """
>>> from chainer import serializers
>>> serializers.save_npz('my.model', model)
"""

LOAD_MODEL = """
>>> serializers.load_npz('my.model', model)
"""

SAVE_LOAD_OPTIMIZER = """
>>> serializers.save_npz('my.state', optimizer)
>>> serializers.load_npz('my.state', optimizer)
"""

SAVE_TRAINER = """
>>> serializers.save_npz('my.state', trainer)
"""
