"""Chainer's side of the tutorial tests (tests/compat/test_tutorials.py), run with Chainer 7.8.1::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_tutorials.py

It runs the seeds' samples (tests/compat/tutorials) with the same harness under Chainer itself,
stops if a sample does not print what the seed says (even the weights drawn at random: after
``np.random.seed(0)`` Chainer draws the seed's values), and writes ``tutorials.json`` next to
this file with what the tests compare against:

- ``raises``: the exception type Chainer raises where a sample of the guides has a slip
  (a backward reading ``target_input_indexes`` as ``inputs``, a FunctionNode called like a
  function, three retained inputs unpacked where two were retained);
- ``unified_muladd_grads``: the gradients Chainer then gives in the guide's usage sample;
- ``new_parameter_grad_is_nan``: whether the gradient of the user-defined link's new parameter
  is all NaN before ``cleargrads`` (it is);
- ``model_keys``, ``optimizer``: the keys Chainer's ``save_npz`` writes for the Optimizer
  guide's model and optimizer, and the optimizer's ``t`` and ``epoch`` after its two updates;
- ``trainer_keys``: the keys of ``save_npz`` of a one-epoch Trainer of that model;
- ``check_type_forward_message``: the message of the InvalidType raised when the Type Checks
  guide's "typical type check example" is a Function's ``check_type_forward`` and the Function
  is called on a (3, 2) and a (3, 2, 2) float32 array.
"""

from __future__ import annotations

import json
import os
import pathlib
import sys
import tempfile

import chainer
import numpy

assert chainer.__version__ == "7.8.1", chainer.__version__

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.compat.tutorials import (  # noqa: E402
    concepts,
    functions,
    models,
    namespace,
    reporting,
    run_code,
    run_doctest,
    type_checks,
)

OUT = pathlib.Path(__file__).with_name("tutorials.json")


def check_doctests(module, names, ns):
    # Everything is compared, even concepts.RANDOM_OUTPUTS: with the namespace's
    # np.random.seed(0), Chainer draws the very weights the seed prints.
    for name in names:
        report = run_doctest(getattr(module, name), ns, name)
        assert not report, report


def raised(source, ns):
    try:
        run_code(source, ns)
    except Exception as error:  # the type is the datum
        return type(error).__name__
    return None


# The upstream gradient the tests give the MulAdd samples (their ``uniform((3, 2), 7)``).
BACKWARD = "w.grad = np.random.RandomState(7).uniform(-1, 1, (3, 2)).astype(np.float32)\nw.backward()\n"


def function_guide():
    out = {}
    ns = namespace()
    run_code(functions.NEW_MULADD_UNIFIED + functions.NEW_USAGE + BACKWARD, ns)
    grads = {k: ns[k].grad.tolist() for k in "xyz"}
    ns["y"] = ns["y"].array  # only x and z need a gradient: target_input_indexes is (0, 2)
    out["raises"] = {"NEW_MULADD_UNIFIED partial": raised("w, = MulAdd().apply((x, y, z))\n" + BACKWARD, ns)}
    run_code(functions.NEW_ELEMENTWISE + functions.NEW_USAGE, ns)
    out["raises"]["NEW_ELEMENTWISE backward"] = raised(BACKWARD, ns)
    run_code(functions.LINEAR_FUNCTION + functions.LINEAR_WRAPPER_CALL + functions.LINEAR_LINK, ns)
    ns["x"] = numpy.ones((4, 3), numpy.float32)
    out["raises"]["LINEAR_WRAPPER_CALL"] = raised("Linear(3, 2)(x)", ns)
    run_code(functions.LINEAR_WRAPPER_APPLY, ns)
    out["raises"]["LINEAR_LINK backward"] = raised(
        "y, = Linear(3, 2)(x)\ny.grad = np.ones((4, 2), np.float32)\ny.backward()", ns
    )
    out["raises"]["LINEAR_LINK backward from a Variable"] = raised(
        "y, = Linear(3, 2)(Variable(x))\ny.grad = np.ones((4, 2), np.float32)\ny.backward()", ns
    )
    out["unified_muladd_grads"] = grads
    run_code(functions.ELTWISE_PARAM_PRODUCT, ns)
    out["new_parameter_grad_is_nan"] = bool(numpy.isnan(ns["EltwiseParamProduct"]((2, 3)).W.grad).all())
    return out


def model_guides(tmp):
    ns = namespace()
    check_doctests(
        models,
        ["LINKS_AND_FUNCTION", "MY_PROC", "MY_CHAIN", "MY_CHAIN2", "SETUP", "WEIGHT_DECAY"],
        ns,
    )
    check_doctests(models, ["UPDATE_MANUALLY", "UPDATE_WITH_LOSSFUN", "SAVE_MODEL", "LOAD_MODEL"], ns)
    check_doctests(models, ["SAVE_LOAD_OPTIMIZER"], ns)
    with numpy.load("my.model") as f:
        model_keys = sorted(f.files)
    with numpy.load("my.state") as f:
        optimizer = {"keys": sorted(f.files), "t": int(f["t"]), "epoch": int(f["epoch"])}
    train = [(numpy.ones(4, numpy.float32) * i, numpy.int32(i % 2)) for i in range(6)]
    it = chainer.iterators.SerialIterator(train, 3)
    model = chainer.links.Classifier(ns["MyChain"]())
    opt = chainer.optimizers.SGD().setup(model)
    trainer = chainer.training.Trainer(chainer.training.StandardUpdater(it, opt), (1, "epoch"), out=tmp)
    trainer.run()
    ns["trainer"] = trainer
    check_doctests(models, ["SAVE_TRAINER"], ns)
    with numpy.load("my.state") as f:
        trainer_keys = sorted(f.files)
    return {"model_keys": model_keys, "optimizer": optimizer, "trainer_keys": trainer_keys}


def typical_check_message():
    ns = namespace()
    run_code(type_checks.TYPICAL_CHECK, ns)
    try:
        ns["Typical"]()(numpy.zeros((3, 2), numpy.float32), numpy.zeros((3, 2, 2), numpy.float32))
    except chainer.utils.type_check.InvalidType as error:
        return str(error)
    raise AssertionError("the typical check passed a 2-d x")


def check_other_guides():
    ns = namespace()
    check_doctests(
        concepts,
        ["VARIABLES", "RETAIN_GRAD", "MULTI_ELEMENT", "FIRST_ORDER", "SECOND_ORDER", "LINEAR"]
        + ["LINEAR_PARAMS", "LINEAR_CALL", "LINEAR_CLEARGRADS", "LINEAR_GRADS"],
        ns,
    )
    check_doctests(concepts, ["LINEAR_LAZY"], namespace())
    check_doctests(reporting, ["REPORTER", "GLOBAL_REPORT", "CLASSIFIER", "MLP"], namespace())
    ns = namespace()
    data = (numpy.empty((3, 2, 2), numpy.float32), numpy.empty((1, 2, 2), numpy.float32))
    ns["in_types"] = chainer.utils.type_check.get_types(data, "in_types", False)
    ns["self"] = type("Object", (), {"in_size": 4})()
    ns["more_complicated_condition"] = lambda shape: False
    for source, message in type_checks.SAMPLES:
        try:
            run_code(source, ns)
        except chainer.utils.type_check.InvalidType as error:
            assert str(error) == message, (str(error), message)
        else:
            assert message is None, source
    for condition, message in type_checks.IN_SIZE_MESSAGES.items():
        try:
            run_code(f"utils.type_check.expect({condition})", ns)
        except chainer.utils.type_check.InvalidType as error:
            assert str(error) == message, (str(error), message)


def main():
    check_other_guides()
    golden = function_guide()
    golden["check_type_forward_message"] = typical_check_message()
    with tempfile.TemporaryDirectory() as tmp:
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            golden.update(model_guides(tmp))
        finally:
            os.chdir(cwd)
    OUT.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
