"""Read the operator list of an XNNPACK delegate blob, and match the runtime's operator events to it.

The blob ExecuTorch's XnnpackBackend serialises is a header + a flatbuffer (schema.fbs of
executorch.backends.xnnpack.serialization) whose `xnodes` are the XNNPACK graph's nodes in the
order they were defined, each with the `debug_handle` of the edge-graph node it came from
(65535 for nodes the XNNPACK passes inserted, e.g. the NCHW↔NHWC transposes). The flatbuffer is
turned into JSON by ExecuTorch's own `flatc` (the one that wrote it).

At run time XNNPACK's profiler names operators, not graph nodes ("Convolution (NHWC, QC8) IGEMM
#2", "Clamp (NC) #1"): XNNPACK fuses some nodes (a relu into its conv), splits others (an add's
output clamp becomes a Clamp operator) and runs them in definition order. `align` matches the
two sequences (longest common subsequence under "this operator can implement this node type");
an operator that matches no node (a split-off clamp) is charged to the node matched before it.
"""
from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass

NO_HANDLE = 65535            # executorch.backends.xnnpack.operators.node_visitor's default


@dataclass(frozen=True)
class XNode:
    type: str                # "XNNConv2d"
    debug_handle: int | None  # None for NO_HANDLE


def decode_xnodes(blob: bytes) -> list[XNode]:
    """The xnodes of one XNNPACK delegate blob (LoweredBackendModule.processed_bytes)."""
    from executorch.backends.xnnpack.serialization.xnnpack_graph_serialize import XNNHeader

    header = XNNHeader.from_bytes(blob[:XNNHeader.EXPECTED_LENGTH])
    flatbuffer = blob[header.flatbuffer_offset:header.flatbuffer_offset + header.flatbuffer_size]
    graph = _flatbuffer_json(flatbuffer)
    out = []
    for x in graph.get("xnodes", []):
        handle = x.get("debug_handle")
        handle = None if handle is None or int(handle) == NO_HANDLE else int(handle)
        out.append(XNode(str(x.get("xnode_union_type", "")), handle))
    return out


def _flatbuffer_json(flatbuffer: bytes) -> dict:
    from importlib import resources

    from executorch.backends.xnnpack import serialization
    from executorch.exir._serialize._flatbuffer import _flatc_decompile

    with tempfile.TemporaryDirectory(prefix="vpu-xnn-") as folder:
        schema = os.path.join(folder, "schema.fbs")
        with open(schema, "wb") as f:
            f.write(resources.files(serialization).joinpath("schema.fbs").read_bytes())
        blob = os.path.join(folder, "graph.bin")
        with open(blob, "wb") as f:
            f.write(flatbuffer)
        _flatc_decompile(folder, schema, blob)
        with open(os.path.join(folder, "graph.json"), encoding="utf-8") as f:
            text = f.read()
    # flatc writes inf / nan bare (clamp bounds); JSON has no such literals
    return json.loads(re.sub(r"(?<=[:\[,\s])(-?)(inf|nan)\b", r'"\1\2"', text))


# XNNPACK operator name (before " (" and " #k") -> the xnode types it can implement.
_IMPLEMENTS: dict[str, tuple[str, ...]] = {
    "convolution": ("Conv2d", "DepthwiseConv2d"),
    "deconvolution": ("ConvTranspose2d",),
    "fully connected": ("FullyConnected",),
    "batch matrix multiply": ("BatchMatrixMultiply",),
    "dynamic fully connected": ("FullyConnected", "BatchMatrixMultiply"),
    "add": ("Add",), "multiply": ("Multiply",), "subtract": ("Subtract",), "divide": ("Div",),
    "maximum": ("Maximum",), "minimum": ("Minimum",), "prelu": ("PReLU",),
    "clamp": ("Clamp",), "convert": ("Convert",), "copy": ("Copy", "Concatenate2", "Concatenate3",
                                                           "Concatenate4", "Concatenate5",
                                                           "StaticReshape"),
    "transpose": ("StaticTranspose",), "static reshape": ("StaticReshape",),
    "reshape": ("StaticReshape",), "slice": ("StaticSlice",),
    "constant pad": ("StaticConstantPad",), "resize bilinear": ("StaticResizeBilinear2D",),
    "mean": ("GlobalAvgPooling2d",), "global average pooling": ("GlobalAvgPooling2d",),
    "global sum pooling": ("GlobalAvgPooling2d",),
    "average pooling": ("AvgPooling2d",), "max pooling": ("MaxPooling2d",),
    "argmax pooling": ("ArgMaxPooling2d",),
    "concatenate": ("Concatenate2", "Concatenate3", "Concatenate4", "Concatenate5"),
    "softmax": ("Softmax",), "sigmoid": ("Sigmoid",), "tanh": ("Tanh",), "hardswish": ("Hardswish",),
    "leaky relu": ("LeakyReLU",), "elu": ("ELU",), "gelu": ("Gelu",), "exp": ("Exp",),
    "log": ("Log",), "sine": ("Sin",), "cosine": ("Cos",), "abs": ("Abs",), "negate": ("Negate",),
    "square": ("Square",), "square root": ("SquareRoot",),
    "reciprocal square root": ("ReciprocalSquareRoot",), "floor": ("Floor",), "ceiling": ("Ceiling",),
    "scaled dot product attention": ("ScaledDotProductAttention",),
}
# XNNPACK names newer unary operators "Invalid Unary Op": any one-input elementwise node.
_UNARY = ("Gelu", "Exp", "Log", "Sin", "Cos", "Tanh", "Sigmoid", "Abs", "Negate", "Square",
          "SquareRoot", "ReciprocalSquareRoot", "Floor", "Ceiling", "Hardswish", "ELU", "LeakyReLU",
          "Clamp")


def operator_kind(event_name: str) -> str:
    """"Convolution (NHWC, QC8) IGEMM #2" -> "convolution"."""
    return re.split(r"\s*[(#]", event_name, maxsplit=1)[0].strip().lower()


def implements(event_name: str, xnode_type: str) -> bool:
    """Whether the XNNPACK operator `event_name` can be the runtime form of `xnode_type`."""
    kind, node = operator_kind(event_name), xnode_type.removeprefix("XNN")
    if kind.startswith("invalid unary"):
        return node in _UNARY
    if kind in _IMPLEMENTS:
        return node in _IMPLEMENTS[kind]
    squashed = re.sub(r"[^a-z]", "", kind)              # an operator this table does not know
    return bool(squashed) and squashed in node.lower()


def align(events: list[str], xnodes: list[XNode]) -> list[int | None]:
    """For each event (runtime operator name, in execution order), the index of the xnode it
    implements; an unmatched event gets its predecessor's xnode (the first ones: the next match)."""
    n, m = len(events), len(xnodes)
    # LCS table from the back: best[i][j] = matches possible in events[i:], xnodes[j:]
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            hit = best[i + 1][j + 1] + 1 if implements(events[i], xnodes[j].type) else 0
            best[i][j] = max(hit, best[i + 1][j], best[i][j + 1])
    match: list[int | None] = [None] * n
    i = j = 0
    while i < n and j < m:
        if implements(events[i], xnodes[j].type) and best[i][j] == best[i + 1][j + 1] + 1:
            match[i], i, j = j, i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    previous: int | None = None
    for k, found in enumerate(match):
        if found is None:
            match[k] = previous
        previous = match[k]
    following: int | None = None
    for k in range(n - 1, -1, -1):       # leading unmatched events: the first match after them
        if match[k] is None:
            match[k] = following
        following = match[k]
    return match
