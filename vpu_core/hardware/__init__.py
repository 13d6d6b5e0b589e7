"""What the VPU can run, independent of any graph analysis (importable by the quantizer, the
profile parser and the partition alike):

- ops.py     the op vocabulary: weighted ops, layout ops, shared-scale defaults, kernel aliases
             (conv1d = 1×k conv2d; addmm / mm / matmul with a constant 2-D weight = linear);
- limits.py  the per-op limit keys of a profile's [op.NAME] tables and [memory], each with its
             check and its sentence ("kernel 7×7 > 3×3"), in one fixed order.

Which node runs where, and why not, is decided from these in vpu_core.analysis.verdict.
"""
