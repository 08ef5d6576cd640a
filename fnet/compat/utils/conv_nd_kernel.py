"""``chainer.utils.conv_nd_kernel``: the CUDA source of the n-dimensional im2col and col2im
elementwise kernels, as ``(in_params, out_params, operation, name)`` for
``cupy.ElementwiseKernel``.

Both kernels take the raw input array and, per axis ``j``, the image size ``d_j``, output size
``out_j``, kernel size ``k_j``, stride ``s_j``, padding ``p_j`` and dilation ``di_j`` (all
``int32``, grouped by kind). im2col writes ``col`` of shape ``(n, c, k_0.., out_0..)`` (zero in
the padding); col2im writes ``img`` of shape ``(n, c, d_0..)``, adding up the patches that cover
each pixel. fnet's own convolutions do not use these kernels; they are here for code that builds
them itself.

>>> print(Im2colNDKernel._generate(1)[0])
raw T img, int32 d_0, int32 out_0, int32 k_0, int32 s_0, int32 p_0, int32 di_0
"""

from __future__ import annotations

from ..backends import cuda

__all__ = ["Im2colNDKernel", "Col2imNDKernel"]

_SIZES = ("d", "out", "k", "s", "p", "di")  # the integer parameters, per axis


def _axes(prefix: str, ndim: int) -> list[str]:
    return [f"{prefix}_{j}" for j in range(ndim)]


def _in_params(source: str, ndim: int) -> str:
    return ", ".join([f"raw T {source}"] + [f"int32 {n}" for s in _SIZES for n in _axes(s, ndim)])


def _unravel(names: list[str], sizes: list[str]) -> list[str]:
    """Lines that split the element index ``i`` into ``c0`` (image and channel) then ``names``
    (a C-order index over ``sizes``)."""
    lines = [f"int c0 = i / ({' * '.join(sizes)});"]
    for j, (name, size) in enumerate(zip(names, sizes)):
        inner = sizes[j + 1 :]
        quotient = f"i / ({' * '.join(inner)})" if inner else "i"
        lines.append(f"int {name} = {quotient} % {size};")
    return lines


def _ravel(names: list[str], sizes: list[str]) -> str:
    """The C-order flat index of ``(c0, *names)`` over ``(.., *sizes)``."""
    index = "c0"
    for name, size in zip(names, sizes):
        index = f"({name} + {size} * {index})"
    return index


def _check_ndim(kernel: str, ndim) -> int:
    if not isinstance(ndim, int) or isinstance(ndim, bool) or ndim < 1:
        raise ValueError(
            f"{kernel}.generate: expected ndim to be a positive int, got {ndim!r}\n"
            "  hint: pass the number of spatial axes (2 for images)"
        )
    return ndim


class Im2colNDKernel:
    """The im2col kernel: ``col[c0, kx.., out_x..] = img[c0, kx * di + out_x * s - p ..]``."""

    @staticmethod
    def _generate(ndim: int) -> tuple[str, str, str, str]:
        ndim = _check_ndim("Im2colNDKernel", ndim)
        kx, out_x, ins = _axes("kx", ndim), _axes("out_x", ndim), _axes("in", ndim)
        ks, outs, ds = _axes("k", ndim), _axes("out", ndim), _axes("d", ndim)
        lines = _unravel(kx + out_x, ks + outs)
        for j in range(ndim):
            lines.append(f"int in_{j} = kx_{j} * di_{j} + out_x_{j} * s_{j} - p_{j};")
        inside = " && ".join(f"0 <= {x} && {x} < {d}" for x, d in zip(ins, ds))
        lines += [
            f"if ({inside}) {{",
            f"  col = img[{_ravel(ins, ds)}];",
            "} else {",
            "  col = (T)0;",
            "}",
        ]
        return _in_params("img", ndim), "T col", "\n".join(lines), f"im2col_{ndim}d"

    @staticmethod
    @cuda.memoize()
    def generate(ndim: int) -> tuple[str, str, str, str]:
        """The kernel for ``ndim`` spatial axes (made once per ``ndim`` with CuPy)."""
        return Im2colNDKernel._generate(ndim)


class Col2imNDKernel:
    """The col2im kernel: ``img[c0, x..]`` is the sum of the ``col`` entries whose patch covers
    pixel ``x``."""

    @staticmethod
    def _generate(ndim: int) -> tuple[str, str, str, str]:
        ndim = _check_ndim("Col2imNDKernel", ndim)
        xs, ds = _axes("x", ndim), _axes("d", ndim)
        lines = _unravel(xs, ds) + ["T val = 0;"]
        for j in range(ndim):
            pad = "  " * j
            lines += [
                f"{pad}for (int kx_{j} = 0; kx_{j} < k_{j}; ++kx_{j}) {{",
                f"{pad}  int out_x_{j} = x_{j} + p_{j} - kx_{j} * di_{j};",
                f"{pad}  if (out_x_{j} < 0 || out_x_{j} >= out_{j} * s_{j}) continue;",
                f"{pad}  if (out_x_{j} % s_{j} != 0) continue;",
                f"{pad}  out_x_{j} /= s_{j};",
            ]
        col = _ravel(_axes("kx", ndim) + _axes("out_x", ndim), _axes("k", ndim) + _axes("out", ndim))
        lines.append(f"{'  ' * ndim}val = val + col[{col}];")
        lines += ["  " * j + "}" for j in reversed(range(ndim))]
        lines.append("img = val;")
        return _in_params("col", ndim), "T img", "\n".join(lines), f"col2im_{ndim}d"

    @staticmethod
    @cuda.memoize()
    def generate(ndim: int) -> tuple[str, str, str, str]:
        """The kernel for ``ndim`` spatial axes (made once per ``ndim`` with CuPy)."""
        return Col2imNDKernel._generate(ndim)
