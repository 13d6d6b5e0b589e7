"""The module hierarchy of a graph: nested groups from `nn_module_stack`.

Every op that torch.export traced carries the stack of modules it ran in (only the root for an op
written in the model's own `forward`: such an op sits at the top level, never in a neighbour's
group). Q/DQ nodes and parameters carry none (convert_pt2e creates them), so they are given the
module of the op they quantize for: a dequantize belongs to its consumer, a quantize to its
producer, a parameter (and the constant Q/DQ chain on it) to its consumer. Without that, every
Q/DQ node of a block would sit outside the block and a collapsed block would be cut off from its
own Q/DQ.

    tree = module_tree(analysis)            # ModuleTree: groups by path, the group of every node
    tree.groups["encoder.layer.3"]          # ModuleGroup(path, cls, parent, depth, children, nodes)
    tree.owner["conv2d_3"]                  # innermost group path, None = top level

A group's `path` is the module path; a module called more than once gets one group per call,
the later ones suffixed "@1", "@2" as torch.export numbers them. Pure Python, no torch.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Callable, Iterable

from vpu_core.formatting import call_text

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis, NodeInfo

Stack = tuple[tuple[str, str], ...]         # ((group path, short class), ...) outermost first

_QDQ = "quantized_decomposed."


@dataclass(frozen=True)
class ModuleGroup:
    path: str                       # unique id: module path, "@k" for a repeated call
    cls: str                        # short class name, e.g. "BertAttention"
    parent: str | None              # enclosing group's path, None at the top level
    depth: int                      # 1 = top level
    children: tuple[str, ...]       # child group paths, in graph order
    nodes: tuple[str, ...]          # graph nodes directly or transitively inside, graph order

    @property
    def name(self) -> str:
        """Short label: the path below the parent's, the call number spelled out."""
        rel = self.path
        if self.parent and rel.startswith(self.parent.split("@")[0] + "."):
            rel = rel[len(self.parent.split("@")[0]) + 1:]
        return call_text(rel)

    @property
    def label(self) -> str:
        """"layer.3.attention (BertAttention)": never a full class path."""
        return f"{self.name} ({self.cls})" if self.cls else self.name


@dataclass(frozen=True)
class ModuleTree:
    groups: dict[str, ModuleGroup] = field(default_factory=dict)   # graph order of first use
    owner: dict[str, str | None] = field(default_factory=dict)     # node -> innermost group

    @cached_property
    def chains(self) -> dict[str | None, list[str]]:
        """chain(path) of every group (and [] for None), computed once."""
        out: dict[str | None, list[str]] = {None: []}
        for path, g in self.groups.items():         # parents come before their children
            out[path] = [*out.get(g.parent, self.chain(g.parent)), path]
        return out

    @property
    def max_depth(self) -> int:
        return max((g.depth for g in self.groups.values()), default=0)

    def top_level(self) -> tuple[str, ...]:
        return tuple(p for p, g in self.groups.items() if g.parent is None)

    def chain(self, path: str | None) -> list[str]:
        """Paths from the top level down to `path` (inclusive); [] for None."""
        out = []
        while path is not None:
            out.append(path)
            path = self.groups[path].parent
        return out[::-1]

    def path_of(self, node: str) -> list[str]:
        """The groups `node` sits in, outermost first (its breadcrumbs)."""
        return self.chain(self.owner.get(node))

    def at_depth_below(self, depth: int) -> frozenset[str]:
        """Groups shallower than `depth`: what is expanded when collapsing to `depth`."""
        return frozenset(p for p, g in self.groups.items() if g.depth < depth)


def build_tree(order: Iterable[str], stacks: dict[str, Stack]) -> ModuleTree:
    """A ModuleTree from each node's module stack (nodes without one sit at the top level)."""
    order = list(order)
    info: dict[str, tuple[str, str | None]] = {}        # path -> (cls, parent)
    children: dict[str | None, list[str]] = {}
    owner: dict[str, str | None] = {}
    for node in order:
        stack = stacks.get(node, ())
        parent = None
        for path, cls in stack:
            if path not in info:
                info[path] = (cls, parent)
                children.setdefault(parent, []).append(path)
            parent = path
        owner[node] = stack[-1][0] if stack else None
    members: dict[str, list[str]] = {p: [] for p in info}
    for node in order:
        member_of = owner[node]
        while member_of is not None:
            members[member_of].append(node)
            member_of = info[member_of][1]
    groups = {}
    for path, (cls, parent) in info.items():
        depth, p = 1, parent
        while p is not None:
            depth, p = depth + 1, info[p][1]
        groups[path] = ModuleGroup(path, cls, parent, depth, tuple(children.get(path, ())),
                                   tuple(members[path]))
    return ModuleTree(groups, owner)


def dissolve(tree: ModuleTree, drop: Callable[[ModuleGroup], bool]) -> ModuleTree:
    """`tree` without the groups for which `drop(group)` is true: their nodes and child groups
    move to the parent. Used for display: a module with a single op (a Conv2d, a ReLU) is
    better shown as that op than as a box around it."""
    gone = {p for p, g in tree.groups.items() if drop(g)}
    if not gone:
        return tree

    def up(path: str | None) -> str | None:
        while path is not None and path in gone:
            path = tree.groups[path].parent
        return path

    order = list(tree.owner)
    stacks = {}
    for node in order:
        chain = [p for p in tree.chain(up(tree.owner[node])) if p not in gone]
        stacks[node] = tuple((p, tree.groups[p].cls) for p in chain)
    return build_tree(order, stacks)


def module_tree(analysis: Analysis) -> ModuleTree:
    return build_tree(analysis.nodes, node_stacks(analysis.nodes))


def node_stacks(nodes: dict[str, NodeInfo]) -> dict[str, Stack]:
    """Module stack of every node: an op's own, else the one of the op it quantizes for.

    An op keeps the stack torch.export recorded for it, even when that is the model's own
    forward (stack (), the top level): a `gelu` written in `forward` between two convs is not
    drawn inside either conv. Only nodes that carry no stack of their own follow an op: a
    quantize its producer, a dequantize / parameter / constant chain its consumer(s), and what
    is left (what only feeds the graph output) its producer.
    """
    stacks: dict[str, Stack] = {}
    for name, info in nodes.items():
        if _own_stack(info):
            stacks[name] = info.module_stack
    order = list(nodes)
    for name in order:                               # quantize: its producer's (earlier)
        info = nodes[name]
        if name not in stacks and _is_quantize(info) and info.inputs and info.inputs[0] in stacks:
            stacks[name] = stacks[info.inputs[0]]
    for name in reversed(order):                     # the rest: their consumers' (later)
        info = nodes[name]
        if name in stacks or _is_quantize(info) or not _follows(info):
            continue
        known = [stacks[u] for u in info.outputs if u in stacks]
        if known:
            stacks[name] = _common_prefix(known)
    for name in order:                               # a quantize of a graph input: its users';
        info = nodes[name]                           # anything else left: its producer's
        if name in stacks or not _follows(info):
            continue
        if _is_quantize(info):
            known = [stacks[u] for u in info.outputs if u in stacks]
            if known:
                stacks[name] = _common_prefix(known)
                continue
        src = next((i for i in info.inputs if i in stacks), None)
        if src is not None:
            stacks[name] = stacks[src]
    return stacks


def _own_stack(info: NodeInfo) -> bool:
    """An op (not Q/DQ) whose module torch.export recorded: its group is where it ran."""
    return info.kind == "call_function" and not _is_qdq(info) and bool(
        info.module_stack or getattr(info, "traced", False))


def _follows(info: NodeInfo) -> bool:
    return info.kind not in ("placeholder", "output") and not _is_guard(info)


def _common_prefix(stacks: list[Stack]) -> Stack:
    if not stacks:
        return ()
    first = stacks[0]
    n = len(first)
    for s in stacks[1:]:
        k = 0
        while k < min(n, len(s)) and s[k] == first[k]:
            k += 1
        n = k
    return first[:n]


def _is_qdq(info: NodeInfo) -> bool:
    return info.op.startswith(_QDQ)


def _is_quantize(info: NodeInfo) -> bool:
    return info.op.startswith(_QDQ + "quantize")


def _is_guard(info: NodeInfo) -> bool:
    return info.kind == "call_module" and info.target.startswith("_guards")
