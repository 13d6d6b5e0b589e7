"""Headless command line: argument parsing, `check` and `models`, and the one error path.

The GUI commands (gui, render, report) live in app/cli.py, which reuses this parser; importing
this module never loads Qt. Exit codes: 0 no violations, 1 violations found, 2 error (one clear
line on stderr, the traceback only with --debug).
"""
from __future__ import annotations

import argparse
import json
import sys
import traceback
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from vpu_core.arguments import (
    ATTACHED_RUN, add_run_options, add_runtime_options, add_target_option, attached_runs, config_from_args,
    positive, primary_target, window_size,
)
from vpu_core.errors import InspectorError, short_reason
from vpu_core.graph.metrics import METRICS

if TYPE_CHECKING:
    from vpu_core.analysis.results import Note
    from vpu_core.config import RunConfig

EXIT_OK, EXIT_VIOLATIONS, EXIT_ERROR = 0, 1, 2
Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vpu-inspector", description=(
        "Quantize a PyTorch model with PT2E and inspect its Q/DQ graph against a VPU's rules."))
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command")
    check = sub.add_parser("check", help="headless: export, quantize, check, partition; report")
    add_run_options(check)
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.add_argument("--save-program", metavar="F.pt2", help="save the converted Q/DQ program")
    check.add_argument("--xnnpack-delegation", action="store_true",
                       help="also lower with ExecuTorch's XnnpackPartitioner and report what it took "
                            "(the same as --target xnnpack)")
    add_target_option(check)
    from vpu_core.sensitivity.options import add_sensitivity_options

    add_sensitivity_options(check)
    check.add_argument("--int-sim", action="store_true",
                       help="also run the VPU partitions in integer arithmetic (JSON \"int_sim\")")
    check.add_argument("--ablate", action="store_true",
                       help="also quantize once per constraint 2-8 relaxed and report what each costs")
    check.add_argument("--stages", action="store_true", help=(
        "also compare float → Q/DQ → the first --target's own numerics (default vpu: its integer "
        "simulation; xnnpack: the runtime inside its delegates) node by node: error added per stage "
        "and the first divergent op (JSON \"stages\")"))
    add_runtime_options(check)
    check.add_argument("--overlay", action="append", default=[], metavar="FILE", help=(
        "a Model Explorer node-data file (e.g. a latency measured on the device) read as per-node values "
        "on this graph, listed in the report (JSON \"overlays\"); repeatable"))
    export = sub.add_parser("export", help=(
        "XNNPACK: write the ExecuTorch program (.pte); VPU: a hand-off folder (manifest.json + weights.npz)"))
    add_run_options(export)
    export.add_argument("-o", "--output", required=True, metavar="F",
                        help="F.pte (--target xnnpack) or a folder (--target vpu, --format model-explorer)")
    export.add_argument("--format", choices=("target", "model-explorer"), default="target", help=(
        "target: the target's own artefact; model-explorer: a folder for Google's Model Explorer (the "
        "program .pt2, graph.json and one node-data file per overlay, docs/model-explorer.md)"))
    add_target_option(export, what=(
        "write the artefact of this target (default: the target of the quantizer); with --format "
        "model-explorer, the placement overlay of each (the first is the primary)"))
    add_runtime_options(export)
    gui = sub.add_parser("gui", help="open the inspector window on MODEL")
    add_run_options(gui, model_required=False)
    gui.add_argument("--screenshot", metavar="F.png",
                     help="open, run, save a screenshot of the whole window once the result is shown, exit")
    gui.add_argument("--size", metavar="WxH", type=window_size, help="window size, e.g. 1280x720")
    gui.add_argument("--compare", metavar="SPEC", help=(
        "open in compare mode, side B as for report --compare; a target's name (ethos-u55-128) or "
        "target=NAME among the settings colours B by that target (the VPU beside an Ethos-U)"))
    gui.add_argument("--hide-qdq", action="store_true", help="fold quantize → dequantize pairs into their edges")
    gui.add_argument("--metric", choices=tuple(METRICS), help=(
        "colour ops by this metric on a gradient (npu_cycles: Vela's NPU cycles under an Ethos-U --target)"))
    gui.add_argument("--xnnpack-delegation", action="store_true",
                     help="colour by what ExecuTorch's XnnpackPartitioner delegates (--target xnnpack)")
    add_target_option(gui, several=False, what="colour the graph by the verdict of this target")
    gui.add_argument("--sweep", metavar="DIR", help="also show this sweep folder in the Sweep dock")
    gui.add_argument("--select", metavar="NODE", help="select NODE (b:NODE for compare side B) once shown")
    gui.add_argument("--focus", action="store_true", help="focus mode: only the canvas (F11)")
    gui.add_argument("--presentation", action="store_true",
                     help="presentation mode: large labels, thick edges, scaled legend (F5)")
    gui.add_argument("--run", action="store_true",
                     help="Run ▸ Run on this CPU from the start (colour by the measured µs)")
    gui.add_argument("--tab", action="append", default=[], metavar="TAB",
                     choices=("violations", "partition", "requant", "compare", "scales", "shifts",
                              "selected", "pow2", "profile", "limits", "cost", "next-kernel"),
                     help="show this dock tab (repeatable)")
    render = sub.add_parser("render", help="headless image of the graph view (.png or .svg)")
    add_run_options(render)
    render.add_argument("-o", "--output", required=True, metavar="F")
    render.add_argument("--unfold", action="store_true", help="show parameters as separate nodes")
    render.add_argument("--collapse", type=positive, metavar="DEPTH", help=(
        "draw module groups at DEPTH and deeper collapsed (1 = the top-level blocks)"))
    render.add_argument("--hide-qdq", action="store_true",
                        help="fold quantize/dequantize pairs into the edges they sit on")
    report = sub.add_parser("report", help="one-file HTML report for stakeholders")
    add_run_options(report)
    report.add_argument("-o", "--output", required=True, metavar="F.html")
    report.add_argument("--int-sim", action="store_true",
                        help="add the integer simulation of the VPU partitions")
    report.add_argument("--compare", metavar="SPEC", help=(
        "add a comparison with a second configuration: a quantizer (xnnpack) or "
        "KEY=VALUE,... e.g. 'quantizer=xnnpack,per_tensor=1'"))
    report.add_argument("--ablate", action="store_true",
                        help="add what each constraint 2-8 costs (quantizes once per constraint)")
    add_target_option(report, what="add the verdict of the graph")
    add_runtime_options(report)
    sub.add_parser("models", help="list the built-in model zoo")
    from vpu_core.sweep.cli import add_sweep_parser
    from vpu_core.agree import add_agree_parser
    from vpu_core.diff_cli import add_diff_parser

    add_sweep_parser(sub)
    add_agree_parser(sub)
    add_diff_parser(sub)
    return parser


def cmd_models(args: argparse.Namespace) -> int:
    from vpu_core.zoo import DEFAULT_MODEL, ZOO

    width = max(len(n) for n in ZOO)
    for name, entry in ZOO.items():
        mark = " (default)" if name == DEFAULT_MODEL else ""
        print(f"{name:<{width}}  {entry.description}{mark}")
    return EXIT_OK


def _preflight(config: RunConfig, targets: Sequence[str] = ()) -> None:
    """Missing files and a target that cannot judge the quantizer's graph fail here, before torch
    is imported; notes on ignored options go to stderr."""
    from vpu_core.preflight import preflight
    from vpu_core.targets import check_target

    for note in preflight(config):
        print(f"vpu-inspector: note: {note}", file=sys.stderr)
    if not config.model.endswith(".pt2"):      # a program file names its own quantizer
        for name in targets:
            missing = check_target(name, config.quantizer, config.dynamic_batch).unavailable()
            if missing:             # the extra that brings its backend, in one sentence
                raise InspectorError(missing)


def targets_from_args(args: argparse.Namespace) -> tuple[str, ...]:
    """The targets `check` / `report` judge, the primary first (the first --target, else the VPU),
    then the other --target, and --xnnpack-delegation (the older spelling of judging XNNPACK beside
    the primary). The VPU is judged only when it is one of them."""
    asked = args.target or []
    asked = [asked] if isinstance(asked, str) else list(asked)
    extra = ["xnnpack"] if getattr(args, "xnnpack_delegation", False) else []
    return tuple(dict.fromkeys([primary_target(args), *asked, *extra]))


def cmd_check(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    targets = targets_from_args(args)
    _preflight(config, targets)
    if args.save_program:
        from vpu_core.files import check_output_path

        check_output_path(args.save_program, (".pt2",), "the program")
    from vpu_core.reports.json_report import inspection_to_json
    from vpu_core.reports.check_text import check_text, exit_status
    from vpu_core.progress import RunContext, TerminalProgress
    from vpu_core.session import STAGE_TITLES, default_session

    from vpu_core.sensitivity.options import options_from_args

    session = default_session()
    overlay_files = getattr(args, "overlay", [])
    if overlay_files:
        from vpu_core.interop.overlay import read_results

        for path in overlay_files:           # a file that is no node data fails before any work
            read_results(path)
    ablate = getattr(args, "ablate", False)
    if ablate:
        from vpu_core.whatif.ablation import check_quantizer

        check_quantizer(config)        # refuse before quantizing anything
    sensitivity_options = options_from_args(args, targets)
    if sensitivity_options.metric:          # a function that cannot be called fails before any work
        from vpu_core.sensitivity.user_metric import load_metric

        load_metric(sensitivity_options.metric)
    from vpu_core.worker.ending import LastStage, exits_as_errors

    terminal = TerminalProgress(STAGE_TITLES)   # stderr, terminals only
    progress = LastStage(terminal)
    try:
        # the model's code runs in this process: its os._exit / sys.exit is an error, not our exit code
        with exits_as_errors(config.model, lambda: progress.stage):
            inspection = session.inspect(config, view=None, progress=progress, targets=targets,
                                         int_sim=args.int_sim, whatif=True,
                                         runtime_runs=attached_runs(targets, args.runs if args.run else None))
            analysis, attached = inspection.analysis, inspection.attached
            runs = ({name: session.target_run(config, name, args.runs, ctx=RunContext(progress))
                     for name in targets if name not in ATTACHED_RUN} if args.run else {})
            ablation = session.ablate(config, progress) if ablate else None
            sensitivity = session.sensitivity(config, sensitivity_options, RunContext(progress)) \
                if args.sensitivity else None
            # the primary target's numerics: the first --target named (the VPU when none is)
            stages = session.stages(config, targets[0], RunContext(progress)) \
                if getattr(args, "stages", False) else None
    finally:
        terminal.close()
    if args.save_program:
        session.save_program(config, Path(args.save_program))
    from vpu_core.interop.commands import check_overlays

    overlays = check_overlays(session, config, analysis, overlay_files)
    if args.format == "json":
        out = inspection_to_json(inspection, runs)
        if overlays:
            from vpu_core.interop.overlay import overlay_json

            out["overlays"] = [overlay_json(o) for o in overlays]
        if ablation is not None:
            from vpu_core.reports.json_report import ablation_to_json

            out["ablation"], out["ablation_seconds"] = ablation_to_json(ablation), round(ablation.seconds, 2)
        if sensitivity is not None:
            from vpu_core.reports.sensitivity import sensitivity_to_json

            out["sensitivity"] = sensitivity_to_json(sensitivity)
        if stages is not None:
            from vpu_core.reports.stages import stages_to_json

            out["stages"] = stages_to_json(stages)
        print(json.dumps(out, indent=1))
    else:
        text = check_text(inspection, runs)
        if ablation is not None:
            from vpu_core.reports.whatif_text import ablation_lines

            text += "\n\n" + "\n".join(ablation_lines(ablation))
        if sensitivity is not None:
            from vpu_core.reports.sensitivity import sensitivity_lines

            text += "\n\n" + "\n".join(sensitivity_lines(sensitivity))
        if overlays:
            from vpu_core.interop.overlay import overlay_lines

            text += "".join("\n\n" + "\n".join(overlay_lines(o, analysis)) for o in overlays)
        if stages is not None:
            from vpu_core.reports.stages import stages_lines

            text += "\n\n" + "\n".join(stages_lines(stages))
        print(text)
    for line in note_lines(analysis.notes):
        print(f"vpu-inspector: note: {line}", file=sys.stderr)
    if attached.int_sim is not None and attached.int_sim.refused:
        # Not an error: the check itself succeeded (the refusal is data in the report, and the
        # rule it names is broken in the graph, so the exit code already says "violations").
        print(f"vpu-inspector: note: {attached.int_sim.refused}", file=sys.stderr)
    if attached.runtime is not None and attached.runtime.refused:
        # The same: the check succeeded, what ExecuTorch cannot run is reported with it.
        print(f"vpu-inspector: note: {attached.runtime.refused}", file=sys.stderr)
    for name, run in runs.items():
        if run.refused:
            print(f"vpu-inspector: note: {inspection.targets[name].title}: {run.refused}", file=sys.stderr)
    return exit_status(inspection)


def note_lines(notes: Sequence[Note]) -> list[str]:
    """The notes for stderr: the first of each kind, with how many more are like it (the report
    and the JSON have them all)."""
    first: dict[str, tuple[Note, int]] = {}
    for n in notes:
        note, count = first.get(n.kind, (n, 0))
        first[n.kind] = (note, count + 1)
    return [note.message + (f" (and {count - 1} more like it: see the report)" if count > 1 else "")
            for note, count in first.values()]


def cmd_export(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    if args.format == "target" and len(args.target) > 1:
        raise InspectorError("export writes one target's artefact: give one --target "
                             "(or --format model-explorer, which shows the placement of several).")
    if args.format == "target" and args.run:
        raise InspectorError("--run adds the measured µs overlay of --format model-explorer; "
                             "a target's artefact does not use it.")
    _preflight(config, args.target)
    from vpu_core.files import check_output_folder, check_output_path

    if args.output.endswith(".pte"):        # XNNPACK / Ethos-U: a program
        check_output_path(args.output, (".pte",), "the ExecuTorch program")
    elif args.format == "target":           # the VPU: a hand-off folder (its parent must exist)
        check_output_folder(args.output, "the hand-off")
    else:                                   # Model Explorer's files: a folder made with its parents
        check_output_folder(args.output, "the Model Explorer files", parents=True)
    from vpu_core.progress import RunContext, TerminalProgress
    from vpu_core.session import STAGE_TITLES, default_session

    progress = TerminalProgress(STAGE_TITLES)
    try:
        if args.format == "model-explorer":
            from vpu_core.interop.commands import export_command

            return export_command(args, config, RunContext(progress))
        done = default_session().export(config, args.output, RunContext(progress),
                                        args.target[0] if args.target else None)
    finally:
        progress.close()
    what = "ExecuTorch program" if done.kind == "pte" else "VPU hand-off"
    print(f"wrote {done.path} ({what}, {done.bytes} bytes; {done.detail})")
    return EXIT_OK


def _elsewhere(module: str, name: str) -> Handler:
    """A command implemented in its own module, imported when it runs."""
    def handler(args: argparse.Namespace) -> int:
        import importlib

        return getattr(importlib.import_module(module), name)(args)
    return handler


HEADLESS: dict[str, Handler] = {"check": cmd_check, "models": cmd_models, "export": cmd_export,
                                "sweep": _elsewhere("vpu_core.sweep.cli", "cmd_sweep"),
                                "agree": _elsewhere("vpu_core.agree", "cmd_agree"),
                                "diff": _elsewhere("vpu_core.diff_cli", "cmd_diff")}


def error_line(exc: BaseException) -> str:
    """The one line a user sees for any exception."""
    if isinstance(exc, InspectorError):
        return f"vpu-inspector: error: {exc.message}"
    return (f"vpu-inspector: internal error: {type(exc).__name__}: {short_reason(exc)} "
            "(run with --debug for the traceback)")


def install_thread_excepthook(debug: bool) -> None:
    """An exception escaping a worker thread gets the same one line, never a silent death."""
    import threading

    def hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        if debug:
            traceback.print_exception(args.exc_type, args.exc_value, args.exc_traceback)
        print(error_line(args.exc_value or RuntimeError("unknown error")), file=sys.stderr)

    threading.excepthook = hook


def main(argv: list[str] | None = None, handlers: Mapping[str, Handler] | None = None) -> int:
    warnings.filterwarnings("ignore")  # library deprecation chatter is not for our users
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # bare `vpu-inspector` opens the GUI on the default model
        args = parser.parse_args([*argv, "gui"])
    install_thread_excepthook(args.debug)
    if getattr(args, "no_cache", False):
        from vpu_core.session import default_session

        default_session().set_disk_cache(False)
    handler = {**HEADLESS, **(handlers or {})}.get(args.command)
    if handler is None:
        parser.error(f"the '{args.command}' command is not available in this build")
    return run_guarded(handler, args)


def run_guarded(handler: Handler, args: argparse.Namespace) -> int:
    """Run a command; turn every failure into one line on stderr and exit code 2."""
    try:
        return handler(args)
    except KeyboardInterrupt:
        print("vpu-inspector: interrupted", file=sys.stderr)
    except Exception as exc:  # InspectorError: the user's problem; anything else: a bug, same line
        if args.debug:
            traceback.print_exc()
            detail = getattr(exc, "detail", "")
            if detail:
                print(detail, file=sys.stderr)
        print(error_line(exc), file=sys.stderr)
    return EXIT_ERROR
