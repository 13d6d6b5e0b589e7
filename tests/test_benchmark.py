"""The benchmark's plumbing (not its timings: targets live in `vpu-inspector bench`, not in tests)."""
from app.graph_view.bench import measure_scene
from app.devtools.startup_bench import measure_window_startup
from vpu_core import bench as benchmark


def test_bench_graphs_reports_every_column():
    rows = benchmark.bench_graphs(sizes=(300,), repeats=1, scene_measure=measure_scene, with_dot=False)
    (row,) = rows
    assert row["nodes"] == 300 and row["edges"] > 300
    for key in ("layout_s", "scene_build_s", "first_frame_s", "pan_frame_s", "layout_to_frame_s",
                "group_toggle_s", "group_toggle_all_open_s"):
        assert row[key] > 0, key
    assert row["crossings"] >= 0 and row["rss_mib"] > 50
    table = benchmark.format_table(rows)
    assert "layout_ms" in table.splitlines()[0] and "synthetic-300" in table


def test_window_starts_without_torch():
    result = measure_window_startup(repeats=1)
    assert result["window_startup_s"] > 0
    assert result["torch_imported_at_startup"] is False


def test_bench_loop_reports_cold_warm_and_toggles():
    (row,) = benchmark.bench_loop(["conv_relu"], quantizers=("vpu",))
    assert row["graph"] == "conv_relu/vpu" and row["nodes"] > 0
    for key in ("cold_s", "warm_s", "back_s", "fold_toggle_s", "profile_change_s"):
        assert row[key] > 0, key
    assert row["back_s"] < row["cold_s"]
