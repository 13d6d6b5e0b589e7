"""The partition what-if of one analysis: op-list / limit candidates and subgraph economics.

Asked for apart from the analysis (the window's What-if dock, `check`, `report`): every candidate
re-partitions the whole graph, so `analyze` never pays for it (vpu_core.session.Session.whatif).
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from vpu_core.analysis.qgraph import QGraph
from vpu_core.analysis.results import Analysis
from vpu_core.whatif.economics import subgraph_economics
from vpu_core.whatif.op_candidates import op_candidates
from vpu_core.whatif.results import PartitionWhatIf

if TYPE_CHECKING:
    from vpu_core.pipeline import QuantizedModel


def partition_whatif(qm: QuantizedModel, analysis: Analysis) -> PartitionWhatIf:
    """The op-list candidates and partition economics of `analysis` (of `qm`'s converted graph)."""
    start = time.perf_counter()
    g = QGraph(qm.converted, qm.profile)
    part = analysis.partition
    return PartitionWhatIf(op_candidates(g, part), subgraph_economics(g, part),
                           time.perf_counter() - start)
