"""The OpenVINO target: ExecuTorch's OpenVINO backend, its quantizer (NNCF) and its runtime on this CPU.

Its quantizer is NNCF's OpenVINOQuantizer through ExecuTorch's `quantize_model` (`--quantizer
openvino`): NNCF's post-training flow (quantize_pt2e: statistics, fast bias correction, convert)
in one call, so the pipeline hands it the float graph and the calibration batches instead of
preparing with observers (QuantizerInfo.quantize). Its verdict is what OpenvinoPartitioner
(compile spec device "CPU") delegates of the converted graph, every op it leaves out with the
reason, read from the lowered program; `--run` runs the .pte with ExecuTorch's runtime here (the
OpenVINO backend library ships in the executorch wheel); `export` writes that .pte. It has no
cost model: its time is measured. Importing this package imports no torch.

It needs openvino and nncf (`pip install 'vpu-inspector[openvino]'`): openvino 2025.4.1 with nncf
3.2.0 beside ExecuTorch 1.5.1 (nncf 3.4 wants openvino >= 2026, which ExecuTorch 1.5.1 excludes;
nncf 2.19 / 3.0 import the removed torch.ao.quantization.pt2e).

    quantizer.py   quantize(): NNCF's flow on the float graph, weights folded like PT2E's convert
    lowering.py    the ONE lowering: export → to_edge_transform_and_lower(OpenvinoPartitioner) →
                   .pte, with where each lowered node runs and why (what verdict, run, export share)
    verdict.py     the PartitionReport keyed by the converted graph's node names
    measure.py     the .pte run here: latency, SQNR against the float and the Q/DQ graph
    target.py      OpenvinoTarget: verdict, run, export (the Target protocol)
"""
import contextlib
import sys
from typing import Iterator

from vpu_core.quantizers import registry as quantizers
from vpu_core.quantizers.offers import Offers
from vpu_core.targets.registry import TargetInfo, register

NAME = "openvino"
PACKAGES = (("openvino", "openvino"), ("nncf", "nncf"))
EXTRA = "openvino"

QUANTIZER = quantizers.register(quantizers.QuantizerInfo(
    name=NAME, title="NNCF OpenVINOQuantizer (ExecuTorch quantize_model)",
    quantize="vpu_core.targets.openvino.quantizer:quantize",
    offers=Offers(NAME, ("keep_float",), ()),          # NNCF's ignored scope: those ops stay float
    preload=("vpu_core.targets.openvino.quantizer", "executorch.backends.openvino.quantizer"),
    requires=PACKAGES, extra=EXTRA))

# It judges its own quantizer's graphs only: the other quantizers fold their weights into int8
# constants, which OpenVINO's conversion refuses ("Element types for data batch and filters do not
# match": an f32 input, i8 filters), measured on ResNet-8 folded as torchao's convert_pt2e folds.
INFO = register(TargetInfo(
    name=NAME, title="OpenVINO",
    description="ExecuTorch's OpenvinoPartitioner (device CPU): what it really delegates, lowered and run on this CPU.",
    implementation="vpu_core.targets.openvino.target:OpenvinoTarget", quantizer=NAME,
    judges=(NAME,), judges_hint="quantize with --quantizer openvino",
    verdict_title="Lowering with ExecuTorch's OpenVINO backend", requires=PACKAGES, extra=EXTRA))


def no_telemetry() -> None:
    """Keep OpenVINO's and NNCF's usage telemetry out of this process, before either is imported.

    Both send events to Google Analytics unless the user opted out in a file of their home
    folder, each from a child it forks (multiprocessing): forked from this process, whose torch
    threads are running, the child dies ("Fatal Python error: init_threadstate") after printing
    our stack to the terminal, and a `check` took 105 s instead of 20. Both fall back to sending
    nothing when `openvino_telemetry` cannot be imported (ovc's telemetry_stub, NNCF's "No
    telemetry will be sent"); a None in sys.modules makes that import fail, for this process only.
    """
    sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]


@contextlib.contextmanager
def signal_stack_kept() -> Iterator[None]:
    """The thread's alternate signal stack as it was before an OpenVINO call, after it.

    Loading and running OpenVINO models installs an alternate signal stack of its own on the
    calling thread (20144 bytes, measured) and puts the previous one back when the model is freed;
    with several models freed out of order the thread was left pointing at freed memory, and the
    next signal handled on it (a Ctrl+C: SIGINT) ended the process with a segmentation fault (seen
    in pytest: the sweep's Ctrl+C test after the OpenVINO tests, gdb: SIGSEGV in kill()). Python's
    own handlers and faulthandler expect the stack they set."""
    import ctypes

    class Stack(ctypes.Structure):
        _fields_ = [("ss_sp", ctypes.c_void_p), ("ss_flags", ctypes.c_int), ("ss_size", ctypes.c_size_t)]

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        before = Stack()
        saved = libc.sigaltstack(None, ctypes.byref(before)) == 0
    except (OSError, AttributeError):    # no sigaltstack here (not POSIX): nothing to keep
        saved = False
    try:
        yield
    finally:
        if saved:
            libc.sigaltstack(ctypes.byref(before), None)
