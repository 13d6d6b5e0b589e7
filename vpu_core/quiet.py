"""Keep library start-up chatter off the user's stderr.

torchao logs a warning for each optional CUDA extension it cannot load on a CPU machine, and
torch warns about a deprecated pytree registration torchao makes; neither is actionable for a
user of this tool, and stderr is where our one-line errors go.
"""
from __future__ import annotations

from typing import Iterator

import contextlib
import io
import logging
import warnings

_done = False


def silence_torchao() -> None:
    """Its loggers to ERROR, without importing it: before running user code that may import it
    (transformers does)."""
    for name in ("torchao", "torch.utils._pytree"):
        logging.getLogger(name).setLevel(logging.ERROR)


def import_torchao() -> None:
    global _done
    if _done:
        return
    silence_torchao()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import torchao.quantization.pt2e  # noqa: F401  (registers quantized_decomposed ops)
    _done = True


@contextlib.contextmanager
def torch_chatter() -> Iterator[io.StringIO]:
    """Silence what torch logs and prints while it fails (whole graphs, "see warnings above").

    Yields a StringIO with whatever was printed to stderr, for the error's `detail`.
    """
    captured = io.StringIO()
    previous = logging.root.manager.disable
    logging.disable(logging.ERROR)  # fake-tensor propagation logs whole tracebacks at ERROR
    try:
        with contextlib.redirect_stderr(captured):
            yield captured
    finally:
        logging.disable(previous)


@contextlib.contextmanager
def backend_log(level: int = logging.WARNING) -> Iterator[io.StringIO]:
    """What a backend logs through the root logger (ExecuTorch's Arm passes: "WARNING:executorch.…:
    Casting arange from torch.int64 to torch.int32") kept in a StringIO instead of shown: the
    caller puts it in an error's `detail`. torch's own loggers have handlers of their own and are
    left alone (torch_chatter)."""
    captured = io.StringIO()
    handler = logging.StreamHandler(captured)
    handler.setLevel(level)
    handler.setFormatter(logging.Formatter("%(levelname)s:%(name)s:%(message)s"))
    root = logging.getLogger()
    saved = root.handlers[:]
    root.handlers = [handler]
    try:
        yield captured
    finally:
        root.handlers = saved
