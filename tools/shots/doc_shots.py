"""The documentation's pictures that need the window driven first, which `gui --screenshot` cannot take:

    python -m tools.shots.doc_shots [docs/screenshots] [NAME.png …] [--size 1280x720]

- predicted.png: the transformer's predicted partition while PT2E runs (a fresh result cache, so
  that the quantization runs; saved as soon as the predicted graph is drawn), its first CPU
  softmax selected;
- whatif_constraint_cost.png: What-if ▸ Cost after Run ablation on the transformer;
- whatif_profile_editor.png: What-if ▸ Profile with an applied edit (constraint pow2_scale off,
  max_shift 24) and a pending one (softmax.int added to the op list, not applied).

Offscreen unless a display is set; run it with FONTCONFIG_FILE=tests/fontconfig/fonts.conf for the
bundled fonts (tools.shots.screenshots takes the other pictures, each from a `gui` process).
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from tools.shots.story import _save, _wait, open_window

MODEL = "transformer"
SHOTS = ("predicted.png", "whatif_constraint_cost.png", "whatif_profile_editor.png")


def _window(size: tuple[int, int]):
    return open_window(size, "vpu-doc-profiles-")


def _select_cpu_softmax(app, window) -> None:
    result = window.state.result
    node = next(c.node for c in result.analysis.partition.cpu_nodes if c.op.startswith("softmax"))
    window.navigation.select_in("a", node)
    app.processEvents()


def predicted(out: Path, size: tuple[int, int]) -> None:
    from vpu_core.config import RunConfig

    os.environ["VPU_INSPECTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="vpu-doc-cache-")   # PT2E runs
    app, window = _window(size)
    window.runs.start(RunConfig(model=MODEL))
    _wait(app, lambda: window.state.result is not None and window.state.predicted)
    _select_cpu_softmax(app, window)
    _save(window, out / "predicted.png")
    window.runs.jobs.cancel()
    window.close()


def whatif(out: Path, size: tuple[int, int], only: set[str]) -> None:
    from PySide6.QtCore import Qt

    from app.widgets.profile_editor import OP_ROLE
    from app.widgets.whatif_panel import TAB_ABLATION, TAB_PROFILE
    from vpu_core.config import RunConfig

    app, window = _window(size)
    window.runs.start(RunConfig(model=MODEL))
    _wait(app, lambda: window.state.result is not None and not window.state.run.running
          and not window.state.predicted)
    whatif, panel = window.whatif, window.whatif_panel
    if "whatif_constraint_cost.png" in only:
        whatif.show(TAB_ABLATION)
        panel.chart.run_button.click()
        _wait(app, lambda: panel.chart.report is not None and not whatif.ablations.is_running())
        app.processEvents()
        _save(window, out / "whatif_constraint_cost.png")
    if "whatif_profile_editor.png" in only:
        whatif.show(TAB_PROFILE)
        editor = panel.editor
        editor.switches["pow2_scale"].setChecked(False)          # applied: quantizes again
        editor.max_shift.setValue(24)
        editor.apply_button.click()
        _wait(app, lambda: not window.state.run.running and not whatif.is_modified())
        editor.op_search.setText("soft")                           # pending: softmax.int added
        for i in range(editor.op_list.count()):
            item = editor.op_list.item(i)
            if item.data(OP_ROLE) == "softmax.int":
                item.setCheckState(Qt.CheckState.Checked)
        _wait(app, whatif.is_modified)
        app.processEvents()
        _save(window, out / "whatif_profile_editor.png")
    window.close()


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["VPU_INSPECTOR_SETTINGS"] = str(Path(tempfile.mkdtemp(prefix="vpu-doc-")) / "settings.ini")
    size = (1280, 720)
    if "--size" in args:
        i = args.index("--size")
        w, h = args[i + 1].lower().split("x")
        size = (int(w), int(h))
        del args[i:i + 2]
    out = Path(args[0] if args else "docs/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    only = set(args[1:]) or set(SHOTS)
    whatifs = only & {"whatif_constraint_cost.png", "whatif_profile_editor.png"}
    if whatifs and "predicted.png" in only:     # one window per process: its worker keeps its cache
        import subprocess

        size_arg = ["--size", f"{size[0]}x{size[1]}"]
        return max(subprocess.run([sys.executable, "-m", "tools.shots.doc_shots", str(out), *names, *size_arg]).returncode
                   for names in (sorted(whatifs), ["predicted.png"]))
    if whatifs:
        whatif(out, size, only)
    if "predicted.png" in only:
        predicted(out, size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
