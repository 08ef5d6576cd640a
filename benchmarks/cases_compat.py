"""The Chainer benchmark cases (cases_chainer.py), run unchanged on fnet.compat.

``chainer`` is aliased to ``fnet.compat`` before cases_chainer is imported, so these are the
very same lines of Chainer code; only the framework underneath differs.
"""

import fnet.compat

fnet.compat.install_alias()

import cases_chainer  # noqa: E402

init = cases_chainer.init
to_numpy = cases_chainer.to_numpy
CASES = cases_chainer.CASES
