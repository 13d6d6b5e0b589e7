"""Vela's reports of each Ethos-U partition, read back onto the nodes of the converted graph.

    estimate = vela_estimate(config, partitions, graph, vela_version)      # results.VelaEstimate

Each partition (one delegate) leaves, in its own folder (vpu_core.targets.arm.lowering):

    out.tosa                     the TOSA flatbuffer Vela compiled
    debug.json                   ExecuTorch's debug information: every TOSA operator's name with the
                                 torch nodes it came from (`dump_debug_info(DebugMode.JSON)`)
    output/out_debug.xml         Vela's database (`--enable-debug-db`): table "perf", one row per NPU
                                 operation (cycles, NPU cycles, MACs, memory access cycles,
                                 staging) with the id of its TOSA source operation; table "source",
                                 each source operation with `ext_key`, its index in the TOSA block
    output/out_per-layer.csv     the same rows as Vela prints them (`--verbose-performance`)
    output/out_summary_*.csv     Vela's network summary: total and NPU cycles, clock, SRAM and flash

How an NPU operation finds its node: perf.source_id → source.ext_key → the TOSA operator at that
index → its output tensor's name → the debug.json entry of that name → its torch node trace, the
provenance chain of the node it was lowered from → the first node of the converted graph on it
(a compute op rather than a Q/DQ node when the chain has both). A TOSA operator Vela splits in
two (a large transpose) keeps one source id, so both halves reach the same node; Vela's own
operations whose source leads nowhere are listed as unattributed.
"""
from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from vpu_core.targets.arm.configs import ArmConfig
from vpu_core.targets.arm.results import NodeCost, PartitionCost, UnattributedCost, VelaEstimate

DEBUG_DB = "output/out_debug.xml"
PER_LAYER = "output/out_per-layer.csv"
SUMMARY_PREFIX = "output/out_summary_"
TOSA_FILE = "out.tosa"
DEBUG_JSON = "debug.json"
# Vela's memory access cycle columns, by the memory they read (absent columns are 0)
ACCESS_COLUMNS = {"sram": "Sram_ac", "dram": "Dram_ac", "onchip_flash": "OnChipFlash_ac",
                  "offchip_flash": "OffChipFlash_ac"}
_TABLE = re.compile(r'<table name="(\w+)">\s*<!\[CDATA\[\s*(.*?)\]\]>', re.S)


@dataclass(frozen=True)
class GraphNames:
    """What the mapping needs to know of the converted graph (plain data, no torch)."""

    order: Sequence[str]             # every node name, in graph order
    ops: frozenset[str]              # compute ops (not Q/DQ, not constants)
    graph_id: int | None = None      # id() of the graph that was exported, in this process


@dataclass(frozen=True)
class PartitionFiles:
    """One partition's files, by path relative to its folder (bytes: they may come from the cache)."""

    index: int
    files: Mapping[str, bytes]
    nodes: tuple[str, ...] = ()      # converted-graph ops in the partition (from the verdict)


def vela_estimate(config: ArmConfig, partitions: Sequence[PartitionFiles], graph: GraphNames,
                  vela_version: str) -> VelaEstimate:
    costs: dict[str, list] = {}
    unattributed: list[UnattributedCost] = []
    summaries: list[PartitionCost] = []
    summary: dict[str, str] = {}
    for part in partitions:
        summary = _summary(part.files)
        summaries.append(_partition_cost(part, summary))
        origin = _origins(part.files, graph)
        for row in _table(part.files, "perf"):
            node = origin.get(row.get("source_id", ""))
            if node is None:
                unattributed.append(UnattributedCost(part.index, row.get("operator", ""), row.get("name", ""),
                                                     _int(row, "op_cycles"), _int(row, "npu_cycles")))
            else:
                costs.setdefault(node, []).append((part.index, row))
    order = {n: i for i, n in enumerate(graph.order)}
    nodes = tuple(_node_cost(n, rows) for n, rows in sorted(costs.items(), key=lambda kv: order.get(kv[0], 1 << 30)))
    return VelaEstimate(
        target=config.name, accelerator=summary.get("accelerator_configuration", config.accelerator),
        system_config=summary.get("system_config", config.system_config),
        memory_mode=summary.get("memory_mode", config.memory_mode),
        clock_hz=_float(summary, "core_clock"), vela_version=vela_version,
        macs_per_cycle=config.macs_per_cycle, partitions=tuple(summaries), nodes=nodes,
        unattributed=tuple(unattributed))


def _node_cost(node: str, rows: list[tuple[int, dict[str, str]]]) -> NodeCost:
    def total(column: str) -> int:
        return sum(_int(r, column) for _, r in rows)

    return NodeCost(
        node=node, partition=rows[0][0], cycles=total("op_cycles"), npu_cycles=total("npu_cycles"),
        macs=total("mac_count"), sram_access_cycles=total(ACCESS_COLUMNS["sram"]),
        dram_access_cycles=total(ACCESS_COLUMNS["dram"]),
        onchip_flash_access_cycles=total(ACCESS_COLUMNS["onchip_flash"]),
        offchip_flash_access_cycles=total(ACCESS_COLUMNS["offchip_flash"]),
        staging_bytes=max(_int(r, "staging_usage") for _, r in rows),
        vela_ops=tuple(r.get("operator", "") for _, r in rows))


def _partition_cost(part: PartitionFiles, s: Mapping[str, str]) -> PartitionCost:
    cycles = int(_float(s, "cycles_total"))
    clock = _float(s, "core_clock")
    kib = 1024.0
    flash = _float(s, "on_chip_flash_memory_used") + _float(s, "off_chip_flash_memory_used")
    perf = _table(part.files, "perf")
    return PartitionCost(
        index=part.index, cycles=cycles, npu_cycles=int(_float(s, "cycles_npu")), macs=int(_float(s, "nn_macs")),
        inference_ms=1e3 * cycles / clock if clock else 0.0,
        sram_bytes=round(_float(s, "sram_memory_used") * kib), flash_bytes=round(flash * kib),
        dram_bytes=round(_float(s, "dram_memory_used") * kib),
        operations=len(perf), nodes=part.nodes)


def _summary(files: Mapping[str, bytes]) -> dict[str, str]:
    """The network summary row (Vela writes one CSV named after the system configuration)."""
    for path, data in files.items():
        if path.startswith(SUMMARY_PREFIX) and path.endswith(".csv"):
            rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
            return rows[0] if rows else {}
    return {}


def _table(files: Mapping[str, bytes], name: str) -> list[dict[str, str]]:
    """A table of Vela's debug database as dicts (its CDATA is CSV)."""
    text = files.get(DEBUG_DB, b"").decode("utf-8")
    for found in _TABLE.finditer(text):
        if found.group(1) == name:
            return list(csv.DictReader(io.StringIO(found.group(2))))
    return []


def _origins(files: Mapping[str, bytes], graph: GraphNames) -> dict[str, str]:
    """Vela source operation id -> the converted-graph node it was lowered from."""
    outputs = tosa_operator_outputs(files.get(TOSA_FILE, b""))
    traces = _traces(files.get(DEBUG_JSON, b"[]"))
    out: dict[str, str] = {}
    for row in _table(files, "source"):
        key = row.get("ext_key", "")
        if not key.isdigit() or int(key) >= len(outputs):
            continue
        node = None
        for tensor in outputs[int(key)]:
            node = node or converted_node(traces.get(tensor, ()), graph)
        if node is not None:
            out[row["id"]] = node
    return out


def _traces(data: bytes) -> dict[str, tuple[tuple[str, int | None], ...]]:
    """TOSA operator name -> its torch node trace as (name, graph id) pairs, as ExecuTorch lists them."""
    out = {}
    for entry in json.loads(data.decode("utf-8") or "[]"):
        name = entry.get("tosa_info", {}).get("node_name")
        trace = entry.get("torch_info", {}).get("node_trace")
        if name and isinstance(trace, list):
            out[name] = tuple((t.get("name", ""), t.get("graph_id")) for t in trace)
    return out


def converted_node(trace: Sequence[tuple[str, int | None]], graph: GraphNames) -> str | None:
    """The converted-graph node a trace leads to: entries of the exported graph first (by graph id,
    in this process), else any entry naming a node; among those a compute op first."""
    names = set(graph.order)
    named = [n for n, gid in trace if n in names and (graph.graph_id is None or gid == graph.graph_id)]
    if not named:
        named = [n for n, _ in trace if n in names]
    ops = [n for n in named if n in graph.ops]
    first = ops or named
    return first[0] if first else None


def tosa_operator_outputs(data: bytes) -> list[tuple[str, ...]]:
    """The output tensor names of every operator of a TOSA flatbuffer's main block, in order."""
    if not data:
        return []
    from tosa.TosaGraph import TosaGraph      # tosa-tools' generated reader of the TOSA schema

    graph = TosaGraph.GetRootAsTosaGraph(data, 0)
    if graph.RegionsLength() == 0 or graph.Regions(0).BlocksLength() == 0:
        return []
    block = graph.Regions(0).Blocks(0)
    ops = (block.Operators(i) for i in range(block.OperatorsLength()))
    return [tuple(op.Outputs(j).decode() for j in range(op.OutputsLength())) for op in ops]


def _int(row: Mapping[str, str], column: str) -> int:
    try:
        return int(float(row.get(column) or 0))
    except ValueError:
        return 0


def _float(row: Mapping[str, str], column: str) -> float:
    try:
        return float(row.get(column) or 0.0)
    except ValueError:
        return 0.0
