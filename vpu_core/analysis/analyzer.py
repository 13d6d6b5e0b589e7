"""`analyze(qm)`: every field of an Analysis from a QuantizedModel (see the package docstring)."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable, Protocol

from vpu_core.analysis.macs import summary
from vpu_core.analysis.nodes import edges, node_infos
from vpu_core.analysis.notes import run_notes
from vpu_core.analysis.partition import OP_LIST_RULE, partition
from vpu_core.analysis.qgraph import QGraph
from vpu_core.analysis.requant import requant_sites
from vpu_core.analysis.results import Analysis, InputInfo
from vpu_core.analysis.rules import check_vpu
from vpu_core.analysis.rules.static_shape import symbols_of
from vpu_core.analysis.scale_groups import scale_groups
from vpu_core.analysis.sqnr import Sqnr, graph_sqnr_calls
from vpu_core.analysis.stats import histograms, tensor_qparams

if TYPE_CHECKING:
    from torch.fx import GraphModule

    from vpu_core.config import RunConfig
    from vpu_core.hardware.profile import HardwareProfile
    from vpu_core.stages import TimingKey

ProgressFn = Callable[[str, float], None]


class QuantizedModel(Protocol):
    """What the analysis reads of a quantized model (vpu_core.pipeline.QuantizedModel): the
    pipeline sits above the analysis, so its type is named here by what it has."""

    @property
    def config(self) -> RunConfig: ...
    @property
    def profile(self) -> HardwareProfile: ...
    @property
    def name(self) -> str: ...
    @property
    def converted(self) -> GraphModule: ...
    @property
    def float_graph(self) -> GraphModule | None: ...
    @property
    def calib_batches(self) -> list[tuple]: ...
    @property
    def observer_scales(self) -> list[dict]: ...
    @property
    def timings(self) -> dict[TimingKey, float]: ...
    @property
    def already_quantized(self) -> bool: ...
    @property
    def heldout_calls(self) -> list[tuple]: ...
    @property
    def quantizer(self) -> str: ...


def analyze(qm: QuantizedModel, progress: ProgressFn | None = None) -> Analysis:
    """Fill every field of Analysis from a QuantizedModel (vpu_core.pipeline): what the Q/DQ graph
    says under the profile. What a target (vpu_core.targets) says of it is not analysis."""
    report = progress or (lambda stage, fraction: None)
    start = time.perf_counter()
    report("analyze", 0.0)
    g = QGraph(qm.converted, qm.profile)
    rules, violations = check_vpu(g)
    part = partition(g)
    requant = requant_sites(g, part.assignment)
    shared = scale_groups(g)
    tensors = tensor_qparams(g, qm.observer_scales if qm.config.quantizer == "vpu" else [])
    report("analyze", 0.4)
    # SQNR runs both graphs forward: a measurement, not graph analysis, so it is timed on its
    # own ("sqnr") and "analyze" is check + partition + shifts + statistics, as the benchmark
    # targets define it.
    sqnr_start = time.perf_counter()
    layers: dict = {}
    e2e = Sqnr(None, "no float reference: the program was loaded already quantized")
    if qm.float_graph is not None:
        layers, e2e = graph_sqnr_calls(qm.float_graph, qm.converted, qm.heldout_calls)
    sqnr_s = time.perf_counter() - sqnr_start
    nodes, graph_edges, hists = node_infos(g, layers), edges(g), histograms(tensors, requant)
    inputs = graph_inputs(g)
    calibrated = () if qm.already_quantized else qm.calib_batches   # a loaded program saw none
    notes = run_notes(g, calibrated, [i.name for i in inputs])
    timings = dict(qm.timings)
    timings["analyze"] = time.perf_counter() - start - sqnr_s
    timings["sqnr"] = sqnr_s
    analysis = Analysis(
        model=qm.name, quantizer=qm.quantizer, already_quantized=qm.already_quantized,
        dynamic_batch=bool(qm.config.dynamic_batch or _has_symbols(g)),
        rules=rules, violations=violations, partition=part, requant=requant, tensors=tensors,
        sqnr_db=e2e.db, sqnr_reason=e2e.reason, layer_sqnr=layers, nodes=nodes, edges=graph_edges,
        histograms=hists, timings_s=timings, inputs=inputs,
        scale_groups=shared, partition_rule=OP_LIST_RULE, summary=summary(g, part), notes=notes,
        accuracy_calls=len(qm.heldout_calls))
    report("analyze", 1.0)
    return analysis


def graph_inputs(g: QGraph) -> tuple[InputInfo, ...]:
    """Name, shape and dtype of every tensor placeholder (the model's inputs as the run used them)."""
    import torch

    from vpu_core.fx_utils import concrete_dim, dtype_name

    out = []
    for n in g.nodes:
        val = n.meta.get("val")
        if n.op != "placeholder" or not isinstance(val, torch.Tensor):
            continue
        dims = tuple(i for i, d in enumerate(val.shape) if isinstance(d, torch.SymInt))
        shape = tuple(concrete_dim(d) for d in val.shape)
        out.append(InputInfo(n.name, shape, dtype_name(val.dtype), dims))
    return tuple(out)


def _has_symbols(g: QGraph) -> bool:
    return any(symbols_of(n.meta.get("val")) for n in g.nodes if n.op == "placeholder")

