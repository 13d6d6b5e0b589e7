"""The Arm targets as plain data: which accelerator, which TOSA specification, which Vela defaults.

Importable without torch, ExecuTorch or Vela: the registry, the command line's choices and the
window's buttons are built from it before anything heavy is imported.

    ARM_TARGETS["ethos-u55-128"].accelerator      # "ethos-u55-128" (Vela's --accelerator-config)
    ARM_TARGETS["tosa-int"].uses_vela             # False: TOSA only, judged by TOSAPartitioner

An Ethos-U target is lowered with ExecuTorch's EthosUPartitioner (its compile spec picks the TOSA
subset of the NPU: "+u55" for the U55 and U65, "+cf" for the U85) and each partition compiled by
Vela; `tosa-int` is the TOSA-1.0 INT profile alone (TOSAPartitioner, no NPU, no Vela), whose
TOSA graphs the TOSA reference model runs. The system configuration (clock, memory bandwidths) and
the memory mode default to what EthosUCompileSpec picks for the accelerator when none is given.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ArmKind = Literal["ethos-u", "tosa"]


@dataclass(frozen=True)
class ArmConfig:
    """One Arm target: an Ethos-U accelerator configuration of Vela, or the TOSA INT profile."""

    name: str                        # the target's registry name ("ethos-u55-128", "tosa-int")
    title: str                       # "Ethos-U55-128"
    kind: ArmKind
    accelerator: str = ""            # Vela's --accelerator-config ("ethos-u55-128"); "" for TOSA
    tosa_spec: str = ""              # TOSA specification string, for kind "tosa" ("TOSA-1.0+INT")
    macs_per_cycle: int = 0          # the MAC array: the number in the configuration's name
    system_config: str = ""          # Vela's default system configuration for it
    memory_mode: str = ""            # Vela's default memory mode for it

    @property
    def uses_vela(self) -> bool:
        return self.kind == "ethos-u"

    @property
    def description(self) -> str:
        if self.kind == "tosa":
            return ("ExecuTorch's TOSAPartitioner for the TOSA-1.0 INT profile: what it delegates, "
                    "run in the TOSA reference model.")
        return (f"ExecuTorch's EthosUPartitioner for the Arm {self.title} NPU, each partition compiled "
                "by Vela (cycles, SRAM and flash are Vela's estimate).")


def _ethos(accelerator: str, system_config: str, memory_mode: str) -> ArmConfig:
    family, macs = accelerator.removeprefix("ethos-").split("-")
    return ArmConfig(accelerator, f"Ethos-{family.upper()}-{macs}", "ethos-u", accelerator,
                     macs_per_cycle=int(macs), system_config=system_config, memory_mode=memory_mode)


# The defaults are EthosUCompileSpec's (executorch.backends.arm.ethosu.compile_spec), which are the
# ones ExecuTorch's own Arm examples compile with. Only a few of Vela's eleven accelerator
# configurations are offered: the two the issue of record names, the largest U55 and the U65 and
# the smallest U85 (each is one more "Colour by" button and one more lowering per sweep run).
ARM_TARGETS: dict[str, ArmConfig] = {c.name: c for c in (
    _ethos("ethos-u55-128", "Ethos_U55_High_End_Embedded", "Shared_Sram"),
    _ethos("ethos-u55-256", "Ethos_U55_High_End_Embedded", "Shared_Sram"),
    _ethos("ethos-u65-256", "Ethos_U65_High_End", "Dedicated_Sram_384KB"),
    _ethos("ethos-u85-128", "Ethos_U85_SYS_DRAM_Mid", "Sram_Only"),
    _ethos("ethos-u85-256", "Ethos_U85_SYS_DRAM_Mid", "Sram_Only"),
    ArmConfig("tosa-int", "TOSA INT", "tosa", tosa_spec="TOSA-1.0+INT"),
)}
