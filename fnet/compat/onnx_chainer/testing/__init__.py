"""onnx_chainer.testing: inputs for tests, and running an exported test case in onnxruntime."""

from . import get_test_data_set, input_generator, test_onnxruntime

__all__ = ["get_test_data_set", "input_generator", "test_onnxruntime"]
