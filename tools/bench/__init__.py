"""`python -m tools.bench`: the performance record's measurements (docs/performance.md), run from a
clone of the repository: the synthetic graphs, the zoo end to end, the first graph, the real-size
corpus, sweep, `--run`, `--ablate` and `--sensitivity` against their targets."""
