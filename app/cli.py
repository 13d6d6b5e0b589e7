"""The `vpu-inspector` entry point: headless commands from vpu_core.cli plus the Qt ones.

Qt is imported only inside the gui / render / report handlers, so `check` and `models` start
without it.
"""
from __future__ import annotations

import argparse
import os
import sys

from vpu_core import cli as core_cli


def cmd_gui(args: argparse.Namespace) -> int:
    from app.window.launch import GuiOptions, run_gui
    from vpu_core.arguments import compare_spec

    config = core_cli.config_from_args(args)
    target = "xnnpack" if args.xnnpack_delegation and not args.target else args.target
    if target:                  # one sentence and exit 2 before the window, as `check` does
        from vpu_core.errors import InspectorError
        from vpu_core.targets import check_target

        missing = check_target(target, config.quantizer, config.dynamic_batch).unavailable()
        if missing:
            raise InspectorError(missing)
    compare = compare_spec(config, args.compare) if args.compare else None   # (B, B's target)
    options = GuiOptions(screenshot=args.screenshot, size=args.size,
                         compare=compare[0] if compare else None,
                         compare_colour_by=compare[1] if compare else None,
                         colour_by=None if target in (None, "vpu") else target, metric=args.metric, hide_qdq=args.hide_qdq,
                         select=args.select,
                         tabs=tuple(args.tab), sweep=args.sweep, focus=args.focus,
                         presentation=args.presentation, measure=args.run)
    return run_gui(config, options)


def cmd_render(args: argparse.Namespace) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.export.render import render_model

    render_model(core_cli.config_from_args(args), args.output, fold_params=not args.unfold,
                 hide_qdq=args.hide_qdq, collapse=args.collapse)
    print(f"wrote {args.output}")
    return core_cli.EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.export.report import check_output, report_model
    from vpu_core.compare import config_variant

    output = check_output(args.output)
    config = core_cli.config_from_args(args)
    other = config_variant(config, args.compare) if args.compare else None
    report_model(config, output, compare_config=other, int_sim=args.int_sim, ablate=args.ablate,
                 runtime_runs=args.runs if args.run else None, targets=core_cli.targets_from_args(args))
    print(f"wrote {output}")
    return core_cli.EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    """Layout / scene / frame times on synthetic graphs, then every zoo model end to end."""
    import json

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.graph_view.bench import measure_scene
    from app.devtools.startup_bench import measure_window_startup
    from vpu_core import bench as benchmark

    if getattr(args, "run", None) is not None:
        from vpu_core.targets.xnnpack.bench import bench_runtime

        rows = bench_runtime(tuple(args.run) or ("resnet8",))
        print(json.dumps(rows, indent=1) if args.json else benchmark.format_table(rows))
        return core_cli.EXIT_OK
    if getattr(args, "sweep", False):
        from vpu_core.sweep.bench import bench_sweep, format_rows

        rows = bench_sweep([sys.executable, "-m", "app.cli"], repeat=args.repeat)
        print(json.dumps(rows, indent=1) if args.json else format_rows(rows))
        return core_cli.EXIT_OK
    if getattr(args, "sensitivity", None) is not None:
        rows = benchmark.bench_sensitivity(tuple(args.sensitivity) or (benchmark.MOBILEVIT,))
        print(json.dumps(rows, indent=1) if args.json else benchmark.format_table(rows))
        return core_cli.EXIT_OK
    if getattr(args, "ablate", False):
        rows = benchmark.bench_ablation()
        print(json.dumps(rows, indent=1) if args.json else benchmark.format_table(rows))
        return core_cli.EXIT_OK
    if getattr(args, "first_graph", None) is not None:
        rows = _first_graph_rows(args.first_graph, _rounds(args, 3), args.first_only)
        print(json.dumps(rows, indent=1) if args.json else _FIRST_GRAPH_TITLE + benchmark.format_table(rows))
        return core_cli.EXIT_OK
    if getattr(args, "real_size", None) is not None:
        from app.devtools.real_size_bench import MODELS, bench_real_size

        rows = bench_real_size(tuple(args.real_size) or MODELS, _rounds(args, 1))
        print(json.dumps(rows, indent=1) if args.json else _REAL_SIZE_TITLE + benchmark.format_table(rows))
        return core_cli.EXIT_OK
    sizes = benchmark.SIZES[:2] if args.quick else benchmark.SIZES
    graphs = benchmark.bench_graphs(sizes, repeats=1 if args.quick else 3, scene_measure=_scene_columns(measure_scene))
    startup = measure_window_startup()
    first = _first_graph_rows(["resnet8"] if args.quick else [], 1 if args.quick else _rounds(args, 3))
    responsive = {"cancel_latency_s": benchmark.bench_cancel()}
    zoo = benchmark.bench_zoo(models=("conv_relu", "resnet8") if args.quick else None)
    loop = benchmark.bench_loop(args.loop or (("conv_relu", "resnet8") if args.quick else None))
    plots = _plot_zoom()
    if args.json:
        print(json.dumps({"graphs": graphs, "zoo": zoo, "loop": loop, "startup": startup,
                          "first_graph": first, "responsiveness": responsive,
                          "plot_zoom": plots, "peak_rss_mib": benchmark.peak_rss_mib()}, indent=1))
        return core_cli.EXIT_OK
    print("Synthetic Q/DQ graphs (median of runs; times in ms)")
    print(benchmark.format_table(graphs))
    print("\nZoo models end to end (times in ms; analyze = check + partition + shifts + statistics;"
          "\nanalyze_pct_of_ptq = analyze / (export+prepare+calibrate+convert); sqnr = the float-vs-quantized"
          "\nforward passes, measured separately; whatif = the op-list candidates and economics, computed when"
          "\nasked for: check, report, the window's What-if dock)")
    print(benchmark.format_table(zoo))
    print("\nThe inspection loop (times in ms; cold = nothing cached, warm = a new launch reading the"
          "\ndisk cache, back = the same configuration again in one session, fold_toggle / profile_change"
          "\n= a new view / a shift-range profile without new quantization)")
    print(benchmark.format_table(loop))
    print("\n" + _FIRST_GRAPH_TITLE + benchmark.format_table(first))
    print(f"\ncancel during convert → the run stopped: {responsive['cancel_latency_s'] * 1000:.0f} ms")
    print("\nPlot zoom (resnet8; 60 wheel notches out, then 60 in, each repainted; target: every"
          "\nrepaint under 50 ms)")
    print(benchmark.format_table(plots))
    print(f"\nwindow on screen {startup['window_startup_s'] * 1000:.0f} ms after launch "
          f"(torch imported at start-up: {startup['torch_imported_at_startup']}); "
          f"peak resident memory of this benchmark: {benchmark.peak_rss_mib():.0f} MiB")
    return core_cli.EXIT_OK


_FIRST_GRAPH_TITLE = ("First graph after launch, fresh processes (ms): first_graph_floor = a process that imports "
                      "torch and torch._dynamo,\nbuilds the model and exports it; first_graph_cold = the predicted "
                      "partition painted (empty cache),\nfinal_graph_cold = the quantized one, settled_cold = with "
                      "its integer simulation and what-if; first_graph_warm = the\nfinal analysis painted from "
                      "the disk cache; gui_max_stall = the event loop's longest gap (cold run); medians of --repeats rounds\n")
_REAL_SIZE_TITLE = ("The real-size corpus, side by side (fresh processes, empty caches; s and MiB): floor, check "
                    "cold, the window cold\n(first = predicted graph painted, final = quantized, settled = "
                    "follow-ups) and warm; peak memory of check (RSS)\nand of the window with its worker "
                    "(PSS and RSS sums of its process tree); final_over_target = final / (1.1 × check + 3 s)\n")


def _rounds(args: argparse.Namespace, default: int) -> int:
    """--repeats, or the default of the rows asked for (3 first-graph rounds, 1 real-size round)."""
    return default if args.repeats is None else args.repeats


def _first_graph_rows(models: list[str], repeats: int, first_only: bool = False) -> list[dict]:
    from pathlib import Path

    from app.devtools.first_graph_bench import measure_first_graph

    if not models:
        bert = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "bert_text.py"
        models = ["resnet8", *([str(bert)] if bert.is_file() else [])]
    from vpu_core.preflight import check_model_spec

    for model in models:            # a bad MODEL is one sentence before any probe starts
        check_model_spec(model)
    return [measure_first_graph(m, repeats=repeats, first_only=first_only) for m in models]


def _plot_zoom() -> list[dict]:
    from app.devtools.plot_bench import measure_plot_zoom
    from vpu_core.config import RunConfig
    from vpu_core.session import default_session

    return measure_plot_zoom(default_session().inspect(RunConfig("resnet8"), view=None).analysis)


def _scene_columns(measure_scene):
    keep = ("scene_build_s", "first_frame_s", "pan_frame_s", "zoomed_out_pan_frame_s", "fit_first_frame_s",
            "fit_frame_s")
    return lambda model, layout: {k: v for k, v in measure_scene(model, layout).items() if k in keep}


def main(argv: list[str] | None = None) -> int:
    handlers = {"gui": cmd_gui, "render": cmd_render, "report": cmd_report,
                "bench": cmd_bench}
    return core_cli.main(argv, handlers)


if __name__ == "__main__":
    sys.exit(main())
