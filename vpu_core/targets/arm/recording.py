"""ExecuTorch's Arm partitioner, composed with what we need to keep from it: the reasons and the files.

    recording = RecordingPartitioner(EthosUPartitioner(spec), folder)
    to_edge_transform_and_lower(program, partitioner=[recording])
    recording.rejections          # [Rejection(node, sentence, check)] in the order the checks said no
    recording.folders             # {delegation tag: its artifact folder}

The reasons. TOSAPartitioner.partition creates a WhyNoPartitionReporter, hands it to every
support check through `_tag_module` and only logs its table. The one place it travels is that
call, so this wrapper calls `_tag_module` with a reporter of its own (a WhyNoPartitionReporter
that also records which check refused: the caller of `report_reject`, e.g. AvgPool2dSupported,
EthosU55NotSupported, CheckArmQuantized): every node's sentence and check, as data. Like the
stock reporter it keeps a node's first reason.

The files. ExecuTorch lowers each partition with the compile spec of its DelegationSpec; with one
spec for all, every partition writes its TOSA file, debug.json and Vela's output/ into the same
folder and the last overwrites the others. `partition` gives each tag a copy of the spec whose
intermediate-artifacts path is that tag's own folder.

Everything else (ops_to_not_decompose, the pre-decomposition transform) is the Arm partitioner's.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from executorch.exir.backend.compile_spec_schema import CompileSpec
from executorch.exir.backend.partitioner import DelegationSpec, Partitioner, PartitionResult
from executorch.exir.backend.utils import WhyNoPartitionReporter

ARTIFACT_PATH_KEY = "debug_artifact_path"     # ArmCompileSpec._DEBUG_ARTIFACT_KEY
SUPPORT_LISTS = "TOSASupportLists"            # the wrapped positive checks: no operator for the node


@dataclass(frozen=True)
class Rejection:
    node: Any                # the edge-dialect fx Node the check was asked about
    sentence: str            # the Arm backend's own words
    check: str               # the class that refused ("AvgPool2dSupported"), or the function
    op_check: bool = False   # a registered per-operator check (SupportedTOSAOperatorCheck): the op
                             # is one the backend supports, these arguments of it are not


class RecordingReporter(WhyNoPartitionReporter):
    """A WhyNoPartitionReporter that also notes which check refused (its first reason per node)."""

    def __init__(self) -> None:
        super().__init__()
        self.checks: dict[Any, tuple[str, bool]] = {}

    def report_reject(self, node: Any, reason: str) -> None:
        if node not in self._rejected_nodes:
            self.checks[node] = _check_name(sys._getframe(1))      # the check whose method reports
        super().report_reject(node, reason)

    def rejections(self) -> list[Rejection]:
        return [Rejection(n, r, *self.checks.get(n, ("", False))) for n, r in self._rejected_nodes.items()
                if getattr(n, "op", "") == "call_function"]


def _check_name(frame: Any) -> tuple[str, bool]:
    """(the class of the check that reports — its method's `self` —, whether it is a registered
    per-operator check); "TOSASupportLists" for the positive checks ExecuTorch wraps with its
    "Not included in BaseTOSASupportList …" message; a function's name (reject_partition)."""
    from executorch.backends.arm.operator_support.tosa_supported_operators import SupportedTOSAOperatorCheck

    caller = frame.f_locals.get("self")
    if caller is None:
        return frame.f_code.co_name, False
    if type(caller).__name__ == "ReportRejected":       # reporter.wrap_check(check, message)
        inner = getattr(caller, "operator_support", None)
        any_chain = type(inner).__name__ == "FunctionalOperatorSupport"
        return (SUPPORT_LISTS if any_chain else type(inner).__name__), False
    return type(caller).__name__, isinstance(caller, SupportedTOSAOperatorCheck)


class RecordingPartitioner(Partitioner):
    """`inner` (TOSAPartitioner or EthosUPartitioner) with its reasons and per-partition folders kept."""

    def __init__(self, inner: Any, folder: Path) -> None:
        super().__init__()
        self.inner, self.folder = inner, Path(folder)
        self.reporter = RecordingReporter()
        self.folders: dict[str, Path] = {}
        self.partitioned: tuple[float, float] | None = None   # perf_counter when partition began, ended:
        tag_module = inner._tag_module                          # to_edge before it, TOSA (and Vela) after

        def tag_with_our_reporter(module: Any, program: Any, reporter: Any, tag_iterator: Any = None) -> Any:
            return tag_module(module, program, self.reporter, tag_iterator)

        inner._tag_module = tag_with_our_reporter     # this instance only; see the module docstring

    @property
    def rejections(self) -> list[Rejection]:
        return self.reporter.rejections()

    def ops_to_not_decompose(self, ep: Any) -> Any:
        return self.inner.ops_to_not_decompose(ep)

    def transform_for_pre_decomposition(self, exported_program: Any) -> Any:
        return self.inner.transform_for_pre_decomposition(exported_program)

    def partition(self, exported_program: Any) -> PartitionResult:
        start = time.perf_counter()
        result = self.inner.partition(exported_program)
        tags = {}
        for tag, spec in result.partition_tags.items():
            folder = self.folder / tag
            folder.mkdir(parents=True, exist_ok=True)
            self.folders[tag] = folder
            specs = [s for s in spec.compile_specs if s.key != ARTIFACT_PATH_KEY]
            specs.append(CompileSpec(ARTIFACT_PATH_KEY, str(folder).encode()))
            tags[tag] = DelegationSpec(spec.backend_id, specs)
        self.partitioned = (start, time.perf_counter())
        return PartitionResult(tagged_exported_program=result.tagged_exported_program, partition_tags=tags)
