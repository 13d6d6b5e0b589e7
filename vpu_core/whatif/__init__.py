"""What-if analyses: what each constraint costs, which kernel to add next, whether a subgraph pays.

    run_ablation(qm, baseline)        constraint ablation (re-quantizes; vpu_core.whatif.ablation)
    op_candidates(g, partition)       op-list what-if (re-partition only; .op_candidates)
    subgraph_economics(g, partition)  boundary bytes against MACs per VPU subgraph (.economics)
    profile_edit                      save a profile as TOML, diff two profiles, what needs re-quantizing

The session is the entry point for callers (`Session.ablate`); the analysis runs the cheap ones
with every inspection. Results are the frozen dataclasses of .results.
"""
