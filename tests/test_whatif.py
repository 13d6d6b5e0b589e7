"""What-if core: op-list candidates and partition economics on a hand-partitioned graph, the
profile's economics key, the profile TOML round trip and diff, and the session re-reading a run
under a profile that cannot change its quantization (real export + PT2E, no mocks)."""
import dataclasses
import json
from pathlib import Path

import pytest

from app.cli import main
from vpu_core.config import RunConfig
from vpu_core.errors import ProfileError
from vpu_core.profile import HardwareProfile, load_profile, parse_profile
from vpu_core.session import Session
from vpu_core.whatif.profile_edit import (TOML_KEYS, edit, model_ops, profile_diff, profile_to_toml,
                                          requantization_needed, same_profile, save_profile)

CHAIN = str(Path(__file__).parent / "models" / "whatif_chain.py")


@pytest.fixture(scope="module")
def chain():
    """x → conv1 → sigmoid → conv2 → softmax, batch 1, VPU quantizer (one real run)."""
    return Session().inspect(RunConfig(model=CHAIN, batch_size=1, calib_batches=2), view=None,
                             whatif=True)


# Worked by hand. Q/DQ nodes sit with the op they feed; a quantize of a VPU output stays on the VPU:
#   x ─fp32 1024 B→ [q dq conv1 q] ─int8 256 B→ dq sigmoid ─fp32 1024 B→ [q dq conv2 q] ─int8 256 B→ dq softmax → out
# two VPU subgraphs, 2 560 B across the boundary, CPU ops: sigmoid, softmax.
# + sigmoid: one subgraph (1 merged); x→q 1024 B + q→dq 256 B = 1 280 B (saves 1 280); softmax left.
# + softmax: it joins subgraph 1, whose output then leaves as int8 (256 B, as the VPU would
#   quantize it) instead of q→dq 256 B: saves 0, merges nothing; sigmoid left.
def test_op_candidates_match_the_hand_computed_partition(chain):
    p = chain.analysis.partition
    assert len(p.subgraphs) == 2 and p.transfer_bytes == 2560
    assert sorted(c.op for c in p.cpu_nodes) == ["sigmoid.default", "softmax.int"]
    got = [(c.op, c.subgraphs_merged, c.bytes_saved, c.cpu_nodes_left, c.nodes_moved, c.new_subgraphs)
           for c in chain.attached.op_candidates]
    assert got == [("sigmoid.default", 1, 1280, 1, 1, 0), ("softmax.int", 0, 0, 1, 1, 0)]
    assert [c.transfer_bytes_after for c in chain.attached.op_candidates] == [1280, 2560]


# conv 1x1, 4 → 4 channels on 8x8: 256 output elements × 4 MAC = 1 024 MAC per subgraph, and each
# subgraph moves 1 024 B in (fp32) + 256 B out (int8) = 1.25 B/MAC > 0.25: both are flagged.
def test_economics_flags_islands_that_move_more_than_they_compute(chain):
    e = chain.attached.economics
    assert e.break_even_bytes_per_mac == 0.25
    rows = [(s.subgraph, s.ops, s.macs, s.bytes_in, s.bytes_out, s.pays) for s in e.subgraphs]
    assert rows == [(0, 1, 1024, 1024, 256, False), (1, 1, 1024, 1024, 256, False)]
    assert e.subgraphs[0].bytes_per_mac == 1.25 and len(e.flagged) == 2


def test_the_what_if_is_computed_only_when_asked_for_and_then_cached(tmp_path):
    """One re-partition per candidate op: not part of every analysis (the window's first graph,
    the ablation's relaxed runs), computed on request and kept beside the analysis."""
    config = RunConfig(model=CHAIN, batch_size=1, calib_batches=2)
    session = Session(cache_dir=tmp_path)
    plain = session.inspect(config, view=None)
    assert plain.attached.op_candidates == () and plain.attached.economics is None and "whatif" not in plain.timings_s
    asked = session.inspect(config, view=None, whatif=True)
    assert [c.op for c in asked.attached.op_candidates] == ["sigmoid.default", "softmax.int"]
    assert asked.attached.economics is not None and "whatif" in asked.timings_s
    assert dataclasses.replace(asked.analysis, timings_s=plain.analysis.timings_s) == plain.analysis
    fresh = Session(cache_dir=tmp_path)                         # a new launch: from the disk cache
    again = fresh.inspect(config, view=None, whatif=True)
    assert again.attached.op_candidates == asked.attached.op_candidates
    assert fresh.memory.get("quantized", fresh.keys(config).quantized) is None


def test_op_candidates_and_economics_are_in_check_json(capsys):
    code = main(["check", CHAIN, "--batch-size", "1", "--calib-batches", "2", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1          # the sigmoid the candidates would move falls back to the CPU (exit 1)
    assert data["op_candidates"][0] == {"op": "sigmoid.default", "subgraphs_merged": 1, "bytes_saved": 1280,
                                        "cpu_nodes_left": 1, "nodes_moved": 1, "new_subgraphs": 0,
                                        "subgraphs_after": 1, "transfer_bytes_after": 1280,
                                        "kind": "op_list", "limit": None, "from": None, "to": None,
                                        "macs_moved": 0}
    assert data["economics"]["break_even_bytes_per_mac"] == 0.25
    assert [s["pays"] for s in data["economics"]["subgraphs"]] == [False, False]
    assert "ablation" not in data


def test_economics_text_names_the_island(capsys):
    main(["check", CHAIN, "--batch-size", "1", "--calib-batches", "2"])
    out = capsys.readouterr().out
    assert "subgraph 0, a one-op island: 1.2 KiB in and out for 1.0 kMAC" in out
    assert "1.25 B/MAC, above the break-even 0.25 B/MAC" in out
    assert "sigmoid.default" in out.split("Op-list what-if")[1]


# -- the economics key in the profile -----------------------------------------------------------

def _shipped_text() -> str:
    from resources import DEFAULT_PROFILE

    return DEFAULT_PROFILE.read_text(encoding="utf-8")


@pytest.mark.parametrize("value", ["0", "-1.0", "true", '"cheap"', "inf"])
def test_break_even_must_be_a_positive_number(value):
    text = _shipped_text().replace("break_even_bytes_per_mac = 0.25", f"break_even_bytes_per_mac = {value}")
    with pytest.raises(ProfileError, match="economics.break_even_bytes_per_mac must be a positive number"):
        parse_profile(text, "p.toml")


def test_unknown_economics_key_is_rejected():
    text = _shipped_text() + "cost_per_byte = 2\n"
    with pytest.raises(ProfileError, match="unknown key economics.cost_per_byte"):
        parse_profile(text, "p.toml")


def test_break_even_defaults_when_the_section_is_absent():
    text = _shipped_text().split("# Partition economics")[0]
    assert parse_profile(text, "old.toml").break_even_bytes_per_mac == 0.25


# -- profile TOML: round trip, diff, what needs re-quantizing -----------------------------------

def test_every_profile_field_has_a_toml_key():
    covered = {f.split(".")[0] for _, _, f in TOML_KEYS}
    fields = {f.name for f in dataclasses.fields(HardwareProfile)} - {"path"}
    assert fields == covered, "a HardwareProfile field is missing from profile_edit.TOML_KEYS"


def test_the_editor_reads_edits_and_compares_profiles_without_torch(tmp_path):
    """The window shows every result in the editor (its op list, the draft compared with the form)
    from a profile the worker validated: none of that may import torch on the GUI thread. The
    registry's ids are the RULE_IDS a profile reads."""
    import pickle
    import subprocess
    import sys

    from vpu_core.analysis.rules import RULES
    from vpu_core.hardware.constraints import RULE_IDS

    assert tuple(r.id for r in RULES) == RULE_IDS
    (tmp_path / "profile.pkl").write_bytes(pickle.dumps(load_profile()))     # as the disk cache holds it
    code = ("import pickle, sys\n"
            "from vpu_core.whatif.profile_edit import edit, op_list_rows, profile_diff, profile_to_toml, same_profile\n"
            f"p = pickle.loads(open({str(tmp_path / 'profile.pkl')!r}, 'rb').read())\n"
            "q = edit(p, constraints={'pow2_scale': False}, max_shift=20)\n"
            "print(same_profile(p, q), len(profile_diff(p, q)), len(op_list_rows(p.vpu_ops, ())) > 0,\n"
            "      'pow2_scale = false' in profile_to_toml(q), 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    assert out.stdout.split() == ["False", "2", "True", "True", "False"]


def test_profile_round_trip_load_edit_save_load(tmp_path):
    shipped = load_profile()
    assert same_profile(load_profile(save_profile(shipped, tmp_path / "same.toml").path), shipped)
    edited = edit(shipped, name="next-chip", description='adds "softmax"', constraints={"pow2_scale": False},
                  vpu_ops=(*shipped.vpu_ops, "softmax.int", "gelu"), max_shift=20,
                  break_even_bytes_per_mac=0.5, rounding="truncate", accumulator_bits=24)
    saved = save_profile(edited, tmp_path / "next.toml")
    again = load_profile(tmp_path / "next.toml")
    assert same_profile(saved, edited) and same_profile(again, edited)
    assert again.description == 'adds "softmax"' and not again.enabled("pow2_scale")
    assert profile_to_toml(again) == profile_to_toml(edited)


def test_save_refuses_an_invalid_profile_before_writing(tmp_path):
    bad = edit(load_profile(), vpu_ops=("conv2d", "warp_drive"))
    with pytest.raises(ProfileError, match="unknown ATen op 'warp_drive'"):
        save_profile(bad, tmp_path / "bad.toml")
    assert not (tmp_path / "bad.toml").exists()


def test_diff_against_the_shipped_profile():
    shipped = load_profile()
    edited = edit(shipped, vpu_ops=(*shipped.vpu_ops[1:], "softmax"), constraints={"fused_relu": False},
                  max_shift=24)
    changes = {c.key: c for c in profile_diff(shipped, edited)}
    assert list(changes) == ["ops.vpu", "constraints.fused_relu", "requant.max_shift"]
    assert changes["ops.vpu"].added == ("softmax",) and changes["ops.vpu"].removed == ("conv2d",)
    assert (changes["constraints.fused_relu"].old, changes["constraints.fused_relu"].new) == (True, False)
    assert profile_diff(shipped, shipped) == ()


def test_what_a_profile_change_needs():
    base = load_profile()
    ops = ["conv2d.default", "relu_.default", "sigmoid.default"]
    analysis_only = edit(base, max_shift=12, break_even_bytes_per_mac=1.0, name="x", rounding="truncate",
                         vpu_ops=(*base.vpu_ops, "softmax"), constraints={"static_shape": False})
    assert requantization_needed(base, analysis_only, "vpu", ops) == ()
    adds_sigmoid = edit(base, vpu_ops=(*base.vpu_ops, "sigmoid"))
    assert requantization_needed(base, adds_sigmoid, "vpu", ops) == ("ops.vpu",)
    relaxed = edit(base, constraints={"pow2_scale": False, "static_shape": False})
    assert requantization_needed(base, relaxed, "vpu", ops) == ("constraints.pow2_scale",)
    assert requantization_needed(base, relaxed, "vpu", ops, symbolic=True) == (
        "constraints.pow2_scale", "constraints.static_shape")
    assert requantization_needed(base, relaxed, "xnnpack", ops) == ()


def test_model_ops_for_the_editor(chain):
    ops = {m.op: (m.count, m.on_vpu) for m in model_ops(chain.analysis)}
    assert ops == {"conv2d.default": (2, 2), "sigmoid.default": (1, 0), "softmax.int": (1, 0)}


def _no_pipeline(*args, **kwargs):
    raise AssertionError("a profile change that cannot alter the Q/DQ graph ran the pipeline again")


def test_session_reruns_only_what_a_profile_change_needs(tmp_path, monkeypatch):
    session = Session(disk_cache=False)          # what this session itself remembers
    base = RunConfig(model=CHAIN, batch_size=1, calib_batches=2)
    first = session.inspect(base, view=None).analysis
    shipped = load_profile()
    narrow = save_profile(edit(shipped, min_shift=40, max_shift=50, break_even_bytes_per_mac=2.0,
                               vpu_ops=(*shipped.vpu_ops, "gelu")), tmp_path / "narrow.toml")
    monkeypatch.setattr("vpu_core.pipeline.run_pipeline", _no_pipeline)
    second_inspection = session.inspect(dataclasses.replace(base, profile=narrow.path), view=None, whatif=True)
    second = second_inspection.analysis
    assert second.sqnr_db == first.sqnr_db and second.timings_s["calibrate"] == 0.0
    assert all(s.out_of_range for s in second.requant) and not any(s.out_of_range for s in first.requant)
    assert [s.pays for s in second_inspection.attached.economics.subgraphs] == [True, True]      # 1.25 B/MAC ≤ 2.0
    # A change that alters what the VPU quantizer annotates (softmax is in this model) quantizes
    # again, from the remembered export and calibration data: no load, no export.
    monkeypatch.undo()
    for stage in ("load_model", "export_program"):
        monkeypatch.setattr(f"vpu_core.pipeline.{stage}", _no_pipeline)
    wider_config = dataclasses.replace(base, profile=save_profile(
        edit(shipped, vpu_ops=(*shipped.vpu_ops, "softmax")), tmp_path / "wider.toml").path)
    wider = session.inspect(wider_config, view=None).analysis
    assert wider.timings_s["calibrate"] > 0.0
    assert [c.op for c in wider.partition.cpu_nodes] == ["sigmoid.default"]
    monkeypatch.undo()
    whole = Session(disk_cache=False).inspect(wider_config, view=None).analysis     # every stage
    assert wider.sqnr_db == whole.sqnr_db and wider.tensors == whole.tensors
    assert wider.partition == whole.partition


@pytest.mark.slow  # the XNNPACK quantizer's HistogramObserver takes ~30 s here
def test_xnnpack_run_is_only_repartitioned_for_a_new_op_list(tmp_path, monkeypatch):
    session = Session()
    base = RunConfig(model=CHAIN, quantizer="xnnpack", batch_size=1, calib_batches=2)
    first_inspection = session.inspect(base, view=None, whatif=True)
    first = first_inspection.analysis
    shipped = load_profile()
    wider = save_profile(edit(shipped, vpu_ops=(*shipped.vpu_ops, "sigmoid")), tmp_path / "wider.toml")
    monkeypatch.setattr("vpu_core.pipeline.run_pipeline", _no_pipeline)
    second = session.inspect(dataclasses.replace(base, profile=wider.path), view=None).analysis
    sigmoid = next(c for c in first_inspection.attached.op_candidates if c.op == "sigmoid.default")
    assert len(second.partition.cpu_nodes) == sigmoid.cpu_nodes_left < len(first.partition.cpu_nodes)
    assert len(second.partition.subgraphs) == sigmoid.subgraphs_after
    assert second.tensors == first.tensors
