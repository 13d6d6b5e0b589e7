"""The core of the three-click story (docs/guide.md: "Why is this on the CPU, and what would fix it?"): which profile edit moves a CPU node to
the VPU, and the before / after card of applying it — real runs of the zoo transformer."""
from __future__ import annotations

from dataclasses import replace

import pytest

from vpu_core.formatting import card_delta_text, card_value_text
from vpu_core.whatif.try_on_vpu import before_after, fixed_profile, vpu_fix


@pytest.fixture(scope="module")
def story(run, analysis, profiles):
    """(before, after, fix): the transformer, then the same with its softmax added to the op list."""
    from vpu_core.analysis import analyze
    from vpu_core.profile import load_profile
    from vpu_core.whatif.profile_edit import profile_to_toml

    before = analysis("transformer")
    softmax = next(c.node for c in before.partition.cpu_nodes if c.op.startswith("softmax"))
    fix = vpu_fix(before, softmax)
    path = profiles.write("softmax_on_vpu", profile_to_toml(fixed_profile(load_profile(), fix)))
    after = analyze(run("transformer", profile=path))
    return before, after, fix


def test_an_op_missing_from_the_op_list_is_fixed_by_adding_it(story):
    from vpu_core.hardware.ops import op_matches
    from vpu_core.profile import load_profile

    before, _, fix = story
    assert fix.kind == "op_list" and fix.entry == "softmax.int" and fix.op == "softmax.int"
    assert fix.text == "add softmax.int to the VPU op list"
    shipped = load_profile()
    edited = fixed_profile(shipped, fix)
    assert op_matches("softmax.int", edited.vpu_ops) and not op_matches("softmax.int", shipped.vpu_ops)
    assert edited.vpu_ops[:len(shipped.vpu_ops)] == shipped.vpu_ops          # nothing else moved
    assert fixed_profile(edited, fix) is edited                               # already there
    on_vpu = next(n for n, side in before.partition.assignment.items() if side != "cpu")
    assert vpu_fix(before, on_vpu) is None                                    # nothing to fix


def test_an_integer_tensor_has_no_profile_fix(story):
    before, _, _ = story
    cpu = before.partition.cpu_nodes[0]
    odd = replace(cpu, reason=f"integer tensor op: {cpu.op} produces int64; the VPU computes …", cause="dtype")
    weird = replace(before, partition=replace(before.partition, cpu_nodes=(odd,)))
    assert vpu_fix(weird, cpu.node) is None


def test_the_card_states_every_number_with_its_delta(story):
    before, after, fix = story
    card = before_after(before, after, fix.text)
    assert card.change == fix.text and [r.key for r in card.rows] == [
        "cpu_ops", "subgraphs", "boundary_bytes", "sqnr_db", "vpu_mac_share"]
    cpu = card.row("cpu_ops")
    assert (cpu.before, cpu.after) == (len(before.partition.cpu_nodes), len(after.partition.cpu_nodes))
    moved = sum(1 for c in before.partition.cpu_nodes if c.op.startswith("softmax"))
    assert cpu.delta == -moved and cpu.improved is True                      # the softmaxes left the CPU
    sub = card.row("subgraphs")
    assert (sub.before, sub.after) == (len(before.partition.subgraphs), len(after.partition.subgraphs))
    nbytes = card.row("boundary_bytes")
    assert (nbytes.before, nbytes.after) == (before.partition.transfer_bytes, after.partition.transfer_bytes)
    assert nbytes.delta == after.partition.transfer_bytes - before.partition.transfer_bytes
    sqnr = card.row("sqnr_db")
    assert (sqnr.before, sqnr.after) == (before.sqnr_db, after.sqnr_db)
    assert sqnr.delta == pytest.approx(after.sqnr_db - before.sqnr_db)
    share = card.row("vpu_mac_share")                                         # the summary's MAC share
    assert (share.before, share.after) == (before.summary.vpu_mac_share, after.summary.vpu_mac_share)
    assert 0 < share.before < 1 and share.delta is not None and card_value_text(None, "share") == "—"
    assert card_value_text(cpu.after, "") == f"{len(after.partition.cpu_nodes)}"
    assert card_delta_text(cpu.delta, "") == f"−{moved}"
    assert card_delta_text(0.0, "dB") == "±0" and card_delta_text(1.25, "dB") == "+1.2 dB"
    assert card_delta_text(-2048, "B") == "−2.0 KiB" and card_delta_text(0.04, "share") == "+4.0 pp"
