"""The package's optional extras: one sentence, before any import of them, when one is missing.

ExecuTorch's Arm backend needs the TOSA tools (and Vela to compile for an Ethos-U); they are the
`ethos-u` extra of this package. Torch-free: the quantizers, the pipeline and the Arm targets ask
here before they import the backend.
"""
from __future__ import annotations

from vpu_core.errors import InspectorError

ARM_PACKAGES = {"tosa_serializer": "tosa-tools", "tosa_reference_model": "tosa-tools", "ethosu.vela": "ethos-u-vela"}


def check_arm_packages(what: str, vela: bool = True) -> None:
    """One sentence when ExecuTorch's Arm backend cannot be used for `what` ("the Ethos-U55-128
    target", "the ethos-u quantizer"): its TOSA tools (and Vela) are an extra of this package."""
    import importlib.util

    def importable(module: str) -> bool:
        try:
            return importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            return False

    needed = [m for m in ARM_PACKAGES if vela or m != "ethosu.vela"]
    missing = sorted({ARM_PACKAGES[m] for m in needed if not importable(m)})
    if missing:
        raise InspectorError(f"{what[0].upper()}{what[1:]} needs {' and '.join(missing)}: install them with "
                             "pip install 'vpu-inspector[ethos-u]'.")
