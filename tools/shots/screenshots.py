"""Regenerate the documentation screenshots with `vpu-inspector gui … --screenshot`:

    python -m tools.shots.screenshots [docs/screenshots] [NAME.png …] [--size 1600x1000]

Each shot is one fresh `vpu-inspector gui` process (the real window, the real pipeline), so the
pictures show exactly what a user gets from the same command line; naming files regenerates only
those. The HTML report's picture (report.png) is taken from a browser, not from here.
"""
from __future__ import annotations

from typing import Iterable

import subprocess
import sys
from pathlib import Path

SHOTS = {
    "resnet8_vpu.png": ["resnet8", "--select", "conv2d_3", "--tab", "partition", "--tab", "pow2"],
    "resnet8_xnnpack.png": ["resnet8", "--quantizer", "xnnpack", "--select", "add", "--tab", "violations"],
    "transformer.png": ["transformer", "--select", "softmax", "--tab", "partition", "--tab", "shifts"],
    # compare mode: A = VPU quantizer, B = XNNPACK; the Compare tab
    "compare.png": ["resnet8", "--compare", "xnnpack", "--select", "b:conv2d_1", "--tab", "compare"],
    # the real XNNPACK delegation of the VPU-quantized transformer vs its simulated VPU partition
    "int_sim.png": ["mobilenet_v2", "--select", "conv2d_5"],
    "xnnpack_overlay.png": ["transformer", "--xnnpack-delegation", "--select", "softmax", "--tab", "partition"],
}
# the same window on a laptop screen: `--size` is part of the shot
SIZED = {"laptop_1280x720.png": (["resnet8", "--quantizer", "xnnpack", "--select", "add"], "1280x720"),
         # Run ▸ Run on this CPU: coloured by the measured µs, the node panel's measured time
         "runtime.png": (["resnet8", "--quantizer", "xnnpack", "--run", "--select", "conv2d_1"], "1280x720"),
         # the edge profile's per-op limits: an average pool over them (as the U55 refuses it), and the
         # limits editor
         "limit_node_1280x720.png": (["tests/models/arm_probe.py", "--profile", "edge_npu", "--select",
                                      "avg_pool2d"], "1280x720"),
         "limits_editor_1280x720.png": (["tests/models/arm_probe.py", "--profile", "edge_npu",
                                         "--tab", "limits"], "1280x720"),
         # a real NPU: the BERT encoder under Arm's quantizer on the Ethos-U55-128, coloured by
         # Vela's NPU cycles (the lowering is minutes: `check … --target ethos-u55-128` first)
         "ethos_u55_npu_cycles_1280x720.png": (["tests/corpus/bert_text.py", "--quantizer", "ethos-u", "--target",
                                                "ethos-u55-128", "--metric", "npu_cycles", "--hide-qdq",
                                                "--select", "bmm"], "1280x720"),
         # the node panel of the op the U55 refuses: the Arm backend's sentence and its check
         "ethos_u55_rejected_1280x720.png": (["tests/models/arm_probe.py", "--quantizer", "ethos-u", "--target",
                                              "ethos-u55-128", "--select", "avg_pool2d"], "1280x720"),
         # the target first: --target alone picks its quantizer, and the window speaks for it
         # (the same colours on every target: green on its accelerator, orange on the CPU)
         "target_ethos_u55_1280x720.png": (["resnet8", "--target", "ethos-u55-128"], "1280x720"),
         "target_xnnpack_1280x720.png": (["transformer", "--target", "xnnpack", "--select", "softmax"], "1280x720")}


def commands(out_dir: Path, size: str, only: Iterable[str] = ()) -> list[list[str]]:
    shots = {**{name: (args, size) for name, args in SHOTS.items()}, **SIZED}
    return [[sys.executable, "-m", "app", "gui", *args, "--size", shot_size, "--screenshot", str(out_dir / name)]
            for name, (args, shot_size) in shots.items() if not only or name in only]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    size = "1600x1000"
    if "--size" in argv:
        i = argv.index("--size")
        size = argv[i + 1]
        del argv[i:i + 2]
    out_dir = Path(argv[0] if argv else "docs/screenshots")
    out_dir.mkdir(parents=True, exist_ok=True)
    failed = 0
    for cmd in commands(out_dir, size, set(argv[1:])):
        print(" ".join(cmd[2:]), flush=True)
        failed += subprocess.run(cmd).returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
