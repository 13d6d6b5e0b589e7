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
    from app.main_window import run_gui

    return run_gui(core_cli.config_from_args(args))


def cmd_render(args: argparse.Namespace) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.render import render_model

    render_model(core_cli.config_from_args(args), args.output, fold_params=not args.unfold)
    print(f"wrote {args.output}")
    return core_cli.EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.report import check_output, report_model
    from vpu_core.compare import config_variant

    output = check_output(args.output)
    config = core_cli.config_from_args(args)
    other = config_variant(config, args.compare) if args.compare else None
    report_model(config, output, compare_config=other)
    print(f"wrote {output}")
    return core_cli.EXIT_OK


def main(argv: list[str] | None = None) -> int:
    handlers = {"gui": cmd_gui, "render": cmd_render, "report": cmd_report}
    return core_cli.main(argv, handlers)


if __name__ == "__main__":
    sys.exit(main())
