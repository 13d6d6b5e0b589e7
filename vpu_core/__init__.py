"""VPU Inspector core: export, PT2E quantization, Q/DQ graph analysis, layout.

Never imports Qt: everything here runs headless (CLI, tests, scripts).
"""

from vpu_core import quiet as _quiet

# torchao's CUDA-extension warnings off in every process and thread that uses the core (the
# window, the CLI, sweep and job workers), before anything can import torchao: logging only
_quiet.silence_torchao()
