"""Self-contained widgets fed with frozen result dataclasses from the core."""
