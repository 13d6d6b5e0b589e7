"""Shipped data: hardware profiles. Loaded through vpu_core.profile only."""
from pathlib import Path

RESOURCES_DIR = Path(__file__).resolve().parent
DEFAULT_PROFILE = RESOURCES_DIR / "vpu_default.toml"
EDGE_NPU_PROFILE = RESOURCES_DIR / "edge_npu.toml"
SHIPPED_PROFILES = (DEFAULT_PROFILE, EDGE_NPU_PROFILE)


def shipped_profile(name: str) -> Path | None:
    """A shipped profile by its file stem or [profile] name ("edge_npu" / "edge-npu"), or None."""
    stem = name.replace("-", "_").lower()
    return next((p for p in SHIPPED_PROFILES if p.stem == stem and p.exists()), None)
