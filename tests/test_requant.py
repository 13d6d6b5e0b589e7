"""Requantization shifts n from M = s_in·s_w/s_out = 2^-n, checked against the graph's own qparams."""
import math

import pytest

from vpu_core.analysis.qgraph import QGraph
from vpu_core.analysis.requant import requant_sites
from vpu_core.profile import load_profile
from vpu_core.qdq import is_quantize


def _independent_multipliers(gm, op_name, fx):
    """s_in·s_w[c]/s_out read straight from the Q/DQ args and attribute tensors."""
    op = fx.node(gm, op_name)
    s_in = float(op.args[0].args[1])
    s_w = [float(s) for s in fx.attr(gm, op.args[1].args[1])]
    out = op if any(is_quantize(u) for u in op.users) else next(iter(op.users))  # fused relu
    q = next(u for u in out.users if is_quantize(u))
    return [s_in * s / float(q.args[1]) for s in s_w]


def test_vpu_shifts_match_independent_multipliers(run, analysis, fx):
    qm, a = run("resnet8"), analysis("resnet8")
    weighted = [s for s in a.requant if s.kind == "weighted"]
    assert len(weighted) == 10  # 9 convs + linear
    for site in weighted:
        m = _independent_multipliers(qm.converted, site.node, fx)
        assert site.exact and site.shifts == tuple(int(-math.log2(x)) for x in m)
        assert all(2.0 ** -n == x for n, x in zip(site.shifts, m))  # exactly a shift
        assert site.max_rel_error == 0.0 and not site.out_of_range
        assert all(0 <= n <= 31 for n in site.shifts)


def test_vpu_global_average_pool_divides_by_a_shift(run, analysis, fx):
    qm, a = run("resnet8"), analysis("resnet8")
    pool = next(s for s in a.requant if s.node == "adaptive_avg_pool2d")
    h, w = fx.node(qm.converted, "adaptive_avg_pool2d").args[0].args[0].args[0].meta["val"].shape[-2:]
    assert pool.kind == "avg_pool" and pool.window == h * w == 64
    assert pool.exact and pool.shifts == (6,)


@pytest.mark.slow
def test_xnnpack_sites_are_not_exact_and_report_nearest_shift_and_error(run, analysis, fx):
    qm, a = run("resnet8", "xnnpack"), analysis("resnet8", "xnnpack")
    conv = next(s for s in a.requant if s.node == "conv2d_1")
    m = _independent_multipliers(qm.converted, "conv2d_1", fx)
    nearest = tuple(round(-math.log2(x)) for x in m)
    assert not conv.exact and conv.shifts is None
    assert conv.nearest_shifts == nearest
    assert conv.max_rel_error == pytest.approx(max(abs(x - 2.0 ** -n) / x for x, n in zip(m, nearest)))
    adds = [s for s in a.requant if s.node.startswith("add")]
    assert len(adds) == 3 and all(s.kind == "shared" and len(s.nearest_shifts) == 2 for s in adds)
    add = fx.node(qm.converted, "add")
    s_out = float(next(u for u in next(iter(add.users)).users if is_quantize(u)).args[1])
    assert adds[0].input_scales == tuple(float(dq.args[1]) for dq in add.args)
    assert adds[0].nearest_shifts == tuple(round(-math.log2(s / s_out)) for s in adds[0].input_scales)


def test_shift_range_comes_from_the_profile(run, profiles):
    qm = run("resnet8")
    narrow = load_profile(profiles.with_rule_off(max_shift=8))
    sites = requant_sites(QGraph(qm.converted, narrow))
    for site in sites:
        assert site.out_of_range == any(n > 8 or n < 0 for n in site.nearest_shifts)
    assert any(s.out_of_range for s in sites) and not all(s.out_of_range for s in sites)


def test_shift_histogram_counts_every_channel_shift(analysis):
    a = analysis("resnet8")
    hist = a.histograms["shifts"]
    shifts = [n for s in a.requant for n in s.nearest_shifts]
    assert all(s.exact for s in a.requant)
    assert sum(hist.counts) == len(shifts) and sum(a.histograms["shifts_nearest"].counts) == 0
    assert len(hist.edges) == len(hist.counts) + 1
    centre = {round(e + 0.5): c for e, c in zip(hist.edges, hist.counts)}
    assert all(centre[n] == shifts.count(n) for n in set(shifts))


def test_nearest_shifts_of_inexact_sites_are_not_counted_as_shifts(analysis):
    # a site with no exact shift (one of resnet8's, marked inexact) counts in
    # "shifts_nearest" only, so the plot can say "no exact right shifts" when it is true.
    from dataclasses import replace

    from vpu_core.analysis.stats import histograms

    a = analysis("resnet8")
    site = next(s for s in a.requant if s.kind == "weighted")
    inexact = replace(site, shifts=None, exact=False)
    hists = histograms(a.tensors, (inexact,))
    assert sum(hists["shifts"].counts) == 0
    assert sum(hists["shifts_nearest"].counts) == len(site.nearest_shifts)
    assert hists["shifts"].edges == hists["shifts_nearest"].edges
    both = histograms(a.tensors, (inexact, *a.requant[1:]))
    assert sum(both["shifts"].counts) + sum(both["shifts_nearest"].counts) == sum(
        len(s.nearest_shifts) for s in (inexact, *a.requant[1:]))


def test_no_requant_site_for_an_op_on_the_cpu(run):
    # an average pool the op list leaves on the CPU has no VPU requantization.
    from dataclasses import replace

    from vpu_core.analysis import analyze

    qm = run("resnet8")
    profile = replace(qm.profile, vpu_ops=tuple(o for o in qm.profile.vpu_ops
                                                if not o.startswith("adaptive_avg_pool2d")))
    a = analyze(replace(qm, profile=profile))
    assert a.partition.assignment["adaptive_avg_pool2d"] == "cpu"
    assert "adaptive_avg_pool2d" not in {s.node for s in a.requant}
    assert len([s for s in a.requant if s.kind == "weighted"]) == 10
