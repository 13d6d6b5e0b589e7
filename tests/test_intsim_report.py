"""The HTML report's integer-simulation section (real conv_relu / inception_lite runs, parsed back)."""
from __future__ import annotations

import pytest

from vpu_core.inspection import Attached
from vpu_core.intsim import simulate
from vpu_core.reports.html import OPTIONAL_IDS, SECTION_IDS, build_report_html


@pytest.fixture(scope="module")
def with_sim(run, analysis):
    """with_sim(model, quantizer="vpu"): the analysis and its integer simulation (attached)."""
    return lambda model, quantizer="vpu": (analysis(model, quantizer), Attached(int_sim=simulate(run(model, quantizer))))


def test_int_sim_section_follows_sqnr_with_one_row_per_layer(with_sim, html_page):
    a, attached = with_sim("inception_lite")
    page = html_page(build_report_html(a, attached=attached))
    ids = [i for i in SECTION_IDS if i not in OPTIONAL_IDS]
    assert page.ids == ids[:ids.index("sqnr") + 1] + ["int_sim"] + ids[ids.index("sqnr") + 1:]
    assert "#int_sim" in page.urls                                    # in the table of contents
    html = build_report_html(a, attached=attached)
    section = html[html.index('id="int_sim"'):]
    section = section[:section.index("</section>")]
    assert section.count("<tr>") - 1 == len(attached.int_sim.layers)        # header row + one per layer
    assert "window 9 ≠ 2^k" in section and "round(2^16 / K)" in section
    assert "32-bit accumulator" in section and "<svg" in section


def test_refused_simulation_is_one_sentence_in_the_report(with_sim):
    a, attached = with_sim("conv_relu", "xnnpack")
    html = build_report_html(a, attached=attached)
    section = html[html.index('id="int_sim"'):]
    assert "refused" in section and "pow2_scale" in section


def test_report_without_int_sim_keeps_its_sections(analysis, html_page):
    assert html_page(build_report_html(analysis("conv_relu"))).ids == [i for i in SECTION_IDS if i not in OPTIONAL_IDS]
