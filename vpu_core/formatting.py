"""Every number a user reads, formatted in one place: scales (as 2^k when they are one), zero points,
shifts, bytes, dB, shapes, argument values and node labels.

The text report, the HTML report, the graph labels and the GUI all format through this module, so
a scale reads the same everywhere. `is_pow2` is also what the power-of-two rule checks with: one
tolerance decides both "this scale breaks rule 4" and "this scale is shown as 2^k".

Pure Python on plain values (no torch, no Qt): importable by the GUI at start-up.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis, NodeInfo, OpArgument, QuantParams, TensorQParams

POW2_TOLERANCE = 1e-6   # relative: float32 rounding of 2^k stays far inside it, 2^k·(1+1e-3) does not


# -- the quantizer ---------------------------------------------------------------------------------

def quantizer_label(a: Analysis) -> str:
    """Who quantized the graph: "VPU", "XNNPACK"; a loaded program file "XNNPACK (program file)",
    or "already quantized (program file)" when the file does not record its quantizer."""
    if not a.already_quantized:
        return a.quantizer.upper()
    if a.quantizer == "unknown":
        return "already quantized (program file)"
    return f"{a.quantizer.upper()} (program file)"


def quantizer_phrase(a: Analysis) -> str:
    """"VPU quantizer", "XNNPACK quantizer (program file)", "already quantized (program file)"."""
    if a.already_quantized and a.quantizer == "unknown":
        return quantizer_label(a)
    return f"{a.quantizer.upper()} quantizer" + (" (program file)" if a.already_quantized else "")


# -- powers of two ---------------------------------------------------------------------------------

def is_pow2(value: float) -> bool:
    """value == 2^k for an integer k, to POW2_TOLERANCE (relative)."""
    if not isinstance(value, (int, float)) or not value > 0 or not math.isfinite(value):
        return False
    k = round(math.log2(value))
    return abs(value / 2.0 ** k - 1.0) <= POW2_TOLERANCE


def log2_int(value: float) -> int:
    """The k of 2^k nearest to `value` (> 0)."""
    return round(math.log2(value))


def scale_text(scale: float) -> str:
    """Short: "2^-5" for a power of two, else four significant digits ("0.02728")."""
    return f"2^{log2_int(scale)}" if is_pow2(scale) else f"{scale:.4g}"


def scale_detail(scale: float) -> str:
    """Long: "0.03125 = 2^-5" for a power of two, else six significant digits ("0.0272842")."""
    return f"{scale:.6g} = 2^{log2_int(scale)}" if is_pow2(scale) else f"{scale:.6g}"


def scales_text(scales: Sequence[float]) -> str:
    """One scale short; several as "16 ch 2^-9…2^-6" (or "16 ch 2^-7" when all equal); "—" for none."""
    scales = tuple(scales)
    if not scales:
        return "—"
    if len(scales) == 1:
        return scale_text(scales[0])
    lo, hi = min(scales), max(scales)
    return f"{len(scales)} ch {scale_text(lo)}…{scale_text(hi)}" if lo != hi else f"{len(scales)} ch {scale_text(lo)}"


def scales_detail(scales: Sequence[float]) -> str:
    """One scale long; several as "16 channels: 0.001953 = 2^-9 … 0.01563 = 2^-6"."""
    scales = tuple(scales)
    if not scales:
        return "computed at run time"
    if len(scales) == 1:
        return scale_detail(scales[0])
    lo, hi = min(scales), max(scales)
    span = scale_detail(lo) if lo == hi else f"{scale_detail(lo)} … {scale_detail(hi)}"
    return f"{len(scales)} channels: {span}"


def zero_points_text(points: Sequence[int]) -> str:
    """"0", "all 0" (several equal), "-128…5" (several different), "—" for none."""
    values = sorted(set(points))
    if not values:
        return "—"
    if len(values) == 1:
        return f"all {values[0]}" if len(points) > 1 else str(values[0])
    return f"{values[0]}…{values[-1]}"


def quant_params_rows(qp: QuantParams) -> list[tuple[str, str]]:
    """(label, text) rows of one Q/DQ node's parameters, as the node panel lists them."""
    if qp.per_channel:
        rows = [("scales", scales_detail(qp.scales)), ("zero_points", zero_points_text(qp.zero_points)),
                ("axis", str(qp.axis))]
    else:
        rows = [("scale", scales_detail(qp.scales)), ("zero_point", zero_points_text(qp.zero_points))]
    return rows + [("dtype", qp.dtype), ("range", f"[{qp.quant_min}, {qp.quant_max}]")]


def quant_params_short(qp: QuantParams) -> str:
    """The second line of a Q/DQ box: "2^-5 int8", "per-channel int8"."""
    scale = "per-channel" if qp.per_channel else (scale_text(qp.scales[0]) if qp.scales else "")
    return " ".join(p for p in (scale, qp.dtype) if p)


def tensor_text(t: TensorQParams | None) -> str:
    """One tensor in a line: "int8 · 2^-5 · zp 0" or "int8 · per-channel ×16 · 2^-11…2^-8 · zp 0"."""
    if t is None:
        return "—"
    scales = sorted(set(t.scales))
    if not scales:
        scale = "dynamic scale"
    elif len(scales) == 1:
        scale = scale_text(scales[0])
    else:
        scale = f"{scale_text(scales[0])}…{scale_text(scales[-1])}"
    parts = [t.dtype or "?"]
    if len(t.scales) > 1:
        parts.append(f"per-channel ×{len(t.scales)}")
    parts.append(scale)
    zps = sorted(set(t.zero_points))
    if zps:
        parts.append(f"zp {zps[0]}" if len(zps) == 1 else f"zp {zps[0]}…{zps[-1]}")
    return " · ".join(parts)


# -- other numbers -----------------------------------------------------------------------------------

def compact_ints(values: Iterable[int]) -> str:
    """"7, 7, 8" as is; longer lists as counts per distinct value: "7 ×6, 8 ×4"."""
    values = list(values)
    if len(values) <= 8:
        return ", ".join(str(v) for v in values)
    counts: dict[int, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return ", ".join(f"{v} ×{c}" for v, c in sorted(counts.items()))


def profile_label(path: str | None) -> str:
    """The hardware profile of a run as the window names it: "default profile" or the file's stem."""
    from pathlib import Path

    return Path(path).stem if path else "default profile"


def human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def time_text(us: float | None) -> str:
    """Microseconds as people read a duration: "0.4 µs", "37 µs", "1.45 ms", "2.1 s"."""
    if us is None or not math.isfinite(us):
        return "n/a"
    if abs(us) >= 1e6:
        return f"{us / 1e6:.2f} s"
    if abs(us) >= 1e3:
        return f"{us / 1e3:.2f} ms"
    return f"{us:.1f} µs" if abs(us) < 100 else f"{us:.0f} µs"


def db_text(value: float | None) -> str:
    if value is None:
        return "n/a"
    if not math.isfinite(value):
        return "∞ dB" if value > 0 else "−∞ dB"
    return f"{value:.1f} dB"


def percent_text(fraction: float, digits: int = 3) -> str:
    """A share of elements, "0 %" when none: "0.085 %"."""
    return f"{100.0 * fraction:.{digits}f} %" if fraction else "0 %"


def count_text(n: int, noun: str) -> str:
    """"1 layer", "3 layers"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def badge_count_text(n: int, cap: int = 99) -> str:
    """A count on a small badge: "7", "99", and "99+" beyond `cap` (the tooltip states it in full)."""
    return f"{cap}+" if n > cap else str(n)


def shorter_shapes(text: str) -> list[str]:
    """`text` ("1×3×64×64 fp32") with ever more whole dimensions of its shape dropped, each a
    single "…" dimension between the first and the last ones kept: ["1×…×64×64 fp32",
    "1×…×64 fp32"]. A drawn shape that does not fit loses whole numbers, never digits of one."""
    words = text.split(" ")
    at = next((i for i, w in enumerate(words) if w.count("×") >= 2), None)
    if at is None:
        return []
    dims = words[at].split("×")
    out = []
    for drop in range(1, len(dims) - 1):
        keep_tail = len(dims) - 1 - drop
        shape = "×".join([dims[0], "…", *dims[len(dims) - keep_tail:]])
        out.append(" ".join([*words[:at], shape, *words[at + 1:]]))
    return out


def shape_text(shape: str | Sequence[int]) -> str:
    """[16, 8, 16, 16] or "[16, 8, 16, 16]" → "16×8×16×16"; several equal outputs → "16×4×16×8 (×3)"."""
    if not isinstance(shape, str):
        return "×".join(str(d) for d in shape) if len(shape) else "scalar"
    shape = shape.strip()
    if not shape:
        return ""
    parts = [p.strip(" []") for p in shape.split("],")]
    dims = ["×".join(d.strip() for d in p.split(",") if d.strip()) for p in parts]
    if len(dims) > 1:
        return f"{dims[0]} (×{len(dims)})" if len(set(dims)) == 1 else f"{dims[0]} …"
    return dims[0] or "scalar"


def value_text(value: object, limit: int = 4) -> str:
    """A plain value (violation values, op arguments): floats to 6 digits, long lists cut."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        items = [value_text(v, limit) for v in value[:limit]]
        more = f", … ({len(value)} values)" if len(value) > limit else ""
        return "[" + ", ".join(items) + more + "]"
    return str(value)


def argument_text(arg: OpArgument) -> str:
    """An op argument's value: node names as they are, lists in brackets, floats to 6 digits."""
    return value_text(arg.value, limit=8)


# -- nodes -------------------------------------------------------------------------------------------

_QDQ_PREFIX = "quantized_decomposed."


_DTYPE_SHORT = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64"}


def dtype_short(dtype: str) -> str:
    """"float32" → "fp32" (graph boxes are narrow); integer dtypes as they are."""
    return _DTYPE_SHORT.get(dtype, dtype)


def op_label(op: str) -> str:
    """"conv2d.default" → "conv2d"; "quantized_decomposed.quantize_per_tensor.default" → "quantize"."""
    op = op[len(_QDQ_PREFIX):] if op.startswith(_QDQ_PREFIX) else op
    base = op.split(".", 1)[0]
    if base.startswith(("quantize_per", "dequantize_per")):
        return base.split("_per", 1)[0]
    return base


def call_text(path: str) -> str:
    """A module path as the window names it: a repeated call, "@k" in torch.export's numbering
    (and in the JSON's group paths), is spelled out as its 1-based call number —
    "layers.0.attention@2" → "layers.0.attention #3" — the same in the node panel, the tables,
    the breadcrumbs and the group titles."""
    base, at, call = path.rpartition("@")
    return f"{base} #{int(call) + 1}" if at and call.isdigit() else path


def module_name(info: NodeInfo) -> str:
    """The module a node is shown in: its module path (a repeated call numbered, `call_text`);
    at the top level (an op written in the model's own `forward`, its Q/DQ) the model's class
    ("BertModel"); "" for graph inputs."""
    return call_text(info.module) if info.module else info.top_module


def node_label(info: NodeInfo) -> str:
    """How tables name a node: its module and op ("stages.0.path_a.0 · conv2d", "BertModel · ge"
    for an op of the model's own forward), never only the generated fx name; a node without a
    module (a graph input) keeps its name."""
    if info.kind in ("placeholder", "output"):
        return info.name
    what = "parameter" if info.kind == "get_attr" else op_label(info.op)
    where = module_name(info)
    return f"{where} · {what}" if where else f"{info.name} · {what}"


# -- metric legends ------------------------------------------------------------------------------------

def metric_value_text(value: float, unit: str = "") -> str:
    """A metric value as a legend or a group box shows it: 3 significant digits, thousands
    grouped from 10^4, the unit after a space ("9.17 dB", "12,288 B")."""
    if abs(value) >= 1e4:
        text = f"{value:,.0f}"
    else:
        text = f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"
    return f"{text} {unit}".strip()


class MetricSpan(Protocol):
    """What a legend says of a metric's range (vpu_core.graph.metrics.MetricRange)."""

    @property
    def ends(self) -> tuple[float, float]: ...
    @property
    def low_end_worst(self) -> bool: ...
    @property
    def clipped(self) -> bool: ...
    @property
    def percentiles(self) -> bool: ...
    @property
    def worst(self) -> float | None: ...
    @property
    def beyond_worst(self) -> int: ...
    @property
    def beyond_best(self) -> int: ...


def metric_legend_texts(r: MetricSpan, unit: str, neutral: bool) -> tuple[str, str, str]:
    """(left end, right end, note) of a metric gradient legend for a vpu_core.graph.metrics
    MetricRange `r`, worst end on the left: an end with values beyond it says so ("≤ 9.17 dB"),
    and the note names the clipping and the true worst value ("5th–95th percentile shown:
    3 ops beyond · worst 3.52 dB")."""
    worst_end, best_end = r.ends
    below, above = ("≤ ", "≥ ") if r.low_end_worst else ("≥ ", "≤ ")
    left = (below if r.beyond_worst else "") + metric_value_text(worst_end, unit)
    right = (above if r.beyond_best else "") + metric_value_text(best_end, unit)
    if not neutral:
        left, right = f"{left} (worse)", f"{right} (better)"
    note = ""
    if r.clipped:
        ends = "5th–95th percentile" if r.percentiles else "scale"
        beyond = r.beyond_worst + r.beyond_best
        note = f"{ends} shown: {beyond} op{'s' if beyond != 1 else ''} beyond"
        if r.worst is not None and r.beyond_worst:
            note += f" · worst {metric_value_text(r.worst, unit)}"
    return left, right, note


# -- before / after ------------------------------------------------------------------------------------

def card_value_text(value: float | None, unit: str) -> str:
    """A before / after value: counts as integers, bytes as KiB / MiB, dB to 0.1, a share in %."""
    if value is None:
        return "—"
    if unit == "B":
        return human_bytes(int(value))
    if unit == "dB":
        return f"{value:.1f} dB"
    if unit == "share":
        return f"{100 * value:.1f} %"
    if unit == "value":
        return f"{value:.4g}"
    return f"{value:.0f}"


def card_delta_text(delta: float | None, unit: str) -> str:
    """The change: "−2", "+1.3 dB", "−12.5 KiB", "+4.0 pp", "±0" when nothing moved."""
    if delta is None:
        return "—"
    if abs(delta) < 1e-9:
        return "±0"
    sign = "+" if delta > 0 else "−"
    size = abs(delta)
    if unit == "B":
        return sign + human_bytes(int(round(size)))
    if unit == "dB":
        return f"{sign}{size:.1f} dB"
    if unit == "share":
        return f"{sign}{100 * size:.1f} pp"
    if unit == "value":
        return f"{sign}{size:.3g}"
    return f"{sign}{size:.0f}"


def samples_text(n: int) -> str:
    """"1 sample", "16 samples": what an accuracy figure rests on."""
    return f"{n} sample{'s' if n != 1 else ''}"


def db_on_samples(db: float | None, n: int) -> str:
    """"29.5 dB (1 sample)": an accuracy figure with the number of samples it rests on."""
    return f"{db_text(db)} ({samples_text(n)})" if db is not None else db_text(db)
