"""The accuracy story, as pictures: Analyse → the worst layer → its fixes → Apply → the card.

    python -m tools.shots.sensitivity_story [MODEL] [--eval FILE.py:fn] [--size 1280x720] [--out DIR]

Drives the real window (offscreen unless a display is set) as a user does — Analyse on the
Sensitivity dock, the worst layer's row, the fix with the most decibels, Apply — and saves the
window after each step (sensitivity_1_ranked.png, sensitivity_2_fixes.png,
sensitivity_3_applied.png, each with the F.json of `gui --screenshot`). Defaults: the trained
digits CNN of the tests and its top-1 metric.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from tools.shots.story import _save, _wait, open_window

ROOT = Path(__file__).resolve().parents[2]
DIGITS = ROOT / "tests" / "models" / "digits_cnn.py"
TOP1 = f"{ROOT / 'tests' / 'models' / 'digits_eval.py'}:top1"


def run_story(model: str, spec: str | None, size: tuple[int, int], out: Path) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["VPU_INSPECTOR_SETTINGS"] = str(Path(tempfile.mkdtemp(prefix="vpu-story-")) / "settings.ini")
    from vpu_core.config import RunConfig

    app, window = open_window(size)
    state, panel = window.state, window.sensitivity_panel
    state.eval_spec = spec
    window.runs.start(RunConfig(model=model))
    _wait(app, lambda: state.result is not None and not state.run.running and not state.predicted)
    window.sensitivity.show()                                    # 1: Analyse
    panel.run_button.click()
    _wait(app, lambda: state.sensitivity is not None and not window.sensitivity.jobs.is_running(), 900)
    app.processEvents()
    _save(window, out / "sensitivity_1_ranked.png")
    worst = panel.ops()[0].node                                  # 2: the worst layer's bar
    panel.layer_selected.emit(worst)
    _wait(app, lambda: panel.layer == worst and state.selection is not None)
    fixes = panel._fixes
    if fixes:
        panel.pick_fix(max(range(len(fixes)), key=lambda i: fixes[i].gain_db or 0.0))
    app.processEvents()
    _save(window, out / "sensitivity_2_fixes.png")
    panel.apply_button.click()                                   # 3: Apply
    card = window.graph_stack.card
    _wait(app, lambda: card.isVisible() and not state.run.running and window.sensitivity._applied is None, 900)
    app.processEvents()
    _save(window, out / "sensitivity_3_applied.png")
    window.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    size, out = (1280, 720), Path(".")
    spec: str | None = TOP1
    for flag in ("--size", "--out", "--eval"):
        if flag in args:
            i = args.index(flag)
            value = args[i + 1]
            del args[i:i + 2]
            if flag == "--size":
                w, h = value.lower().split("x")
                size = (int(w), int(h))
            elif flag == "--out":
                out = Path(value)
            else:
                spec = value or None
    out.mkdir(parents=True, exist_ok=True)
    model = args[0] if args else str(DIGITS)
    if model != str(DIGITS) and "--eval" not in (argv or sys.argv):
        spec = None
    return run_story(model, spec, size, out)


if __name__ == "__main__":
    sys.exit(main())
