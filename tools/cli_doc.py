"""Write docs/cli.md, the command-line reference, from the parsers themselves:

    python -m tools.cli_doc            # rewrite docs/cli.md
    python -m tools.cli_doc --stdout   # print it (tests/test_cli_doc.py compares the two)

Every subcommand of `vpu-inspector` (vpu_core.cli.build_parser: the headless commands and the
window's, which app/cli.py serves) with its usage and options, then the developer's `python -m
tools.bench`. The text is argparse's own help at a fixed width, so the page says exactly what
`--help` says; a new option changes the page only through this command.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
WIDTH = 100          # argparse wraps to $COLUMNS: fixed, so the page is the same on every terminal
REGENERATE = "python -m tools.cli_doc"
HEAD = f"""# Command-line reference

Generated from the parsers by `{REGENERATE}` (do not edit by hand: tests/test_cli_doc.py fails when
this page and the parsers differ, and that command brings it up to date). How to use the commands:
[the user guide](guide.md); what they promise: [the specification](spec.md), section 10.
"""


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    """(name, parser) of every subcommand, in the order the parser lists them, depth first."""
    out: list[tuple[str, argparse.ArgumentParser]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += [(name, sub), *((f"{name} {n}", p) for n, p in _subcommands(sub))]
    return out


def _section(title: str, parser: argparse.ArgumentParser) -> str:
    return f"## `{title}`\n\n```\n{parser.format_help().rstrip()}\n```\n"


def render() -> str:
    """docs/cli.md as the parsers describe the commands today."""
    os.environ["COLUMNS"] = str(WIDTH)
    from tools.bench.__main__ import build_parser as bench_parser
    from vpu_core.cli import build_parser

    parser = build_parser()
    sections = [_section("vpu-inspector", parser)]
    sections += [_section(f"vpu-inspector {name}", sub) for name, sub in _subcommands(parser)]
    bench = ("# Developer commands\n\nRun from a clone of the repository (they read its tests/ and "
             "benchmarks/ folders and are not in the wheel): the performance record's numbers, "
             "[performance.md](performance.md).\n")
    return "\n".join([HEAD, *sections, bench, _section("python -m tools.bench", bench_parser())])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    text = render()
    if "--stdout" in argv:
        sys.stdout.write(text)
    else:
        OUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
