"""Shipped data: hardware profiles. Loaded through vpu_core.profile only."""
from pathlib import Path

RESOURCES_DIR = Path(__file__).resolve().parent
DEFAULT_PROFILE = RESOURCES_DIR / "vpu_default.toml"
