"""The command line's Model Explorer parts: `export --format model-explorer` and `check --overlay`
(vpu_core.cli parses the arguments and calls these)."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.config import RunConfig
    from vpu_core.interop.overlay import Overlay
    from vpu_core.progress import RunContext
    from vpu_core.session import Session


def export_command(args: argparse.Namespace, config: RunConfig, ctx: RunContext) -> int:
    from vpu_core.interop.export import export_model_explorer
    from vpu_core.session import default_session

    done = export_model_explorer(default_session(), config, args.output, primary_targets(args),
                                 args.runs if args.run else None, ctx)
    print(f"wrote {done.folder}: {Path(done.program).name} ({done.nodes} nodes), {Path(done.graph_json).name} "
          f"and {len(done.node_data)} node-data files ({', '.join(Path(p).stem for p in done.node_data)})")
    print("open it in Model Explorer (pip install 'vpu-inspector[model-explorer]'):")
    print(f"  {done.command}")
    return 0


def primary_targets(args: argparse.Namespace) -> tuple[str, ...]:
    """The targets asked for, the primary one first (vpu_core.arguments.primary_target: the first
    --target, else the VPU)."""
    from vpu_core.arguments import primary_target

    return tuple(dict.fromkeys([primary_target(args), *(args.target or [])]))


def check_overlays(session: Session, config: RunConfig, analysis: Analysis, files: Sequence[str]) -> list[Overlay]:
    """`--overlay` files as values on `analysis`' nodes (Model Explorer's ids mapped back to ours,
    the program saved and loaded once, and only when a file uses them)."""
    if not files:
        return []
    from functools import cache

    from vpu_core.interop.export import adapter_id_map
    from vpu_core.interop.overlay import overlay

    ids = cache(lambda: adapter_id_map(session, config))
    return [overlay(path, analysis, ids) for path in files]
