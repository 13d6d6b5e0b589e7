"""A Model Explorer extension: `model-explorer --extensions=vpu_core.interop.explorer MODEL.py`.

The [model-explorer] extra installs Model Explorer; this module registers with it (its extension
API: a subclass of model_explorer.Adapter or NodeDataProvider with a `metadata` is registered when
the module is imported):

- an adapter (id "vpu_inspector") for a model file we take (`path/to/model.py`, whose
  `get_model()` returns the model and its example inputs, or a `.pt2` program): quantized with the
  VPU quantizer and shown as our folded, grouped view, coloured by the VPU placement
  (vpu_core.interop.graph_json, the same graph `export --format model-explorer` writes);
- node-data providers for the graphs it opened: each overlay `export` writes (the placement, rule
  violations, layer SQNR, requant shifts, scales), computed on request.

Runs inside Model Explorer's server process: the quantization imports torch there on first use,
and the process-wide session keeps the result for the next request.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Union

from model_explorer import (Adapter, AdapterMetadata, GetConfigEditorsResult, ModelExplorerGraphs, NodeDataProvider,
                            NodeDataProviderFilter, NodeDataProviderMetadata, NodeDataProviderResult)
from model_explorer import graph_builder, node_data_builder

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.config import RunConfig

ADAPTER_ID = "vpu_inspector"
_OVERLAYS = {                          # provider id -> (title, overlay)
    "vpu_inspector_placement": ("VPU placement", "placement"),
    "vpu_inspector_violations": ("Rule violations", "violations"),
    "vpu_inspector_sqnr": ("Layer SQNR (dB)", "sqnr"),
    "vpu_inspector_shift": ("Requant shift", "shift"),
    "vpu_inspector_scales": ("Scales", "scales"),
}


class VpuInspectorAdapter(Adapter):
    """A model file → our folded, grouped graph of its quantized program, coloured by VPU placement."""

    metadata = AdapterMetadata(
        id=ADAPTER_ID, name="VPU Inspector (quantized, VPU placement)",
        description="Quantizes the model with the VPU quantizer (PT2E) and shows the Q/DQ graph grouped by "
                    "module, coloured by where the VPU runs each op.",
        fileExts=["py", "pt2"])

    def convert(self, model_path: str, settings: dict) -> ModelExplorerGraphs:
        from vpu_core.interop.graph_json import graph_collection

        config, analysis, ids = _inspected(model_path)
        collection = graph_collection(analysis, ids)
        return {"graphs": [graph_from_json(g) for g in collection["graphs"]]}


class VpuInspectorOverlays(NodeDataProvider):
    """Our overlays on a graph our adapter opened, keyed by the same node ids."""

    metadata = [NodeDataProviderMetadata(id=pid, name=f"VPU Inspector: {title}", description=(
        f"{title} of the quantized program, as vpu-inspector computes it"), icon="memory",
        filter=NodeDataProviderFilter(adapterIds=[ADAPTER_ID])) for pid, (title, _) in _OVERLAYS.items()]

    def get_config_editors(self, provider_id: str) -> GetConfigEditorsResult:
        return GetConfigEditorsResult(configEditors=[])

    def run(self, provider_id: str, model_path: str, graph_id: str, config_values: dict,
            graph: Union[graph_builder.Graph, None]) -> NodeDataProviderResult:
        from vpu_core.errors import InspectorError

        try:
            _config, analysis, ids = _inspected(model_path)
            data = overlay_data(_OVERLAYS[provider_id][1], analysis, ids)
        except InspectorError as exc:
            return NodeDataProviderResult(error=exc.message)
        return NodeDataProviderResult(result=node_data_from_json(data))


def overlay_data(kind: str, analysis: Analysis, ids: dict[str, str]) -> dict:
    """The node-data JSON of overlay `kind` (a key of _OVERLAYS' values), as export writes it."""
    from vpu_core.graph.metrics import node_metrics
    from vpu_core.interop import node_data

    if kind == "placement":
        return node_data.placement(analysis, "vpu", "VPU", ids).data
    if kind == "violations":
        return node_data.violations(analysis, ids).data
    if kind == "scales":
        return node_data.scales(analysis, ids).data
    return node_data.metric(kind, node_metrics(analysis)[kind], ids).data


def graph_from_json(data: dict) -> graph_builder.Graph:
    """A graph_builder.Graph from its JSON (Model Explorer parses node-data providers' graphs so)."""
    import dacite

    return dacite.from_dict(data_class=graph_builder.Graph, data=data, config=dacite.Config(strict=True))


def node_data_from_json(data: dict) -> node_data_builder.GraphNodeData:
    """A node_data_builder.GraphNodeData from its JSON. Its `value` is typed a number, but Model
    Explorer shows text values too (a placement's reason): the types are not checked."""
    import dacite

    return dacite.from_dict(data_class=node_data_builder.GraphNodeData, data=data,
                            config=dacite.Config(strict=True, check_types=False))


@functools.lru_cache(maxsize=4)
def _inspected(model_path: str) -> tuple[RunConfig, Analysis, dict[str, str]]:
    """(config, analysis, our name -> Model Explorer id) of a model file under the VPU quantizer."""
    from vpu_core.config import RunConfig
    from vpu_core.interop.export import adapter_id_map
    from vpu_core.session import default_session

    config = RunConfig(model=model_path)
    session = default_session()
    analysis = session.analysis(config)
    return config, analysis, adapter_id_map(session, config)
