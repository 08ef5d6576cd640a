"""'MNIST using Trainer' (Neural Net Examples): its samples in the seed's order (``SAMPLES``),
run after the guides' import block."""

# ruff: noqa: E501 - the extensions sample's lines are kept as long as the seed prints them

DATASET = """\
from chainer.datasets import mnist

train, test = mnist.get_mnist()
"""

ITERATORS = """\
batchsize = 128

train_iter = iterators.SerialIterator(train, batchsize)
test_iter = iterators.SerialIterator(test, batchsize, False, False)
"""

MODEL = """\
class MLP(Chain):

    def __init__(self, n_mid_units=100, n_out=10):
        super(MLP, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_mid_units)
            self.l2 = L.Linear(None, n_mid_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)

gpu_id = 0  # Set to -1 if you use CPU

model = MLP()
if gpu_id >= 0:
    model.to_gpu(gpu_id)
"""

UPDATER = """\
max_epoch = 10

# Wrap your model by Classifier and include the process of loss calculation within your model.
# Since we do not specify a loss function here, the default 'softmax_cross_entropy' is used.
model = L.Classifier(model)

# selection of your optimizing method
optimizer = optimizers.MomentumSGD()

# Give the optimizer a reference to the model
optimizer.setup(model)

# Get an updater that uses the Iterator and Optimizer
updater = training.updaters.StandardUpdater(train_iter, optimizer, device=gpu_id)
"""

TRAINER = """\
# Setup a Trainer
trainer = training.Trainer(updater, (max_epoch, 'epoch'), out='mnist_result')
"""

EXTENSIONS = """\
from chainer.training import extensions

trainer.extend(extensions.LogReport())
trainer.extend(extensions.snapshot(filename='snapshot_epoch-{.updater.epoch}'))
trainer.extend(extensions.snapshot_object(model.predictor, filename='model_epoch-{.updater.epoch}'))
trainer.extend(extensions.Evaluator(test_iter, model, device=gpu_id))
trainer.extend(extensions.PrintReport(['epoch', 'main/loss', 'main/accuracy', 'validation/main/loss', 'validation/main/accuracy', 'elapsed_time']))
trainer.extend(extensions.PlotReport(['main/loss', 'validation/main/loss'], x_key='epoch', file_name='loss.png'))
trainer.extend(extensions.PlotReport(['main/accuracy', 'validation/main/accuracy'], x_key='epoch', file_name='accuracy.png'))
trainer.extend(extensions.DumpGraph('main/loss'))
"""

RUN = """\
trainer.run()
"""

EVALUATE = """\
import matplotlib.pyplot as plt

model = MLP()
serializers.load_npz('mnist_result/model_epoch-10', model)

# Show the output
x, t = test[0]
plt.imshow(x.reshape(28, 28), cmap='gray')
plt.show()
print('label:', t)

y = model(x[None, ...])

print('predicted_label:', y.array.argmax(axis=1)[0])
"""

SAMPLES = (DATASET, ITERATORS, MODEL, UPDATER, TRAINER, EXTENSIONS, RUN, EVALUATE)

PRINT_HEADER = (
    "epoch",
    "main/loss",
    "main/accuracy",
    "validation/main/loss",
    "validation/main/accuracy",
    "elapsed_time",
)
EVALUATE_OUTPUT = "label: 7\npredicted_label: 7\n"

# The resume idiom of the seed's Trainer examples (the PTB and word2vec examples end with it),
# and the progress bar that the MNIST example adds before it.
PROGRESS_BAR = """\
trainer.extend(extensions.ProgressBar())
"""

RESUME = """\
if args.resume is not None:
    chainer.serializers.load_npz(args.resume, trainer)
"""
