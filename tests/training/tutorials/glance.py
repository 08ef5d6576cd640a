"""'Chainer at a Glance': the mushrooms classifier (examples/glance/glance.py), shown by the seed
in numbered pieces; here one constant per piece, in the seed's order (``SAMPLES``)."""

IMPORTS = """\
import chainer as ch
from chainer import datasets
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions

import numpy as np
"""

MATPLOTLIB = """\
import matplotlib
matplotlib.use('Agg')
"""

DATASET = """\
mushroomsfile = 'mushrooms.csv'
data_array = np.genfromtxt(
    mushroomsfile, delimiter=',', dtype=str, skip_header=1)
for col in range(data_array.shape[1]):
    data_array[:, col] = np.unique(data_array[:, col], return_inverse=True)[1]

X = data_array[:, 1:].astype(np.float32)
Y = data_array[:, 0].astype(np.int32)[:, None]
train, test = datasets.split_dataset_random(
    datasets.TupleDataset(X, Y), int(data_array.shape[0] * .7))
"""

ITERATORS = """\
train_iter = ch.iterators.SerialIterator(train, 100)
test_iter = ch.iterators.SerialIterator(
    test, 100, repeat=False, shuffle=False)
"""

NETWORK = """\
# Network definition
def MLP(n_units, n_out):
    layer = ch.Sequential(L.Linear(n_units), F.relu)
    model = layer.repeat(2)
    model.append(L.Linear(n_out))

    return model
"""

MODEL = """\
model = L.Classifier(
    MLP(44, 1), lossfun=F.sigmoid_cross_entropy, accfun=F.binary_accuracy)
"""

OPTIMIZER = """\
# Setup an optimizer
optimizer = ch.optimizers.SGD().setup(model)
"""

UPDATER = """\
# Create the updater, using the optimizer
updater = training.StandardUpdater(train_iter, optimizer, device=-1)
"""

TRAINER = """\
# Set up a trainer
trainer = training.Trainer(updater, (50, 'epoch'), out='result')
"""

EVALUATOR = """\
# Evaluate the model with the test dataset for each epoch
trainer.extend(extensions.Evaluator(test_iter, model, device=-1))
"""

DUMP_GRAPH = """\
# Dump a computational graph from 'loss' variable at the first iteration
# The "main" refers to the target link of the "main" optimizer.
trainer.extend(extensions.DumpGraph('main/loss'))
"""

SNAPSHOT = """\
trainer.extend(extensions.snapshot(), trigger=(20, 'epoch'))
"""

LOG_REPORT = """\
# Write a log of evaluation statistics for each epoch
trainer.extend(extensions.LogReport())
"""

PLOT_REPORT = """\
# Save two plot images to the result dir
trainer.extend(
    extensions.PlotReport(['main/loss', 'validation/main/loss'],
                          'epoch', file_name='loss.png'))
trainer.extend(
    extensions.PlotReport(
        ['main/accuracy', 'validation/main/accuracy'],
        'epoch', file_name='accuracy.png'))
"""

PRINT_REPORT = """\
# Print selected entries of the log to stdout
trainer.extend(extensions.PrintReport(
    ['epoch', 'main/loss', 'validation/main/loss',
     'main/accuracy', 'validation/main/accuracy', 'elapsed_time']))
"""

RUN = """\
#  Run the training
trainer.run()
"""

INFERENCE = """\
x, t = test[np.random.randint(len(test))]

predict = model.predictor(x[None]).array
predict = predict[0][0]

if predict >= 0:
    print('Predicted Poisonous, Actual ' + ['Edible', 'Poisonous'][t[0]])
else:
    print('Predicted Edible, Actual ' + ['Edible', 'Poisonous'][t[0]])
"""

SAMPLES = (
    IMPORTS,
    MATPLOTLIB,
    DATASET,
    ITERATORS,
    NETWORK,
    MODEL,
    OPTIMIZER,
    UPDATER,
    TRAINER,
    EVALUATOR,
    DUMP_GRAPH,
    SNAPSHOT,
    LOG_REPORT,
    PLOT_REPORT,
    PRINT_REPORT,
    RUN,
    INFERENCE,
)

# The seed's output: PrintReport's header (the columns as the sample lists them), one row per
# epoch, then the prediction line.
PRINT_HEADER = (
    "epoch",
    "main/loss",
    "validation/main/loss",
    "main/accuracy",
    "validation/main/accuracy",
    "elapsed_time",
)
