"""Developer tools: benchmarks, documentation pictures and their generators, reference layouts.

Not part of the product and not in the wheel (pyproject.toml's package list names app, vpu_core and
resources only): they read the repository (tests/corpus, benchmarks/real_size, docs/) and run from a
clone, `python -m tools.bench`, `python -m tools.shots.screenshots`, `python -m tools.cli_doc`. The
product never imports them (an import contract); they import the product.
"""
