"""testing.doctest_helper: when the examples of the documentation are skipped."""

from __future__ import annotations

from fnet.compat.testing import doctest_helper


def test_skip_conditions(monkeypatch):
    monkeypatch.delenv("READTHEDOCS", raising=False)
    monkeypatch.delenv("CHAINER_TEST_GPU_LIMIT", raising=False)
    assert doctest_helper.skipif(True) and not doctest_helper.skipif(False)
    assert doctest_helper.skipif_requires_satisfied("numpy", "numpy>=1.0")
    assert not doctest_helper.skipif_requires_satisfied("numpy<1.0")
    assert not doctest_helper.skipif_requires_satisfied("numpy", "no-such-package-of-fnet")
    assert not doctest_helper.skipif_not_enough_cuda_devices(2)  # no limit set
    monkeypatch.setenv("CHAINER_TEST_GPU_LIMIT", "1")
    assert doctest_helper.skipif_not_enough_cuda_devices(2)
    assert not doctest_helper.skipif_not_enough_cuda_devices(1)
    monkeypatch.setenv("READTHEDOCS", "True")  # never skipped in a documentation build
    assert not doctest_helper.skipif(True) and not doctest_helper.skipif_not_enough_cuda_devices(2)
