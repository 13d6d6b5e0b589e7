"""Which node of one graph stands for which node of another: by what it computes, never by name.

A compute op's key is (module path from nn_module_stack, ATen op, occurrence): the k-th time that
module runs that op, in graph order (vpu_core.compare matches two analyses the same way). Two
graphs of one model — the float graph and its converted Q/DQ graph, two quantizers' programs, two
versions of a model file, a program another tool made from the same nn.Module — agree on the
module tree and the ops even where torch.export and convert_pt2e numbered the nodes otherwise.

A float op whose value the other graph computes under another op is followed there: prepare_pt2e
folds a batch norm into the conv before it, so that conv is compared through the batch norm's
output, and the batch norm is listed as folded. What stays unmatched is listed with why.
"""
from __future__ import annotations

from collections import Counter

from torch.fx import GraphModule, Node

from vpu_core.analysis.qgraph import is_op
from vpu_core.fx_utils import op_name

Key = tuple[str, str, int]
_FOLDED = ("batch_norm", "_native_batch_norm_legit_no_training", "_native_batch_norm_legit")


def module_path(node: Node) -> str:
    """The innermost module's path ("stages.0.path_a.0"; "" at the top level)."""
    stack = node.meta.get("nn_module_stack")
    if not stack:
        return ""
    entry = list(stack.values())[-1]
    return str(entry[0] if isinstance(entry, tuple) else entry)


def op_keys(gm: GraphModule) -> dict[Key, Node]:
    """(module, op, occurrence) -> compute op, in graph order."""
    seen: Counter = Counter()
    out = {}
    for node in gm.graph.nodes:
        if not is_op(node):
            continue
        key = (module_path(node), op_name(node))
        out[(*key, seen[key])] = node
        seen[key] += 1
    return out


def is_folded(node: Node) -> bool:
    return op_name(node).split(".")[0] in _FOLDED


def match(ref: GraphModule, test: GraphModule) -> tuple[dict[str, Node], list[tuple[Node, str]]]:
    """({test op name: the ref node holding its value}, [(ref op, why unmatched)])."""
    ref_keys, test_keys = op_keys(ref), op_keys(test)
    pairs: dict[str, Node] = {}
    used: set[Node] = set()
    for key, node in test_keys.items():
        other = ref_keys.get(key)
        if other is not None:
            used.add(other)
            pairs[node.name] = other
    folded: dict[Node, str] = {}
    for name, other in list(pairs.items()):
        through = _through_folded(other, used)
        if through is not other:
            for n in _chain(other, through):
                folded[n] = name
            pairs[name] = through
    unmatched = []
    for key, node in ref_keys.items():
        if node in used:
            continue
        if node in folded:
            unmatched.append((node, f"folded into {folded[node]} (prepare_pt2e folds a batch norm into the "
                                    "op before it; that op is compared through its output)"))
        else:
            unmatched.append((node, why_missing(key, test_keys)))
    return pairs, unmatched


def why_missing(key: Key, other: dict[Key, Node]) -> str:
    """Why (module, op, k) of one graph has no counterpart among `other`'s keys."""
    module, op, k = key
    same_module = [n for (m, _, _), n in other.items() if m == module]
    same_op = sum(1 for (m, o, _) in other if m == module and o == op)
    if same_op:
        return f"the other graph runs {op} in '{module or '(top level)'}' {same_op} time(s), this is occurrence {k + 1}"
    if same_module:
        ops = ", ".join(dict.fromkeys(op_name(n).split(".")[0] for n in same_module))
        return f"decomposed or replaced: '{module or '(top level)'}' computes {ops} there instead"
    return f"removed: no op of '{module or '(top level)'}' remains in the other graph"


def _through_folded(node: Node, used: set[Node]) -> Node:
    """Follow a float op into the batch norm (and its getitem) folded into it."""
    while len(node.users) == 1:
        user = next(iter(node.users))
        if user.op != "call_function" or user in used or not is_folded(user):
            break
        node = user
        if len(node.users) == 1 and getattr(next(iter(node.users)).target, "__name__", "") == "getitem":
            node = next(iter(node.users))
    return node


def _chain(start: Node, end: Node) -> list[Node]:
    out, node = [], end
    while node is not start:
        if is_op(node):
            out.append(node)
        node = node.args[0] if isinstance(node.args[0], Node) else start
    return out


def matched_inputs(gm: GraphModule, valued: set[str]) -> dict[str, tuple[str, ...]]:
    """Every compute op -> the nearest ops among `valued` that feed it (through Q/DQ, getitem and
    ops without a value), in graph order: where the error it inherits comes from."""
    out: dict[str, tuple[str, ...]] = {}
    reach: dict[Node, tuple[str, ...]] = {}
    for node in gm.graph.nodes:
        found: dict[str, None] = {}
        for inp in node.all_input_nodes:
            if inp.name in valued:
                found[inp.name] = None
            else:
                found.update(dict.fromkeys(reach.get(inp, ())))
        reach[node] = tuple(found)
        if is_op(node):
            out[node.name] = reach[node]
    return out
