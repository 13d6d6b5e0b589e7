"""The window opens a sweep folder as a sortable table; double-clicking a run opens that model
with its quantizer, profile and the sweep's options."""
import json

from PySide6.QtCore import Qt


def _summary(folder, profile_path):
    def row(model, quantizer, status, share, cpu_ops, rules=(), reason=""):
        return {"model": model, "quantizer": quantizer, "profile": "vpu-default", "status": status,
                "reason": reason, "vpu_mac_share": share, "cpu_ops": cpu_ops,
                "cpu_ops_by_cause": {"op_list": cpu_ops} if cpu_ops else {}, "subgraphs": 1 if status == "ok" else None,
                "rules_broken": list(rules), "sqnr_db": 31.5 if status == "ok" else None, "seconds": 2.5,
                "spec": model, "profile_path": profile_path, "html": f"runs/{model}__{quantizer}.html"}

    rows = [row("conv_relu", "xnnpack", "ok", 1.0, 0, ("pow2_scale",)),
            row("resnet8", "vpu", "ok", 0.62, 3),
            row("broken", "vpu", "error", None, None, reason="Cannot load broken.py: syntax error on line 1.")]
    summary = {"rows": rows, "models": ["conv_relu", "resnet8", "broken"], "quantizers": ["vpu", "xnnpack"],
               "profiles": [{"label": "vpu-default", "path": profile_path}], "wall_seconds": 12.0,
               "options": {"calib_batches": 1, "seed": 3}}
    (folder / "summary.json").write_text(json.dumps(summary))
    return folder


def test_a_sweep_opens_as_a_sorted_table_and_a_double_click_runs_that_model(window, qtbot, tmp_path, profiles):
    profile = profiles.with_rule_off("shared_scale")
    folder = _summary(tmp_path, profile)
    assert window.sweep.open_sweep(str(folder))
    table = window.sweep_table
    assert window.sweep_dock.isVisible()
    assert [r.model for r in table.shown_rows()] == ["broken", "resnet8", "conv_relu"]   # by VPU MAC share
    from app.widgets.sweep_table import COLUMNS

    table.view.sortByColumn(COLUMNS.index("CPU ops"), Qt.SortOrder.DescendingOrder)   # numbers as numbers
    assert [r.model for r in table.shown_rows()] == ["resnet8", "conv_relu", "broken"]
    requested = []
    window.state.run_requested.connect(requested.append)
    index = table.proxy.index([r.model for r in table.shown_rows()].index("conv_relu"), 0)
    table.view.doubleClicked.emit(index)
    config = window.state.config
    assert (config.model, config.quantizer, config.profile, config.calib_batches, config.seed) == \
        ("conv_relu", "xnnpack", profile, 1, 3)
    assert requested == [True]
    qtbot.waitUntil(lambda: window.state.result is not None and window.state.result.config == config, timeout=180_000)


def test_a_folder_without_a_sweep_says_so(window, tmp_path, error_box):
    assert not window.sweep.open_sweep(str(tmp_path))
    box = error_box()
    assert "not a sweep folder" in box.text()
    box.close()
    assert not window.sweep_dock.isVisible()
    assert window.sweep_table.row_count() == 0
