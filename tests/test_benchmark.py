"""The benchmark's plumbing (not its timings: targets live in `python -m tools.bench`, not in tests)."""
from pathlib import Path

import pytest

from tools.bench.scene import measure_scene
from tools.bench.startup import measure_window_startup
from tools.bench import core as benchmark

CORPUS = Path(__file__).parent / "corpus"


@pytest.mark.parametrize("argv, needle", [
    (["--real-size", "no_such_model"], "no real-size model 'no_such_model'"),
    (["--first-graph", "/nonexistent.py"], "Cannot load /nonexistent.py: no such file."),
])
def test_bad_bench_arguments_exit_2(capsys, argv, needle):
    from tools.bench.__main__ import main

    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_bench_graphs_reports_every_column():
    rows = benchmark.bench_graphs(sizes=(300,), repeats=1, scene_measure=measure_scene, with_dot=False,
                                  with_dagre=False)
    assert [row["graph"] for row in rows] == ["synthetic-300", "fx-300"]     # both shapes
    for row in rows:
        assert row["nodes"] == 300 and row["edges"] > 300
        for key in ("layout_s", "scene_build_s", "first_frame_s", "pan_frame_s", "layout_to_frame_s",
                    "group_toggle_s", "group_toggle_all_open_s"):
            assert row[key] > 0, key
        assert row["crossings"] >= 0 and row["rss_mib"] > 50
    table = benchmark.format_table(rows)
    assert "layout_ms" in table.splitlines()[0] and "synthetic-300" in table


def test_fx_shape_is_an_exported_transformer_with_module_groups():
    from vpu_core.layout import check_layout, layout_graph
    from tools.layouts.dagre_reference import to_json
    from tools.layouts.synthetic import synthetic_tree
    from tools.layouts.synthetic_fx import synthetic_fx_graph

    model = synthetic_fx_graph(1200, seed=1)
    assert len(model.nodes) == 1200
    ops = [n.label for n in model.nodes]
    assert {"softmax", "matmul", "permute", "sym_size", "linear", "quantize"} <= set(ops)
    fan_out = {}
    for e in model.edges:
        fan_out[e.src] = fan_out.get(e.src, 0) + 1
    masks = [n.id for n in model.nodes if n.label == "mul" and fan_out.get(n.id, 0) >= 4]
    assert masks                                    # a stage's mask is read by all its layers
    assert "model.layers.3.self_attn" in synthetic_tree(model).groups
    layout = layout_graph(model)
    assert check_layout(layout, [n.id for n in model.nodes]) == []
    data = to_json(model)                           # what dagre gets: same sizes, index pairs
    assert len(data["nodes"]) == 1200 and all(0 <= s < 1200 and 0 <= t < 1200 for s, t in data["edges"])


def test_window_starts_without_torch():
    result = measure_window_startup(repeats=1)
    assert result["window_startup_s"] > 0
    assert result["torch_imported_at_startup"] is False


@pytest.mark.slow
def test_first_graph_probe_a_cold_launch_shows_the_prediction_first_and_a_warm_one_the_final():
    """The user's path in fresh processes (tools.bench.first_graph): the window is up before
    torch is imported (the model runs in the worker), the first graph painted is the predicted one;
    a second launch paints the final analysis from the disk cache."""
    from tools.bench.first_graph import floor_s, measure_round, model_imports

    row = measure_round("conv_relu", with_floor=False)        # the floor figure is the bench's
    assert row["torch_imported_at_window"] is False
    assert row["first_graph_predicted"] is True
    assert row["warm_was_final"] is True and row["nodes"] > 0
    for key in ("first_graph_cold_s", "final_graph_cold_s", "settled_cold_s", "first_graph_warm_s",
                "gui_max_stall_s"):
        assert row[key] > 0, key
    assert row["first_graph_cold_s"] <= row["final_graph_cold_s"] <= row["settled_cold_s"]   # the order
    floor = floor_s("conv_relu")
    assert 0 < floor["import_s"] <= floor["built_s"] <= floor["floor_s"]
    assert model_imports(str(CORPUS / "bert_text.py"))[:2] == ["torch", "transformers"]


def test_bench_loop_reports_cold_warm_and_toggles():
    (row,) = benchmark.bench_loop(["conv_relu"], quantizers=("vpu",))
    assert row["graph"] == "conv_relu/vpu" and row["nodes"] > 0
    for key in ("cold_s", "warm_s", "back_s", "fold_toggle_s", "profile_change_s"):
        assert row[key] > 0, key
