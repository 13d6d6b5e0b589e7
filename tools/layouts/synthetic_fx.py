"""A second synthetic shape for layout benchmarks: what torch.export makes of a transformer.

`synthetic_qdq_graph` (synthetic.py) is a CNN-like Q/DQ spine. Real exported transformers look
different, and a layout tuned to one shape can be slow on the other, so the benchmark lays out both:

- a causal mask and rotary cos / sin built from the sequence length (sym_size of the hidden
  state → arange → …) once per stage of LAYERS_PER_STAGE layers and read by every attention of
  the stage: one node, several long edges;
- per layer three attention branches (q, k, v: linear → view → permute, k transposed), scores
  scaled, masked, softmaxed, applied to v, merged back (permute → view) and projected;
- long residual skips around attention and around the MLP (pre-norm: x + attn(ln(x)));
- many small side chains: shape arithmetic (sym_size → getitem → mul → view), constants
  (get_attr), dropout clones, the Q/DQ pairs around every VPU linear, weights through
  dequantize_per_channel.

Node ids follow torch.export's naming (`linear_12`, `permute_3`, `_frozen_param7`); module stacks
in `meta["module_stacks"]` like synthetic.py, so `synthetic_tree` builds its groups too.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from vpu_core.graph.model import Category, GraphModel

from tools.layouts.synthetic import _Builder, _finish

if TYPE_CHECKING:
    from vpu_core.analysis.results import RunsOn

LAYERS_PER_STAGE = 4
NODES_PER_LAYER = 112          # roughly, with Q/DQ: used to size the model


class _Fx(_Builder):
    def op(self, name: str, ins, category: Category = "cpu", detail: str = "") -> str:
        runs_on: RunsOn | None = "cpu" if category == "cpu" else None
        return self.add(name, name, category, list(ins), detail=detail, runs_on=runs_on)

    def const(self, label: str = "_tensor_constant") -> str:
        return self.add("_tensor_constant", label, "param", detail="[]", is_param=True)

    def shape_chain(self, x: str) -> list[str]:
        """sym_size / getitem arithmetic that feeds a view: small side chains off the data path."""
        size = self.op("sym_size", [x], "io", "SymInt")
        batch = self.op("getitem", [size], "io", "SymInt")
        heads = self.op("mul", [batch, self.const("heads")], "io", "SymInt")
        return [batch, heads]

    def qlinear(self, x: str, c: int, vpu: bool = True) -> str:
        """A linear as convert_pt2e leaves it: Q/DQ on its input, a per-channel weight, a bias."""
        if vpu:
            x = self.qdq(x)
        return self.weighted("linear", x, c, 0)

    def layer_norm(self, x: str, c: int) -> str:
        w = self.add("_frozen_param", "weight", "param", detail=f"{c}", is_param=True)
        b = self.add("_frozen_param", "bias", "param", detail=f"{c}", is_param=True)
        return self.op("layer_norm", [x, w, b], "cpu", self.shape(c, 0).replace("int8", "fp32"))


def _stage_inputs(b: _Fx, x: str, stage: int) -> tuple[str, str, str]:
    """The causal mask and rotary cos / sin of one stage (read by all its layers), built from the
    sequence length of the hidden state `x`."""
    b.stack = (("rotary_emb", "RotaryEmbedding"),) if stage == 0 else ((f"stages.{stage}", "Stage"),)
    length = b.op("getitem", [b.op("sym_size", [x], "io", "SymInt")], "io", "SymInt")
    pos = b.op("arange", [length], "io")
    m = b.op("unsqueeze", [b.op("triu", [b.op("full", [length, b.const("min")], "cpu")], "cpu")], "cpu")
    m = b.op("to", [b.op("unsqueeze", [m], "cpu")], "cpu")
    mask = b.op("mul", [b.op("rsub", [m, b.const("one")], "cpu"), b.const("min")], "cpu")
    freqs = b.op("outer", [pos, b.const("inv_freq")], "cpu")
    emb = b.op("cat", [freqs, freqs], "cpu")
    return mask, b.op("cos", [emb], "cpu"), b.op("sin", [emb], "cpu")


def _rotate(b: _Fx, x: str, cos: str, sin: str) -> str:
    """x * cos + rotate_half(x) * sin: two slices, a neg, a cat, two muls and an add."""
    lo = b.op("slice", [x], "cpu")
    hi = b.op("slice", [x], "cpu")
    half = b.op("cat", [b.op("neg", [hi], "cpu"), lo], "cpu")
    return b.op("add", [b.op("mul", [x, cos], "cpu"), b.op("mul", [half, sin], "cpu")], "cpu")


def _attention(b: _Fx, h: str, c: int, mask: str, cos: str, sin: str) -> str:
    shape = b.shape_chain(h)
    q_in = b.add("quantize_per_tensor", "quantize", "qdq", [h])
    heads = []
    for name in ("q_proj", "k_proj", "v_proj"):
        b.enter(name, "Linear")
        deq = b.add("dequantize_per_tensor", "dequantize", "qdq", [q_in])
        y = b.weighted("linear", deq, c, 0)
        b.leave()
        y = b.op("view", [y, *shape], "vpu")
        y = b.op("permute", [y], "cpu")
        heads.append(y)
    q, k, v = (_rotate(b, heads[0], cos, sin), _rotate(b, heads[1], cos, sin), heads[2])
    k = b.op("transpose", [k], "cpu")
    s = b.op("matmul", [q, k], "cpu")
    s = b.op("div", [s, b.const("scale")], "cpu")
    s = b.op("add", [s, mask], "cpu")
    s = b.op("softmax", [s], "cpu")
    s = b.op("clone", [s], "cpu")                               # dropout in eval: a clone
    o = b.op("matmul", [s, v], "cpu")
    o = b.op("permute", [o], "cpu")
    o = b.op("contiguous", [o], "cpu")
    o = b.op("view", [o, *b.shape_chain(o)], "cpu")
    b.back_to_vpu()
    b.enter("o_proj", "Linear")
    o = b.qlinear(o, c)
    b.leave()
    return o


def _mlp(b: _Fx, h: str, c: int) -> str:
    b.enter("up_proj", "Linear")
    up = b.qlinear(h, 4 * c)
    b.leave()
    b.enter("gate_proj", "Linear")
    gate = b.qlinear(h, 4 * c)
    b.leave()
    act = b.op("mul", [b.op("silu", [b.qdq(gate)], "cpu"), b.qdq(up)], "cpu")
    b.back_to_vpu()
    b.enter("down_proj", "Linear")
    out = b.qlinear(act, c)
    b.leave()
    return out


def _layer(b: _Fx, x: str, c: int, index: int, mask: str, cos: str, sin: str) -> str:
    b.stack = ()
    b.enter("model", "Model")
    b.enter(f"layers.{index}", "DecoderLayer")
    b.enter("input_layernorm", "RMSNorm")
    h = b.layer_norm(x, c)
    b.leave()
    b.enter("self_attn", "Attention")
    a = _attention(b, h, c, mask, cos, sin)
    b.leave()
    x = b.op("add", [b.qdq(a), b.qdq(x)], "vpu", b.shape(c, 0))           # residual around attention
    b.enter("post_attention_layernorm", "RMSNorm")
    h = b.layer_norm(x, c)
    b.leave()
    b.enter("mlp", "MLP")
    m = _mlp(b, h, c)
    b.leave()
    return b.op("add", [b.qdq(m), b.qdq(x)], "vpu", b.shape(c, 0))         # residual around the MLP


def synthetic_fx_graph(n_nodes: int, seed: int = 0) -> GraphModel:
    """A transformer-shaped exported graph of about `n_nodes` nodes (exactly, padded at the end)."""
    n_nodes = max(40, int(n_nodes))
    b = _Fx(seed)
    ids = b.add("input_ids", "input_ids", "io", detail="1×197 int64")
    b.stack = (("embed_tokens", "Embedding"),)
    x = b.op("embedding", [b.add("_frozen_param", "weight", "param", detail="32000×256", is_param=True), ids])
    c, layer = 256, 0
    mask = cos = sin = ""
    while len(b.nodes) < n_nodes - NODES_PER_LAYER - 20:
        if layer % LAYERS_PER_STAGE == 0:
            mask, cos, sin = _stage_inputs(b, x, layer // LAYERS_PER_STAGE)
        x = _layer(b, x, c, layer, mask, cos, sin)
        layer += 1
    b.stack = (("norm", "RMSNorm"),)
    x = b.layer_norm(x, c)
    b.stack = (("lm_head", "Linear"),)
    x = b.qlinear(x, c)
    b.stack = ()
    while len(b.nodes) < n_nodes - 1:            # pad with a plain chain to the exact size
        x = b.op("clone", [x], "cpu")
    b.add("output", "output", "io", [x])
    return _finish(b, f"synthetic FX transformer graph ({n_nodes} nodes, seed {seed})")
