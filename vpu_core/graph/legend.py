"""What a drawn graph uses, so that its legend lists every colour in the picture and no other.

    facts = legend_facts(model)        # LegendFacts: subgraph ids, categories, edge marks, groups

The canvas legend, the exported images and `render` build their rows from these facts (the
colours themselves live in the GUI's style), so a legend never omits a colour the picture uses
(a fifth VPU subgraph shade, the red mark of a folded Q/DQ that breaks a rule, an open module
group's frame) nor lists one it does not. A metric overlay's gradient, its clipping and the grey
of ops without a value are stated by its own legend (vpu_core.graph.metrics.metric_range).
Pure Python.
"""
from __future__ import annotations

from dataclasses import dataclass
from vpu_core.graph.model import GraphModel

@dataclass(frozen=True)
class LegendFacts:
    subgraphs: tuple[int, ...] = ()          # partition ids of the ops drawn, ascending
    categories: frozenset[str] = frozenset()  # node categories drawn ("vpu", "cpu", "qdq", …)
    boundary: bool = False                    # a VPU ↔ CPU boundary edge is drawn
    violations: bool = False                  # a node carries a violation badge
    edge_violations: bool = False             # an edge carries a folded Q/DQ that breaks a rule
    frames: bool = False                      # an open module group is drawn as a frame
    shared: bool = False                      # the canvas outlines tensors sharing one scale
    matches: bool = False                     # the canvas outlines search matches
    by_metric: bool = False                   # ops are coloured by a metric's gradient (their own
                                              # legend), not by VPU subgraph / CPU fallback
    hidden_subgraphs: int = 0                 # partitions drawn only inside closed groups
    accelerator: str = "VPU"                  # what the green side is called: "VPU", "XNNPACK",
                                              # "NPU" (an Ethos-U), "TOSA" (accelerator_word)
    badges: str = "violations"                # what a badge counts: the VPU's rule "violations",
                                              # or "cpu": ops the target leaves on the CPU

    @property
    def groups(self) -> bool:
        return self.frames or "group" in self.categories


def legend_facts(model: GraphModel, whole: GraphModel | None = None) -> LegendFacts:
    """The facts of `model` as drawn (the canvas adds its outlines: `shared`, `matches`, and
    `by_metric`); `whole`: the graph with every group open, to count the VPU subgraphs that
    closed groups hide."""
    subgraphs = _subgraphs(model)
    hidden = len(set(_subgraphs(whole)) - set(subgraphs)) if whole is not None else 0
    return LegendFacts(
        hidden_subgraphs=hidden,
        subgraphs=tuple(subgraphs),
        categories=frozenset(n.category for n in model.nodes),
        boundary=any(e.boundary for e in model.edges),
        violations=any(n.violations for n in model.nodes),
        edge_violations=any(e.violations for e in model.edges),
        frames=bool(model.frames),
        accelerator=accelerator_word(model.meta.get("partition_source", "simulated")),
        badges=model.meta.get("badges", "violations"))


def accelerator_word(source: str) -> str:
    """The accelerator side of a colouring, in the user's words: "VPU", "XNNPACK", "TOSA", "NPU"
    (an Ethos-U's), so a boundary reads "CPU → NPU"."""
    return {"simulated": "VPU", "vpu": "VPU", "xnnpack": "XNNPACK", "tosa-int": "TOSA"}.get(source, "NPU")


def _subgraphs(model: GraphModel) -> list[int]:
    subgraphs = sorted({n.subgraph for n in model.nodes
                        if n.category == "vpu" and n.subgraph is not None})
    if any(n.category == "vpu" and n.subgraph is None for n in model.nodes):
        subgraphs = subgraphs or [0]
    return subgraphs
