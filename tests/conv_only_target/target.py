"""The conv-only target's implementation: each conv2d its own subgraph, the rest on the CPU."""
from conv_only_target import INFO
from conv_only_target.results import ConvCycles
from vpu_core.analysis.macs import op_macs
from vpu_core.analysis.qgraph import QGraph, is_op
from vpu_core.analysis.results import CpuNode
from vpu_core.fx_utils import op_name
from vpu_core.targets.protocol import TargetBase
from vpu_core.targets.verdicts import placement_report


class ConvOnlyTarget(TargetBase):
    info = INFO

    def verdict(self, job):
        qm = job.quantized()
        g = QGraph(qm.converted, qm.profile)
        convs = [n for n in g.nodes if is_op(n) and op_name(n).startswith("conv2d")]

        def cpu(node):
            return CpuNode(node.name, op_name(node), f"Conv-only has no kernel for {op_name(node)}", "op_list")

        return placement_report(g, {n.name: i for i, n in enumerate(convs)}, cpu, source=INFO.name,
                                profile=INFO.title, ops=("conv2d.default",))

    def estimate(self, job, verdict):
        qm = job.quantized()
        g = QGraph(qm.converted, qm.profile)
        convs = [g.by_name[n] for s in verdict.subgraphs for n in s.nodes if is_op(g.by_name[n])]
        return ConvCycles(tuple((n.name, op_macs(g, n) / 64) for n in convs))
