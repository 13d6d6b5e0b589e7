"""gru / lstm / rnn_tanh / rnn_relu (aten.gru.input / .data, …), every layer and direction: each
2-D weight matrix of the op's parameter list (w_ih [G·H, I], w_hh [G·H, H], an LSTM's projection
w_hr [P, H]; G = 3 gates for a GRU, 4 for an LSTM, 1 for an RNN) is applied once per time step
and batch element: T·B × Σ rows·cols. T·B is the input's element count over its feature size
(batch_first or not, batched or not; the packed `.data` form: its rows). The gates' elementwise
products are not counted, as no activation function is."""
from __future__ import annotations

import math

from vpu_core.hardware.kernels.spec import KernelSpec, OpView, arg_shape


def macs(v: OpView) -> int:
    """A tuple (output, hidden states) has no shape of its own: only the input's is read."""
    packed = v.op.endswith(".data")                 # gru.data(data, batch_sizes, hx, params, …)
    params = v.args[3] if packed else v.args[2] if len(v.args) > 2 else None
    x = arg_shape(v, 0)
    if not x or not isinstance(params, (list, tuple)):
        return 0
    steps = x[0] if packed else math.prod(x[:-1])   # T·B, whichever order, batched or not
    shapes = [v.shape(p) for p in params]
    return steps * sum(s[0] * s[1] for s in shapes if s and len(s) == 2)


RECURRENT = KernelSpec("recurrent", ("gru", "lstm", "rnn_tanh", "rnn_relu"), "recurrent layers", macs=macs)
SPECS = (RECURRENT,)
