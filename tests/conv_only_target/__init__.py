"""The smallest real target (docs/architecture.md's example): an accelerator that runs conv2d and nothing else.

Importing this package registers it; the registry needs no torch to list it.
"""
from vpu_core.targets import TargetInfo, register

INFO = register(TargetInfo(
    name="conv-only", title="Conv-only",
    description="A toy accelerator with one kernel, conv2d: everything else stays on the CPU.",
    implementation="conv_only_target.target:ConvOnlyTarget",
    result_modules=("conv_only_target.results",)))
