"""The ids of the hardware rules (constraints 2–8 of docs/spec.md), in constraint order: the
switches of a profile's [constraints].

Each rule declares itself in its module under vpu_core.analysis.rules, whose checks read Q/DQ
graphs and so import torch; the ids are named here as well so that reading, editing and comparing
profiles (the window does, on every result) needs no torch. The registry refuses to load when its
ids differ from these.
"""
from __future__ import annotations

RULE_IDS: tuple[str, ...] = ("act_per_tensor_symmetric", "weight_per_channel_symmetric", "pow2_scale",
                             "bias_int32", "shared_scale", "fused_relu", "static_shape")
