"""One error path: every failure a user can cause is an InspectorError with a one-line message.

The CLI prints `message` to stderr and exits 2 (the traceback only with --debug); the GUI shows
`message` in a dialog with `detail` expandable. Anything else escaping is a bug, routed to the
same place by the excepthooks.
"""
from __future__ import annotations


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
    """First meaningful line of an arbitrary exception, for wrapping library errors."""
    text = str(exc).strip() or type(exc).__name__
    first = text.splitlines()[0].strip()
    return first if len(first) <= limit else first[: limit - 1] + "…"


def with_message(exc: InspectorError, message: str) -> InspectorError:
    """The same kind of error with another message (a subclass with its own signature: the base)."""
    try:
        return type(exc)(message, exc.detail)
    except TypeError:
        return InspectorError(message, exc.detail)
