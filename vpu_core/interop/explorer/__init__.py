"""Our Model Explorer extension: `model-explorer --extensions=vpu_core.interop.explorer MODEL.py`.

Model Explorer imports an extension package's `main` module (vpu_core.interop.explorer.main: the
adapter and the node-data providers); this package itself imports nothing, so importing it never
needs Model Explorer.
"""
