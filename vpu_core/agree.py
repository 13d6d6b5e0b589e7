"""`vpu-inspector agree MODEL... --profile edge_npu --target ethos-u55-128`: our profile held to a
real backend, op by op, on the same converted graph (vpu_core.targets.agreement).

Both judges read the graph of one quantizer (`--quantizer`, default `ethos-u`: Arm's graph, the
one the real backend is built for; the VPU judges any quantizer's graph). One model runs in this
process; several run one after another, each in a fresh interpreter (torch.export and the Arm
lowering change process-wide state), through the disk cache like `check`, so a model `check`
already judged with the same options lowers nothing. A model that cannot be judged is a row with
its reason. Exit 0, or 2 when no model could be judged.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from vpu_core.targets.agreement import Agreement, ModelAgreement

DIRECTION_TITLES = {"profile_only": "{profile} puts it on the VPU, {target} leaves it on the CPU (the target says)",
                    "target_only": "{target} delegates it, {profile} leaves it on the CPU (the profile says)"}


def add_agree_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    from vpu_core.arguments import add_shared_run_options
    from vpu_core.quantizers import QUANTIZERS

    p = sub.add_parser("agree", help="where the VPU under a profile and a real target place the ops of one "
                                     "graph differently, and why each says so")
    p.add_argument("models", nargs="+", metavar="MODEL", help="zoo name | path/to/file.py[:callable]")
    p.add_argument("--quantizer", choices=QUANTIZERS, default="ethos-u",
                   help="the quantizer whose graph both judge (default ethos-u)")
    p.add_argument("--profile", action="append", default=[], metavar="FILE",
                   help="the VPU's profile (default edge_npu; repeatable: each held to the same target verdict)")
    from vpu_core import targets

    p.add_argument("--target", default="ethos-u55-128", choices=[n for n in targets.names() if n != "vpu"],
                   metavar="NAME", help="the real target (default ethos-u55-128)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    from vpu_core.arguments import non_negative

    p.add_argument("--examples", type=non_negative, default=0, metavar="N",
                   help="text: also list up to N differing nodes per kind")
    add_shared_run_options(p)
    return p


def cmd_agree(args: argparse.Namespace) -> int:
    from vpu_core.targets.agreement import Agreement

    from vpu_core.preflight import check_calibration_path, check_profile_path

    profiles = args.profile or ["edge_npu"]
    for profile in profiles:                # shared by every model: refused once, before any
        check_profile_path(profile)
    if args.calib_data:
        check_calibration_path(args.calib_data)
    rows: list[list[ModelAgreement]] = []       # per model, one per profile
    failed: dict[str, str] = {}
    for model in args.models:
        try:
            rows.append(_one(args, model, profiles) if len(args.models) == 1 else _child(args, model, profiles))
        except Exception as exc:   # a model that cannot be judged is a row with its reason
            failed[model] = _reason(exc)
    from vpu_core.targets import info

    title = info(args.target).title
    agreements = [Agreement(_profile_name(p), title, args.quantizer, tuple(r[k] for r in rows))
                  for k, p in enumerate(profiles)]
    if args.format == "json":
        from vpu_core.targets.agreement import agreement_to_json

        print(json.dumps({"agreements": [agreement_to_json(a) for a in agreements], "failed": failed}, indent=1))
    else:
        print("\n\n".join("\n".join(agreement_lines(a, failed, args.examples)) for a in agreements))
    return 0 if rows else 2


def _reason(exc: Exception) -> str:
    from vpu_core.errors import InspectorError, short_reason

    return exc.message if isinstance(exc, InspectorError) else f"{type(exc).__name__}: {short_reason(exc)}"


def _profile_name(profile: str) -> str:
    """The profile's name; a file's also with its file name (a copy keeps the name it was copied from)."""
    from pathlib import Path

    from vpu_core.profile import load_profile

    name = load_profile(profile).name
    return name if not Path(profile).is_file() else f"{name} ({Path(profile).name})"


def _one(args: argparse.Namespace, model: str, profiles: Sequence[str]) -> list[ModelAgreement]:
    """One model judged in this process by the target and by the VPU under each profile (the
    target lowers once: a second profile's graph is the same program unless the quantizer reads
    the profile)."""
    from pathlib import Path

    from vpu_core.analysis.macs import node_macs
    from vpu_core.config import RunConfig
    from vpu_core.session import default_session
    from vpu_core.targets.agreement import model_agreement

    session = default_session()
    out = []
    for profile in profiles:
        config = RunConfig(model=model, quantizer=args.quantizer, per_tensor=args.per_tensor,
                           dynamic_batch=args.dynamic_batch, calib_batches=args.calib_batches,
                           batch_size=args.batch_size, seed=args.seed, calib_data=args.calib_data,
                           profile=profile, reference_observers=args.reference_observers)
        analysis = session.analysis(config)
        result = session.target(config, args.target)
        qm = session.quantized(config)
        out.append(model_agreement(Path(model.split(":")[0]).stem, analysis.nodes,
                                   node_macs(qm.converted, qm.profile), analysis.partition, result.verdict))
    return out


def _child(args: argparse.Namespace, model: str, profiles: Sequence[str]) -> list[ModelAgreement]:
    """One model judged in a fresh interpreter (`python -m vpu_core.agree MODEL … --format json`)."""
    from vpu_core.errors import InspectorError
    from vpu_core.targets.agreement import model_from_json

    argv = [model, "--quantizer", args.quantizer, *(a for p in profiles for a in ("--profile", p)),
            "--target", args.target, "--format", "json", "--calib-batches", str(args.calib_batches),
            "--seed", str(args.seed), *(["--batch-size", str(args.batch_size)] if args.batch_size else []),
            *(["--calib-data", args.calib_data] if args.calib_data else []),
            *(["--per-tensor"] if args.per_tensor else []), *(["--no-cache"] if args.no_cache else []),
            *(["--reference-observers"] if args.reference_observers else [])]
    done = subprocess.run([sys.executable, "-m", "vpu_core.agree", *argv], capture_output=True, text=True)
    try:
        out = json.loads(done.stdout)
    except ValueError:
        lines = done.stderr.strip().splitlines()
        raise InspectorError(lines[-1].removeprefix("vpu-inspector: error: ") if lines else f"exit {done.returncode}")
    if out["failed"]:
        raise InspectorError(next(iter(out["failed"].values())))
    return [model_from_json(a["models"][0]) for a in out["agreements"]]


def agreement_lines(a: Agreement, failed: dict[str, str] | None = None, examples: int = 0) -> list[str]:
    """The text report: a row per model, the total, then every kind of difference with the
    refusing side's reason."""
    lines = [f"{a.profile} (the VPU) against {a.target}, both judging the graph of the {a.quantizer} quantizer",
             f"{'model':<22}{'quantized ops':>14}{'same place':>12}{'by MACs':>10}{'VPU only':>10}"
             f"{'target only':>13}{'other ops same':>16}{'subgraphs':>11}"]
    for m in a.models:
        only = {d: sum(1 for x in m.differences if x.direction == d and x.quantized) for d in ("profile_only", "target_only")}
        lines.append(f"{m.model:<22}{m.ops:>14}{100 * m.share:>11.1f}%{100 * m.mac_share:>9.1f}%"
                     f"{only['profile_only']:>10}{only['target_only']:>13}{f'{m.other_agreed}/{m.other_ops}':>16}"
                     f"{f'{m.subgraphs[0]}/{m.subgraphs[1]}':>11}")
    for model, why in (failed or {}).items():
        lines.append(f"{model:<22}  not judged: {why}")
    lines.append(f"{f'all ({len(a.models)} models)':<22}{a.ops:>14}{100 * a.share:>11.1f}%{100 * a.mac_share:>9.1f}%")
    lines.append("(quantized ops: ops reading a dequantized tensor or writing a quantized one; other ops are "
                 "compared apart; subgraphs: the VPU's / the target's)")
    groups = a.groups()
    for direction in ("profile_only", "target_only"):
        mine = [g for g in groups if g.direction == direction]
        if not mine:
            continue
        lines += ["", DIRECTION_TITLES[direction].format(profile=a.profile, target=a.target) + ":"]
        for g in mine:
            says = g.target_says if direction == "profile_only" else g.profile_says
            models = ", ".join(g.models[:3]) + (f" +{len(g.models) - 3}" if len(g.models) > 3 else "")
            lines.append(f"  {g.count:>4} × {g.op:<28} {says:<40} {_macs(g.macs):>8}  [{models}]")
            if g.example:
                lines.append(f"         e.g. {g.example[:150]}")
        if examples:
            for m in a.models:
                for d in [d for d in m.differences if d.direction == direction][:examples]:
                    lines.append(f"    {m.model}: {d.node} ({d.op})")
    return lines


def _macs(n: int) -> str:
    return "0 MACs" if n == 0 else f"{n / 1e6:.2f} M MACs" if n >= 1e5 else f"{n:,} MACs"


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m vpu_core.agree MODEL …`: the command on its own (what a model's child runs)."""
    import warnings

    warnings.filterwarnings("ignore")
    parser = argparse.ArgumentParser(prog="vpu-inspector")
    add_agree_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["agree", *(sys.argv[1:] if argv is None else argv)])
    if args.no_cache:
        from vpu_core.session import default_session

        default_session().set_disk_cache(False)
    try:
        return cmd_agree(args)
    except Exception as exc:
        print(f"vpu-inspector: error: {_reason(exc)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
