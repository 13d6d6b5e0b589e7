"""Shared, cached pipeline runs for the analysis tests (real torch.export + PT2E, no mocks).

Each distinct run happens once per pytest process (lru_cache), so test_rules, test_partition,
test_requant and test_stats reuse the same quantized graphs. Tests that edit a graph must
deepcopy it first (see `edited_copy`).
"""
from __future__ import annotations

import copy
import functools
import tempfile
from pathlib import Path

import torch
from torch.fx import GraphModule, Node

from resources import DEFAULT_PROFILE
from vpu_core.analysis import analyze
from vpu_core.analysis.results import Analysis
from vpu_core.pipeline import QuantizedModel, RunConfig, run_pipeline

_PROFILE_DIR = Path(tempfile.mkdtemp(prefix="vpu_profiles_"))


def profile_with(rule_off: str | None = None, **requant) -> str | None:
    """Path of a copy of the shipped profile with one constraint switched off / a shift range."""
    if rule_off is None and not requant:
        return None
    text = DEFAULT_PROFILE.read_text(encoding="utf-8")
    if rule_off:
        text = text.replace(f"{rule_off} = true", f"{rule_off} = false")
    for key, value in requant.items():
        text = text.replace(f"{key} = ", f"{key} = {value}\n# was: {key} = ", 1)
    name = f"off_{rule_off}" if rule_off else "custom"
    path = _PROFILE_DIR / f"{name}_{'_'.join(f'{k}{v}' for k, v in requant.items())}.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def write_profile(name: str, text: str) -> str:
    path = _PROFILE_DIR / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


@functools.lru_cache(maxsize=None)
def run(model: str, quantizer: str = "vpu", dynamic_batch: bool = False, rule_off: str | None = None,
        batch_size: int = 4, profile: str | None = None) -> QuantizedModel:
    config = RunConfig(model=model, quantizer=quantizer, dynamic_batch=dynamic_batch,
                       calib_batches=2, batch_size=batch_size,
                       profile=profile or profile_with(rule_off))
    return run_pipeline(config)


@functools.lru_cache(maxsize=None)
def analysis(model: str, quantizer: str = "vpu", dynamic_batch: bool = False,
             rule_off: str | None = None) -> Analysis:
    return analyze(run(model, quantizer, dynamic_batch, rule_off))


def edited_copy(gm: GraphModule) -> GraphModule:
    return copy.deepcopy(gm)


def node(gm: GraphModule, name: str) -> Node:
    return next(n for n in gm.graph.nodes if n.name == name)


def attr(gm: GraphModule, n: Node) -> torch.Tensor:
    """The tensor behind a get_attr node, read independently of the analysis code."""
    obj = gm
    for part in str(n.target).split("."):
        obj = getattr(obj, part)
    return obj


def fired(violations) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in violations:
        out[v.rule] = out.get(v.rule, 0) + 1
    return out
