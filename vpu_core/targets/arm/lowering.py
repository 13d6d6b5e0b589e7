"""The converted graph lowered by ExecuTorch's Arm backend: to TOSA, and for Ethos-U through Vela.

    lowering = lower_for_arm(qm, ARM_TARGETS["ethos-u55-128"], ctx=ctx)     # ArmLowering

    graph_prep.prepare_for_arm(qm.converted)          the exact rewrites any quantizer's graph needs
    torch.export.export(prepared)                     (strict=False, the example inputs)
    to_edge_transform_and_lower(partitioner=[RecordingPartitioner(EthosUPartitioner(spec))])
        partition: ExecuTorch's TOSA support checks, our reporter recording why each node was refused
        per partition: TOSABackend serialises TOSA; EthosUBackend runs Vela on it, which writes its
        reports into that partition's own folder (recording.py)

This is ExecuTorch's own ahead-of-time Arm flow: EthosUCompileSpec(accelerator, system config,
memory mode) with two more Vela flags, `--verbose-performance` (the per-layer CSV) and
`--enable-debug-db` (the database that ties every NPU operation to its TOSA source), and
`dump_debug_info(DebugMode.JSON)` (TOSA operator → torch nodes). Vela's console report is kept
in `vela_log` instead of being printed (stdout carries `--format json`).

Each partition's files are read into memory (`Partition.files`: TOSA flatbuffer, debug.json,
Vela's CSVs and database), so the estimate, the export folder and the TOSA reference run need no
folder once lowering returns. Lowering takes 5–200 s on this machine (TOSA serialisation of each
partition dominates, Vela takes 0.02–0.1 s per partition): progress is reported as partitions
finish, and the caller caches the result.
"""
from __future__ import annotations

import contextlib
import io
import os
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import torch

from vpu_core import quiet
from vpu_core.errors import InspectorError, failing_node, root_cause
from vpu_core.progress import NO_CONTEXT, RunContext
from vpu_core.targets.arm.configs import ArmConfig
from vpu_core.targets.arm.graph_prep import Prepared, prepare_for_arm
from vpu_core.targets.arm.recording import RecordingPartitioner, Rejection
from vpu_core.targets.arm.vela_report import TOSA_FILE

if TYPE_CHECKING:
    from vpu_core.pipeline import QuantizedModel

VELA_FLAGS = ("--verbose-performance", "--enable-debug-db")
KEPT_SUFFIXES = (".tosa", ".json", ".csv", ".xml")     # Vela's .npz is the delegate's payload, in the .pte


class ArmLoweringError(InspectorError):
    """ExecuTorch's Arm backend could not lower the program (one sentence)."""


@dataclass(frozen=True)
class Partition:
    """One delegate of the lowered program and the files its lowering left."""

    index: int                       # delegate order in the program
    tag: str                         # the partitioner's delegation tag ("tag0")
    files: dict[str, bytes]          # path in its folder -> content (see vela_report)
    tosa: bytes                      # the TOSA flatbuffer of the partition
    inputs: tuple[str, ...] = ()     # nodes of the prepared graph whose values it reads, in call order
    outputs: tuple[str, ...] = ()    # nodes of the prepared graph whose values it writes, in order


@dataclass
class ArmLowering:
    """The converted graph lowered for one Arm target (core-internal: holds ExecuTorch objects)."""

    config: ArmConfig
    prepared: Prepared
    edge: Any                        # executorch.exir.EdgeProgramManager
    rejections: list[Rejection]
    partitions: list[Partition]
    system_config: str
    memory_mode: str
    vela_version: str = ""
    vela_log: str = ""
    seconds: dict[str, float] = field(default_factory=dict)
    vela_of: str = ""                # another configuration whose Vela payloads `edge` holds (shared.py)

    def lowered_module(self) -> torch.fx.GraphModule:
        """The top-level graph: delegate calls and the ops left to the CPU between them."""
        return self.edge.exported_program().graph_module


def lower_for_arm(qm: QuantizedModel, config: ArmConfig, system_config: str | None = None,
                  memory_mode: str | None = None, ctx: RunContext = NO_CONTEXT) -> ArmLowering:
    """`qm.converted` lowered for `config` (see the module docstring); ArmLoweringError when the
    Arm backend cannot lower it."""
    start = time.perf_counter()
    prepared = prepare_for_arm(qm.converted)
    seconds = {"graph_prep": time.perf_counter() - start}
    with tempfile.TemporaryDirectory(prefix="vpu-arm-") as folder:
        spec, partitioner_cls = _compile_spec(config, system_config, memory_mode, folder)
        recording = RecordingPartitioner(partitioner_cls(spec), Path(folder))
        ctx.report("lower", 0.02)
        log = chatter = io.StringIO()
        try:
            start = time.perf_counter()
            with quiet.torch_chatter() as chatter:
                exported = torch.export.export(prepared.gm, tuple(qm.example_inputs), strict=False)
            seconds["export"] = time.perf_counter() - start
            ctx.report("lower", 0.08)
            start = time.perf_counter()
            with _partitions_progress(Path(folder), config, ctx), captured_stdout() as log, \
                    quiet.torch_chatter() as chatter:
                edge = _to_edge_and_lower(exported, recording)
            seconds.update(_lowering_stages(start, time.perf_counter(), recording, Path(folder)))
        except InspectorError:
            raise
        except Exception as exc:  # ExecuTorch raises many types; the user gets one sentence
            raise ArmLoweringError(failure_sentence(exc, config, qm), traceback.format_exc() + chatter.getvalue()
                                   + log.getvalue()) from None
        partitions = _partitions(edge.exported_program().graph_module, recording, prepared.gm)
    ctx.report("lower", 1.0)
    return ArmLowering(config, prepared, edge, recording.rejections, partitions,
                       system_config or config.system_config, memory_mode or config.memory_mode,
                       vela_version=_vela_version() if config.uses_vela else "",
                       vela_log=log.getvalue(), seconds=seconds)


def _lowering_stages(start: float, end: float, recording: RecordingPartitioner, folder: Path) -> dict[str, float]:
    """to_edge_transform_and_lower's seconds by stage: "to_edge" (decompositions, edge dialect)
    until the partitioner is called, "partition" (its support checks), then "tosa" (the TOSA
    passes and serialisation of every partition) and "vela" (Vela on each TOSA file: from the TOSA
    file's write to Vela's last report's, as the folder records them; ExecuTorch gives no hook)."""
    if recording.partitioned is None:
        return {"to_edge": end - start}
    begun, ended = recording.partitioned
    vela = 0.0
    for tosa in folder.glob(f"tag*/{TOSA_FILE}"):
        reports = [p.stat().st_mtime for p in tosa.parent.glob("output/*") if p.is_file()]
        if reports:
            vela += max(0.0, max(reports) - tosa.stat().st_mtime)
    return {"to_edge": begun - start, "partition": ended - begun, "tosa": max(0.0, end - ended - vela),
            **({"vela": vela} if vela else {})}


def failure_sentence(exc: BaseException, config: ArmConfig, qm: QuantizedModel) -> str:
    """One sentence for a failed lowering: the innermost error and the op it was running first
    (errors.root_cause), and `--keep-float NODE` when that op is a node of the converted graph
    and the quantizer offers it (left in float, the partitioner keeps it on the CPU)."""
    sentence = f"ExecuTorch's Arm backend could not lower the program for {config.title}: {root_cause(exc)}"
    name = failing_node(exc)
    if name is not None and qm.config.quantizer.startswith("ethos-u") and \
            any(n.name == name and n.op == "call_function" for n in qm.converted.graph.nodes):
        sentence += f"; `--keep-float {name}` leaves that op in float, on the CPU"
    return sentence


def _compile_spec(config: ArmConfig, system_config: str | None, memory_mode: str | None,
                  folder: str) -> tuple[Any, Any]:
    if config.uses_vela:
        from executorch.backends.arm.ethosu import EthosUCompileSpec, EthosUPartitioner

        spec = EthosUCompileSpec(config.accelerator, system_config=system_config or config.system_config,
                                 memory_mode=memory_mode or config.memory_mode, extra_flags=list(VELA_FLAGS))
        partitioner = EthosUPartitioner
    else:
        from executorch.backends.arm.tosa.compile_spec import TosaCompileSpec
        from executorch.backends.arm.tosa.partitioner import TOSAPartitioner

        spec, partitioner = TosaCompileSpec(config.tosa_spec), TOSAPartitioner
    spec.dump_intermediate_artifacts_to(folder).dump_debug_info(spec.DebugMode.JSON)
    return spec, partitioner


def _to_edge_and_lower(exported: Any, recording: RecordingPartitioner) -> Any:
    from executorch.exir import to_edge_transform_and_lower

    return to_edge_transform_and_lower(exported, partitioner=[recording])


def _partitions(top: torch.fx.GraphModule, recording: RecordingPartitioner,
                exported: torch.fx.GraphModule) -> list[Partition]:
    """The delegates in program order, with their folders' files (found by the artifact path
    each delegate's own compile spec names) and the nodes of the exported graph they read and
    write (through the provenance of the delegate's arguments and of its module's outputs)."""
    from vpu_core.targets.xnnpack.provenance import origin as _origin
    from vpu_core.targets.xnnpack.provenance import is_delegate_call

    names, gid = {n.name for n in exported.graph.nodes}, id(exported.graph)

    def origins(nodes: Any) -> tuple[str, ...]:
        return tuple(_origin(n, gid, names) or n.name for n in nodes if isinstance(n, torch.fx.Node))

    by_folder = {str(path): tag for tag, path in recording.folders.items()}
    out: list[Partition] = []
    for node in top.graph.nodes:
        if not is_delegate_call(node):
            continue
        module = getattr(top, node.args[0].target)
        specs = {s.key: s.value for s in module.compile_specs}
        folder = Path(bytes(specs.get("debug_artifact_path", b"")).decode())
        files = read_files(folder)
        tosa = files.get(TOSA_FILE, b"")
        returned = module.original_module.graph_module.graph.output_node().args[0]
        out.append(Partition(len(out), by_folder.get(str(folder), folder.name), files, tosa,
                             origins(node.args[1:]), origins(returned)))
    return out


def read_files(folder: Path) -> dict[str, bytes]:
    """A partition's files; the TOSA flatbuffer once, as out.tosa (EthosUBackend writes the one it
    hands Vela there, TOSABackend's debug dump output_<tag>_<spec>.tosa is the same graph)."""
    if not folder.is_dir():
        return {}
    files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
             if p.is_file() and p.suffix in KEPT_SUFFIXES}
    dumps = [k for k in files if k.startswith("output_") and k.endswith(".tosa")]
    if dumps:
        files.setdefault(TOSA_FILE, files[dumps[0]])
        for k in dumps:
            del files[k]
    return files


@contextlib.contextmanager
def _partitions_progress(folder: Path, config: ArmConfig, ctx: RunContext) -> Iterator[None]:
    """Report "lower" as partitions finish: each partition's folder gets its last file (Vela's
    summary; the TOSA file without Vela) when ExecuTorch is done with it. ExecuTorch gives no
    callback, so a thread looks every 0.5 s (globbing the folders is not free)."""
    if ctx.progress is None:
        yield
        return
    done = threading.Event()
    pattern = "output/*_summary_*.csv" if config.uses_vela else "*.tosa"

    def watch() -> None:
        while not done.wait(0.5):
            tags = [p for p in folder.glob("tag*") if p.is_dir()]
            finished = sum(1 for p in tags if any(p.glob(pattern)))
            if tags and ctx.progress is not None:
                ctx.progress("lower", 0.1 + 0.85 * finished / len(tags))

    thread = threading.Thread(target=watch, name="vpu-arm-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


@contextlib.contextmanager
def captured_stdout() -> Iterator[io.StringIO]:
    """What Vela prints (Python's sys.stdout and file descriptor 1), kept instead of shown."""
    captured = io.StringIO()
    with tempfile.TemporaryFile() as sink:
        import sys

        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(sink.fileno(), 1)
        try:
            with contextlib.redirect_stdout(captured):
                yield captured
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
            sink.seek(0)
            captured.write(sink.read().decode("utf-8", "replace"))


def _vela_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("ethos-u-vela")
    except metadata.PackageNotFoundError:
        return "unknown"
