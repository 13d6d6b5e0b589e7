"""`python -m tools.bench [options]`: the performance record's numbers (docs/performance.md), as a
table or JSON. A developer's command, run from a clone: the rows read the repository (tests/corpus,
benchmarks/real_size) and time the product from outside, so it is not part of `vpu-inspector` nor
of the wheel. Bad arguments are one sentence and exit 2, as on `vpu-inspector`.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from vpu_core.arguments import positive
from vpu_core.cli import EXIT_OK, run_guarded


def build_parser() -> argparse.ArgumentParser:
    bench = argparse.ArgumentParser(prog="python -m tools.bench", description=(
        "Benchmark: layout, rendering and every zoo model end to end; or only the rows an option names."))
    bench.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    bench.add_argument("--json", action="store_true", help="machine-readable output")
    bench.add_argument("--quick", action="store_true", help="fewer repeats and sizes")
    bench.add_argument("--ablate", action="store_true",
                       help="only time `check resnet8 --ablate` (target: 60 s)")
    bench.add_argument("--sensitivity", nargs="*", metavar="MODEL", default=None,
                       help="only time `check MODEL --sensitivity` against the PTQ it analyses (default: the corpus "
                            "MobileViT; target: at most 2x)")
    bench.add_argument("--first-graph", nargs="*", metavar="MODEL", dest="first_graph",
                       help="only the first-graph rows: cold / warm launches against the floor (torch, "
                            "torch._dynamo, the model and its export in a fresh process; default "
                            "models: resnet8 and the corpus BERT when present)")
    bench.add_argument("--repeats", type=positive, default=None, metavar="N",
                       help="rounds side by side (medians): of floor / cold / warm for the first-graph rows "
                            "(default 3), of floor / check / window cold / warm for the real-size rows "
                            "(default 1), of the sweep against its checks (default 1)")
    bench.add_argument("--first-only", action="store_true", dest="first_only",
                       help="first-graph rows: each cold launch ends at its first graph, no warm launch "
                            "(the ratio to the floor of a real-size model in seconds, not minutes)")
    bench.add_argument("--real-size", nargs="*", metavar="MODEL", dest="real_size", default=None,
                       help="the real-size corpus (benchmarks/real_size; default: all five): floor, check "
                            "cold, window cold and warm, peak memory, side by side")
    bench.add_argument("--run", nargs="*", metavar="MODEL", default=None,
                       help="only time `check MODEL --quantizer xnnpack` against the same with --run, cold "
                            "and warm cache, medians of 3 (default resnet8; target: at most 3x)")
    bench.add_argument("--stages", nargs="*", metavar="MODEL", default=None, help=(
        "only the stages rows: `check MODEL --stages` against `check MODEL` in fresh processes (target: at "
        "most 2x; default resnet8 and a corpus CNN) and seeded x8 scales located by the first divergent op "
        "(target: 9 of 10; default the zoo and three corpus models)"))
    bench.add_argument("--arm", nargs="*", metavar="MODEL", default=None,
                       help="only time `check MODEL --quantizer ethos-u --target ethos-u55-128` against `check "
                            "MODEL`, fresh processes, empty caches, with the Arm stages (default: three held-out "
                            "corpus models; --repeats rounds, medians; target: at most 2x)")
    bench.add_argument("--loop", nargs="+", metavar="MODEL",
                       help="models for the cold / warm / toggle rows (default: the zoo)")
    bench.add_argument("--sweep", action="store_true", help=(
        "only time a sweep of 4 models x 2 quantizers with --workers 2 against the same 8 `check` "
        "runs one after another (target: 0.75x)"))
    return bench


def cmd_bench(args: argparse.Namespace) -> int:
    """Layout / scene / frame times on synthetic graphs, then every zoo model end to end; or only
    the rows one option asks for."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from tools.bench.scene import measure_scene
    from tools.bench.startup import measure_window_startup
    from tools.bench import core as benchmark

    if getattr(args, "run", None) is not None:
        from tools.bench.runtime import bench_runtime

        rows = bench_runtime(tuple(args.run) or ("resnet8",))
        print(json.dumps(rows, indent=1) if args.json else benchmark.format_table(rows))
        return EXIT_OK
    if getattr(args, "arm", None) is not None:
        from tools.bench.arm import DEFAULT_MODELS, bench_arm

        rows = bench_arm(tuple(args.arm) or DEFAULT_MODELS, repeats=_rounds(args, 1))
        print(json.dumps(rows, indent=1) if args.json else benchmark.format_table(rows))
        return EXIT_OK
    if getattr(args, "sweep", False):
        from tools.bench.sweep import bench_sweep, format_rows

        rows = bench_sweep([sys.executable, "-m", "app.cli"], repeat=_rounds(args, 1))
        print(json.dumps(rows, indent=1) if args.json else format_rows(rows))
        return EXIT_OK
    if getattr(args, "stages", None) is not None:
        from tools.bench.stages import CORPUS, bench_faults, bench_stages_cost
        from vpu_core.zoo import ZOO

        cost = bench_stages_cost(tuple(args.stages) or ("resnet8", CORPUS[1]), _rounds(args, 1))
        faults = bench_faults(tuple(args.stages) or (*ZOO, *CORPUS))
        print(json.dumps({"cost": cost, "faults": faults}, indent=1) if args.json else
              benchmark.format_table(cost) + "\n\n" + benchmark.format_table(faults))
        return EXIT_OK
    if getattr(args, "sensitivity", None) is not None:
        rows = benchmark.bench_sensitivity(tuple(args.sensitivity) or (benchmark.MOBILEVIT,))
        print(json.dumps(rows, indent=1) if args.json else benchmark.format_table(rows))
        return EXIT_OK
    if getattr(args, "ablate", False):
        rows = benchmark.bench_ablation()
        print(json.dumps(rows, indent=1) if args.json else benchmark.format_table(rows))
        return EXIT_OK
    if getattr(args, "first_graph", None) is not None:
        rows = _first_graph_rows(args.first_graph, _rounds(args, 3), args.first_only)
        print(json.dumps(rows, indent=1) if args.json else _FIRST_GRAPH_TITLE + benchmark.format_table(rows))
        return EXIT_OK
    if getattr(args, "real_size", None) is not None:
        from tools.bench.real_size import MODELS, bench_real_size

        rows = bench_real_size(tuple(args.real_size) or MODELS, _rounds(args, 1))
        print(json.dumps(rows, indent=1) if args.json else _REAL_SIZE_TITLE + benchmark.format_table(rows))
        return EXIT_OK
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
        return EXIT_OK
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
    return EXIT_OK


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

    from tools.bench.first_graph import measure_first_graph

    if not models:
        bert = Path(__file__).resolve().parents[2] / "tests" / "corpus" / "bert_text.py"
        models = ["resnet8", *([str(bert)] if bert.is_file() else [])]
    from vpu_core.preflight import check_model_spec

    for model in models:            # a bad MODEL is one sentence before any probe starts
        check_model_spec(model)
    return [measure_first_graph(m, repeats=repeats, first_only=first_only) for m in models]


def _plot_zoom() -> list[dict]:
    from tools.bench.plot_zoom import measure_plot_zoom
    from vpu_core.config import RunConfig
    from vpu_core.session import default_session

    return measure_plot_zoom(default_session().inspect(RunConfig("resnet8"), view=None).analysis)


def _scene_columns(measure_scene):
    keep = ("scene_build_s", "first_frame_s", "pan_frame_s", "zoomed_out_pan_frame_s", "fit_first_frame_s",
            "fit_frame_s")
    return lambda model, layout: {k: v for k, v in measure_scene(model, layout).items() if k in keep}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    return run_guarded(cmd_bench, args)


if __name__ == "__main__":
    sys.exit(main())
