"""Collection rules for the whole checkout (``tests`` and the doctests of ``fnet``): the modules
of an optional extra that cannot be imported without it are not collected when it is absent
(the tests that use them skip, saying which extra to install)."""

import importlib.util

collect_ignore_glob = []
if importlib.util.find_spec("onnx") is None:  # the onnx extra
    collect_ignore_glob += ["fnet/onnx/*.py", "fnet/compat/onnx_chainer/*", "tests/onnx/_check.py"]
