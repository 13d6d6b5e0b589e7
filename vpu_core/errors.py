"""One error path: every failure a user can cause is an InspectorError with a one-line message.

The CLI prints `message` to stderr and exits 2 (the traceback only with --debug); the GUI shows
`message` in a dialog with `detail` expandable. Anything else escaping is a bug, routed to the
same place by the excepthooks.
"""
from __future__ import annotations

import re


class InspectorError(Exception):
    """A user-facing failure: `message` is one sentence, `detail` the technical rest."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.message = message.strip().splitlines()[0] if message.strip() else type(self).__name__
        self.detail = detail


class ModelLoadError(InspectorError):
    """The model file / zoo name could not be turned into (module, example inputs)."""


class ExportError(InspectorError):
    """torch.export could not trace the model."""


class StaticShapeError(InspectorError):
    """The VPU quantizer refused a graph with symbolic (dynamic) dimensions (constraint 8)."""


class CalibrationError(InspectorError):
    """Calibration data is missing, of the wrong shape or not finite."""


class ProfileError(InspectorError):
    """The hardware profile file is unreadable or names unknown keys / ops."""


class QuantizationError(InspectorError):
    """prepare / convert failed, or the graph has nothing to quantize."""


class Cancelled(InspectorError):
    """The user cancelled a running job."""

    def __init__(self, message: str = "Cancelled by the user.") -> None:
        super().__init__(message)


class NotCached(Exception):
    """A lookup-only session (Session(computes=False)) was asked for a result it would have to
    compute: the caller runs the request where model code may run (vpu_core.worker). Never
    reaches a user."""


def short_reason(exc: BaseException, limit: int = 200) -> str:
    """First meaningful line of an arbitrary exception, for wrapping library errors; for a pass
    manager's wrapper ("An error occurred when running the '…' pass after the following passes:
    [...]") the error inside it (root_cause)."""
    text = str(exc).strip() or type(exc).__name__
    if text.startswith(_PASS_WRAPPER) and _inner(exc) is not exc:
        return root_cause(exc, limit)
    first = text.splitlines()[0].strip()
    return first if len(first) <= limit else first[: limit - 1] + "…"


_PASS_WRAPPER = "An error occurred when running the"     # torch.fx's PassManager around a failed pass
# torch.fx's Interpreter appends the node it was running and the model's source of that node.
_EXECUTING = re.compile(r"While executing %(\w+) : \[[^\]]*\] = call_function\[target=([\w.]+)\]\(args = \((.*?)\), "
                        r"kwargs = \{.*?\}\)$", re.M)
_FRAME = re.compile(r"File \"([^\"]+)\", line (\d+), in \w+\s*\n\s*(.+)")
_LIBRARIES = ("/torch/", "/executorch/", "/torchao/")     # a frame there is the machinery, not the model


def root_cause(exc: BaseException, limit: int = 300) -> str:
    """The innermost error of a chain (a failed pass inside ExecuTorch's and torch's wrappers) in
    one line: its message, the op it was running when torch names it ("in aten.mul.Scalar(
    _param_constant5, 1.0)") and the innermost line of the model's source that made that op."""
    inner = _inner(exc)
    text = str(inner).strip()
    first = text.splitlines()[0].strip() if text else ""
    message = f"{type(inner).__name__}: {first}" if first else type(inner).__name__
    if len(message) > limit // 2:
        message = message[: limit // 2 - 1] + "…"
    executing = _EXECUTING.search(text)
    if executing:
        op, args = executing.group(2).removeprefix("torch.ops."), executing.group(3).replace("%", "")
        message += f" in {op}({args if len(args) <= 60 else args[:59] + '…'})"
    frames = [f for f in _FRAME.findall(text.split("Original traceback:", 1)[-1]) if not any(
        lib in f[0] for lib in _LIBRARIES)] if "Original traceback:" in text else []
    if frames:
        path, line, code = frames[-1]
        message += f", from {path.rsplit('/', 1)[-1]}:{line} `{code.strip()}`"
    return message if len(message) <= limit else message[: limit - 1] + "…"


def failing_node(exc: BaseException) -> str | None:
    """The name of the graph node torch was running when the innermost error of `exc` was raised."""
    executing = _EXECUTING.search(str(_inner(exc)))
    return executing.group(1) if executing else None


def _inner(exc: BaseException) -> BaseException:
    seen = {id(exc)}
    while exc.__cause__ is not None or (exc.__context__ is not None and not exc.__suppress_context__):
        nxt = exc.__cause__ or exc.__context__
        if nxt is None or id(nxt) in seen:
            break
        seen.add(id(nxt))
        exc = nxt
    return exc


def with_message(exc: InspectorError, message: str) -> InspectorError:
    """The same kind of error with another message (a subclass with its own signature: the base)."""
    try:
        return type(exc)(message, exc.detail)
    except TypeError:
        return InspectorError(message, exc.detail)
