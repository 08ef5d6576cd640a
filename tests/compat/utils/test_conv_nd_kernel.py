"""The CUDA kernels of ``chainer.utils.conv_nd_kernel``, run on the CPU: each operation is
compiled as C (a loop over ``i`` in place of the CUDA grid) and compared with fnet's im2col and
col2im."""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import numpy
import pytest

from fnet.compat.utils import conv_nd, conv_nd_kernel

CASES = [  # dims, ksize, stride, pad, dilate
    ((5,), (3,), (2,), (1,), (1,)),
    ((5, 4), (3, 2), (1, 2), (1, 0), (1, 2)),
    ((4, 3, 5), (2, 2, 3), (2, 1, 1), (0, 1, 2), (1, 1, 2)),
]


def _compile(kernel: tuple, tmp_path):
    """The kernel as a C function ``run(n, source, out, ints)`` over elements ``0..n-1``."""
    in_params, out_params, operation, name = kernel
    source, *ints = [p.split()[-1] for p in in_params.split(", ")]
    out = out_params.split()[-1]
    body = "\n".join(f"  int {n} = ints[{j}];" for j, n in enumerate(ints))
    text = (
        "#include <stddef.h>\ntypedef double T;\n"
        "void run(ptrdiff_t n, const T *src, T *dst, const int *ints) {\n"
        f"{body}\n  const T *{source} = src;\n"
        f"  for (ptrdiff_t i = 0; i < n; ++i) {{\n#define {out} (dst[i])\n"
        f"{operation}\n#undef {out}\n  }}\n}}\n"
    )
    (tmp_path / f"{name}.c").write_text(text)
    library = tmp_path / f"{name}.so"
    subprocess.run(
        [
            "gcc",
            "-shared",
            "-fPIC",
            "-O0",
            "-Wall",
            "-Werror",
            "-o",
            str(library),
            str(tmp_path / f"{name}.c"),
        ],
        check=True,
    )
    run = ctypes.CDLL(str(library)).run
    run.argtypes = [ctypes.c_ssize_t, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]

    def call(src, shape, sizes):
        src = numpy.ascontiguousarray(src, dtype=numpy.float64)
        dst = numpy.full(shape, numpy.nan)
        sizes = numpy.asarray(sizes, dtype=numpy.int32)
        run(dst.size, src.ctypes.data, dst.ctypes.data, sizes.ctypes.data)
        return dst

    return call


@pytest.mark.skipif(shutil.which("gcc") is None, reason="compiling the kernels needs gcc")
@pytest.mark.parametrize("dims, ksize, stride, pad, dilate", CASES)
def test_kernels_compute_what_im2col_and_col2im_do(tmp_path, dims, ksize, stride, pad, dilate):
    ndim = len(dims)
    img = numpy.random.RandomState(ndim).uniform(-1, 1, (2, 3) + dims)
    expected = conv_nd.im2col_nd_cpu(img, ksize, stride, pad, dilate=dilate)
    outs = expected.shape[2 + ndim :]
    sizes = [*dims, *outs, *ksize, *stride, *pad, *dilate]
    im2col = _compile(conv_nd_kernel.Im2colNDKernel.generate(ndim), tmp_path)
    col = im2col(img, expected.shape, sizes)
    numpy.testing.assert_array_equal(col, expected)  # copies and zeros: no rounding

    col = numpy.random.RandomState(ndim + 10).uniform(-1, 1, expected.shape)
    summed = conv_nd.col2im_nd_cpu(col, stride, pad, dims, dilate=dilate)
    col2im = _compile(conv_nd_kernel.Col2imNDKernel.generate(ndim), tmp_path)
    # sums of the same terms, perhaps in another order: a few ulp apart
    numpy.testing.assert_allclose(col2im(col, img.shape, sizes), summed, rtol=1e-13, atol=1e-13)


def test_generate_names_the_kernels_and_refuses_a_bad_ndim():
    assert conv_nd_kernel.Im2colNDKernel.generate(3)[1::2] == ("T col", "im2col_3d")
    assert conv_nd_kernel.Col2imNDKernel.generate(2)[1::2] == ("T img", "col2im_2d")
    with pytest.raises(ValueError, match="ndim"):
        conv_nd_kernel.Col2imNDKernel.generate(0)
