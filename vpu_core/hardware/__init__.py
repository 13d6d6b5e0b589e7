"""What the VPU can run, independent of any graph analysis (importable by the quantizer, the
profile parser and the partition alike):

- kernels/    one module per kernel, each a `KernelSpec`: its ATen ops and aliases (conv1d = 1×k
              conv2d; addmm / mm / matmul with a constant 2-D weight = linear), operand positions,
              [op.NAME] limit keys and how their quantities are read, MAC count, integer kernel;
              the registry of them (torch-free);
- ops.py      the op vocabulary read from the specs (layout, list-input, averaging ops) and the
              bound `Kernel` of one call;
- limit_keys.py / limits.py  a limit key's check and sentence ("kernel 7×7 > 3×3"); every key of
              [op.NAME] and [memory] in one fixed order, read from a profile;
- nodes.py    the specs applied to fx nodes: `kernel_of(node)` (torch).

Which node runs where, and why not, is decided from these in vpu_core.analysis.verdict.
"""
