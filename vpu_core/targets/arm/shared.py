"""Another Ethos-U configuration of a program already lowered for one with the same TOSA subset: only Vela runs.

    lowering = revela(base, ARM_TARGETS["ethos-u55-256"], ctx)     # base: the ethos-u55-128 lowering

Everything before Vela depends on the TOSA specification alone: the partitioner's support checks,
the TOSA passes and the TOSA serialisation read nothing else of the compile spec. The Ethos-U55-128,
U55-256 and U65-256 share one (TOSA-1.0+INT+int16+int4+u55), the U85-128 and U85-256 another
(…+cf): a second configuration of the same program reuses the first one's export, to_edge,
partitions and TOSA files, and runs Vela on each partition's TOSA file with its own accelerator,
system configuration and memory mode (what EthosUBackend does with that flatbuffer). Its verdict
and Vela's reports are those of a lowering of its own (tests/test_arm_targets.py compares them).
The edge program holds the first configuration's Vela command streams, so `export` lowers afresh
(ArmLowering.vela_of says whose they are).
"""
from __future__ import annotations

import dataclasses
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from vpu_core.progress import NO_CONTEXT, RunContext

if TYPE_CHECKING:
    from vpu_core.targets.arm.configs import ArmConfig
    from vpu_core.targets.arm.lowering import ArmLowering


def tosa_spec(config: ArmConfig) -> str:
    """The TOSA specification ExecuTorch lowers `config` to ("TOSA-1.0+INT+int16+int4+u55")."""
    if not config.uses_vela:
        return config.tosa_spec
    from executorch.backends.arm.ethosu import EthosUCompileSpec

    return str(EthosUCompileSpec(config.accelerator).tosa_spec)


def revela(base: ArmLowering, config: ArmConfig, ctx: RunContext = NO_CONTEXT) -> ArmLowering:
    """`base` (an Ethos-U lowering of the same program and TOSA specification) for `config`: each
    partition's TOSA file compiled by Vela with `config`'s flags, everything else shared."""
    from executorch.backends.arm.arm_vela import vela_compile
    from executorch.backends.arm.ethosu import EthosUCompileSpec

    from vpu_core.targets.arm.lowering import VELA_FLAGS, ArmLoweringError, captured_stdout, read_files

    spec = EthosUCompileSpec(config.accelerator, system_config=config.system_config,
                             memory_mode=config.memory_mode, extra_flags=list(VELA_FLAGS))
    start = time.perf_counter()
    partitions = []
    with tempfile.TemporaryDirectory(prefix="vpu-arm-vela-") as folder, captured_stdout() as log:
        for k, part in enumerate(base.partitions):
            ctx.report("lower", 0.1 + 0.85 * k / max(1, len(base.partitions)))
            where = Path(folder) / part.tag
            where.mkdir()
            try:       # vela_compile appends to the flags it is given: a fresh list each time
                vela_compile(part.tosa, list(spec.compiler_flags), intermediate_path=str(where))
            except Exception as exc:  # Vela raises many types; the user gets one sentence
                import traceback

                from vpu_core.errors import root_cause

                raise ArmLoweringError(f"Vela could not compile partition {part.index} for {config.title}: "
                                       f"{root_cause(exc)}", traceback.format_exc()) from None
            files = {name: data for name, data in part.files.items() if not name.startswith("output/")}
            files.update({name: data for name, data in read_files(where).items() if name.startswith("output/")})
            partitions.append(dataclasses.replace(part, files=files))
    ctx.report("lower", 1.0)
    return dataclasses.replace(base, config=config, partitions=partitions, system_config=config.system_config,
                               memory_mode=config.memory_mode, vela_log=log.getvalue(),
                               seconds={"vela": time.perf_counter() - start},
                               vela_of=base.vela_of or base.config.name)
