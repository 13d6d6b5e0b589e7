"""Module membership from each op's own nn_module_stack.

An op written in a model's own `forward` belongs to the model (the top level), never to the
module of whatever consumes it; only Q/DQ nodes and parameters (with their constant chains)
follow the op they quantize for. The same group and the same table label under both quantizers,
in the violations / partition tables (node_label) and the compare table (the source module).

Real runs: tests/models/root_forward.py (Whisper's `gelu(conv(x))` and ConvNeXt's
`norm(x.mean())` written in the root forward, nested modules with ops of their own) under both
quantizers, and the corpus BERT (its attention-mask arithmetic is BertModel's own) through the
corpus fixture's remembered runs.
"""
from __future__ import annotations

import functools
import os

import pytest

from vpu_core.config import RunConfig
from vpu_core.formatting import node_label
from vpu_core.analysis.hierarchy import module_tree

MODELS = os.path.join(os.path.dirname(__file__), "models")
ROOT_FORWARD = os.path.join(MODELS, "root_forward.py")
QDQ = "quantized_decomposed."


@functools.lru_cache(maxsize=None)
def _analysis(model: str, quantizer: str):
    from vpu_core.session import default_session

    return default_session().analysis(RunConfig(model=model, quantizer=quantizer, calib_batches=1))


def _is_op(info) -> bool:
    return info.kind == "call_function" and not info.op.startswith(QDQ)


def _assert_membership(analysis) -> int:
    """Every op in its own module; a quantize with its producer, a dequantize with its consumers,
    a parameter with its consumer; NodeInfo.module is the innermost group. Returns the number of
    Q/DQ nodes checked."""
    tree = module_tree(analysis)
    owner, nodes = tree.owner, analysis.nodes
    checked = 0
    for name, info in nodes.items():
        assert info.module == (owner[name] or ""), name      # the label and the box agree
        if _is_op(info) and info.traced:
            assert owner[name] == (info.module_stack[-1][0] if info.module_stack else None), name
        elif info.op.startswith(QDQ + "quantize") and info.inputs and _is_op(nodes[info.inputs[0]]):
            assert owner[name] == owner[info.inputs[0]], name
            checked += 1
        elif info.op.startswith(QDQ + "dequantize"):
            users = [u for u in info.outputs if _is_op(nodes[u])]
            if users and len({owner[u] for u in users}) == 1:
                assert owner[name] == owner[users[0]], name
                checked += 1
        elif info.kind == "get_attr" and len(info.outputs) == 1:
            assert owner[name] == owner[info.outputs[0]], name
    return checked


@pytest.mark.parametrize("quantizer", ["vpu", pytest.param("xnnpack", marks=pytest.mark.slow)])
def test_ops_of_the_root_forward_sit_at_the_top_level(quantizer):
    a = _analysis(ROOT_FORWARD, quantizer)
    tree = module_tree(a)
    owner = tree.owner
    ops = {n: i for n, i in a.nodes.items() if _is_op(i)}
    by_op = {}
    for name, info in ops.items():
        by_op.setdefault(info.op.split(".")[0], []).append(name)
    assert [owner[n] for n in by_op["gelu"]] == [None, None]           # not in conv2 / conv1
    assert [owner[n] for n in by_op["mean"]] == [None]                 # not in the norm
    assert [owner[n] for n in by_op["permute"]] == [None]
    assert [owner[n] for n in by_op["conv1d"]] == ["conv1", "conv2"]
    assert owner[by_op["linear"][0]] == "block.lin" and owner[by_op["relu"][0]] == "block.act"
    assert owner[by_op["mul"][0]] == "block"                            # Block's own forward
    assert owner[by_op["layer_norm"][0]] == "norm"
    assert not {n for g in ("conv1", "conv2", "norm") for n in tree.groups[g].nodes} & {
        *by_op["gelu"], *by_op["mean"]}
    assert [node_label(ops[n]) for n in by_op["gelu"]] == ["Model · gelu", "Model · gelu"]
    assert _assert_membership(a) >= 5
    # the quantize after a root gelu is the gelu's (top level), its dequantize conv2's
    gelu = by_op["gelu"][0]
    after = [u for u in a.nodes[gelu].outputs if a.nodes[u].op.startswith(QDQ + "quantize")]
    assert all(owner[q] is None for q in after)


@pytest.mark.slow
def test_the_same_group_and_label_under_both_quantizers_and_in_every_table(qapp):
    from app.widgets.compare_table import module_text
    from app.widgets.tables import label
    from vpu_core.compare import compare

    vpu, xnn = _analysis(ROOT_FORWARD, "vpu"), _analysis(ROOT_FORWARD, "xnnpack")
    tree_v, tree_x = module_tree(vpu), module_tree(xnn)
    ops = [n for n, i in vpu.nodes.items() if _is_op(i) and n in xnn.nodes]
    assert len(ops) >= 10
    for n in ops:
        assert tree_v.owner[n] == tree_x.owner[n], n
        assert label(vpu, n) == label(xnn, n) == node_label(vpu.nodes[n]), n
    # the partition table names its CPU nodes the same way: the root gelu is Model's
    cpu = {c.node for c in vpu.partition.cpu_nodes}
    gelus = [n for n in ops if vpu.nodes[n].op.startswith("gelu")]
    assert set(gelus) <= cpu and {label(vpu, n) for n in gelus} == {"Model · gelu"}
    # violations are labelled by the node they are reported on, with its own module
    for v in xnn.violations:
        assert label(xnn, v.node).split(" · ")[0] in ("", "Model", *tree_x.groups), v.node
    # the compare table's module column: the module the op ran in (Model for the gelus)
    pairs = {p.a.node: p for p in compare(vpu, xnn).pairs}
    assert {module_text(pairs[n].key) for n in gelus} == {"Model"}
    assert module_text(pairs[next(n for n in ops if vpu.nodes[n].op.startswith("mul"))].key) == "block (Block)"


@pytest.mark.parametrize("quantizer", ["vpu", pytest.param("xnnpack", marks=pytest.mark.slow)])
def test_bert_mask_arithmetic_is_bertmodels_own_not_the_encoders(corpus_check, quantizer):
    result = corpus_check("bert_text", quantizer)             # the corpus run, remembered
    assert result["code"] in (0, 1)
    a = _analysis(os.path.join(os.path.dirname(__file__), "corpus", "bert_text.py"), quantizer)
    tree = module_tree(a)
    root_ops = [n for n, i in a.nodes.items() if _is_op(i) and i.traced and not i.module_stack]
    mask_ops = [n for n in root_ops if a.nodes[n].op.split(".")[0] in ("ge", "__and__", "new_ones")]
    assert mask_ops and all(tree.owner[n] is None for n in root_ops)
    assert not set(root_ops) & set(tree.groups["encoder"].nodes)
    assert {node_label(a.nodes[n]) for n in mask_ops} == {f"BertModel · {a.nodes[n].op.split('.')[0]}"
                                                          for n in mask_ops}
    json_groups = {g["path"]: set(g["nodes"]) for g in result["json"]["groups"]}
    assert not set(root_ops) & json_groups["encoder"]
    _assert_membership(a)


@pytest.mark.slow
def test_whispers_first_gelu_is_the_encoders_not_conv2s():
    """docs/guide.md's example: WhisperEncoder.forward writes `gelu(self.conv1(x))`."""
    a = _analysis(os.path.join(MODELS, "whisper_encoder.py"), "vpu")
    tree = module_tree(a)
    gelus = [n for n, i in a.nodes.items() if i.op.startswith("gelu")]
    assert [tree.owner[n] for n in gelus[:2]] == [None, None]
    assert node_label(a.nodes[gelus[0]]) == "WhisperEncoder · gelu"
    assert tree.owner[gelus[2]].startswith("layers.0")                # the MLP's own gelu
    _assert_membership(a)
