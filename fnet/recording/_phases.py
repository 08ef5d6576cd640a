"""A recording made by hand, in two phases: a forward pass, then its backward pass.

``capture`` records a whole step at once. A layer that must hand a forward pass's outputs back
before its backward pass is asked for (fnet.compat's ``static_graph``: Chainer calls
``backward`` later, from outside) records the forward pass, marks the end of it, records the
backward pass on stand-in output gradients, and compiles the two apart: the forward plan also
returns the values the backward plan reads (the residuals), as a tape would keep them.
"""

from __future__ import annotations

import contextlib

from ._plan import _alias_groups, _live_ops, _reads, compile_plan
from ._record import CapturedArray, Recorder, _active, recordings

__all__ = ["PhasedRecording"]


class PhasedRecording:
    """Record a forward pass, ``mark()`` its end, record the backward pass; ``compile``."""

    def __init__(self):
        self.recorder = Recorder()
        self._mark: tuple | None = None

    def inputs(self, arrays) -> list[CapturedArray]:
        """Captured arrays standing for ``arrays`` (inputs of the phase being recorded)."""
        return [self.recorder.input(a) for a in arrays]

    @contextlib.contextmanager
    def active(self):
        """Within the block, array calls are recorded here."""
        token = _active.set(self.recorder)
        recordings.count += 1
        try:
            yield self
        finally:
            recordings.count -= 1
            _active.reset(token)

    def mark(self) -> None:
        """The forward pass ends here."""
        self._mark = (len(self.recorder.ops), self.recorder.slots)

    def compile(self, forward_inputs, forward_outputs, backward_inputs, backward_outputs, name: str):
        """``(forward, backward, residuals)``: ``forward.replay(*forward_inputs)`` returns the
        forward outputs then the residuals; ``backward.replay(*residuals, *backward_inputs)`` the
        backward outputs (leaves: captured arrays, or constants returned as they are).
        ``residuals`` are their captured arrays."""
        self.recorder.open = False
        self.recorder.check_constants()
        ops = self.recorder.ops
        n_ops, n_slots = self._mark if self._mark is not None else (len(ops), self.recorder.slots)
        groups = _alias_groups(ops)
        wanted = [o for o in backward_outputs if type(o) is CapturedArray]
        kept = _live_ops(ops[n_ops:], list(backward_inputs), wanted, groups)
        residuals: dict = {}
        for op in kept:
            for c in _reads(op) + list(op.mutates):
                if c.slot < n_slots:
                    residuals.setdefault(c.slot, c)
        for o in wanted:
            if o.slot < n_slots:
                residuals.setdefault(o.slot, o)
        residual_list = [residuals[s] for s in sorted(residuals)]
        forward = compile_plan(
            ops[:n_ops],
            list(forward_inputs),
            list(forward_outputs) + residual_list,
            None,
            None,
            f"{name} (forward)",
        )
        backward = compile_plan(
            kept,
            residual_list + list(backward_inputs),
            list(backward_outputs),
            None,
            None,
            f"{name} (backward)",
        )
        return forward, backward, residual_list

    def changed_after_mark(self, captured: list) -> bool:
        """Whether an op of the backward pass wrote into one of ``captured`` in place."""
        n_ops = self._mark[0] if self._mark is not None else len(self.recorder.ops)
        slots = {c.slot for c in captured if type(c) is CapturedArray}
        return any(m.slot in slots for op in self.recorder.ops[n_ops:] for m in op.mutates)
