"""VPU Inspector core: export, PT2E quantization, Q/DQ graph analysis, layout.

Never imports Qt: everything here runs headless (CLI, tests, scripts).
"""
