"""Data-parallel training with fnet.distributed: the digits MLP on several MPI ranks.

Every rank holds the whole model; rank 0 loads the digits and sends each rank its shard
(``scatter_dataset``), every rank starts from rank 0's parameters (``comm.bcast``), and each
step averages the ranks' gradients with one packed allreduce before the same Adam update
(``distributed.make_train_step``). The parameters therefore stay identical on every rank, which
the script checks with a hash at the end (and after every step with ``--check``).

    mpiexec -n 2 python examples/distributed_mlp/train.py [--epochs 20] [--batchsize 32] [--smoke]

The model and the data are those of ``examples/digits_mlp`` (scikit-learn's 8x8 digits).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import time

import numpy

import fnet
from fnet import distributed, nn, optim


def _digits_mlp():
    """The sibling example ``digits_mlp``, for its MLP and its digits loader."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "digits_mlp", "train.py")
    spec = importlib.util.spec_from_file_location("digits_mlp", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batchsize", type=int, default=32, help="examples per rank per step")
    parser.add_argument("--lr", type=float, default=0.005, help="Adam's step size alpha")
    parser.add_argument("--unit", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check", action="store_true", help="compare the ranks' parameters after every step")
    parser.add_argument("--smoke", action="store_true", help="two epochs, to check that it runs")
    args = parser.parse_args(argv)
    epochs = 2 if args.smoke else args.epochs

    distributed.abort_on_exception()  # one rank's error ends the job instead of hanging it
    comm = distributed.Communicator()
    digits = _digits_mlp()
    model = nn.Classifier(digits.MLP.of_sizes(64, args.unit, 10))

    train = test = params = None
    if comm.rank == 0:
        (x_train, t_train), test = digits.load_digits(args.seed)
        train = list(zip(x_train, t_train))
        params = model.init(fnet.random.key(args.seed))
    shard = distributed.scatter_dataset(train, comm, shuffle=True, seed=args.seed)
    x = numpy.stack([example[0] for example in shard])
    t = numpy.array([example[1] for example in shard], numpy.int32)
    params = comm.bcast(params)

    def loss_fn(params, state, batch):
        loss, metrics = model(params, *batch)
        return loss, (state, {"accuracy": metrics["accuracy"]})

    optimizer = optim.Adam(alpha=args.lr)
    step = distributed.make_train_step(loss_fn, optimizer, comm, check_params=args.check)
    opt_state = optimizer.init(params)
    shuffle_key = fnet.random.fold_in(fnet.random.key(args.seed), comm.rank)

    start = time.perf_counter()
    n_steps = 0
    for epoch in range(1, epochs + 1):
        order = fnet.random.permutation(fnet.random.fold_in(shuffle_key, epoch), len(x))
        # every rank's shard has the same length, so every rank takes the same number of steps
        for i in range(0, len(order) - args.batchsize + 1, args.batchsize):
            batch = order[i : i + args.batchsize]
            params, _, opt_state, metrics = step(params, None, opt_state, (x[batch], t[batch]))
            n_steps += 1
        if comm.rank == 0:
            accuracy = digits.test_accuracy(model, params, *test)
            print(
                f"epoch {epoch:3d}  loss {float(metrics['loss']):.4f}  test accuracy {accuracy:.4f}  "
                f"({time.perf_counter() - start:.1f} s)",
                flush=True,
            )
    digest = distributed.check_same_params(comm, params)
    result = {"steps": n_steps, "params_hash": digest}
    if comm.rank == 0:
        result["accuracy"] = digits.test_accuracy(model, params, *test)
        print(f"identical parameters on {comm.size} ranks: hash {digest}", flush=True)
        print(f"test accuracy {result['accuracy']:.4f}", flush=True)
    return result


if __name__ == "__main__":
    main()
