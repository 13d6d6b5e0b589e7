"""Developer tools, not part of the product: documentation screenshots and the start-up probe
(used by `vpu-inspector bench`). Only app.cli imports this package (import contract)."""
