"""Rebuild the bundled fonts in resources/fonts from their upstream packages:

    python -m tools.bundle_fonts [resources/fonts]

Needs `npm`, `apt-get` and `dpkg-deb` (the packages are fetched with their own clients) and
fontTools with brotli (`pip install fonttools brotli`, in any venv: not a dependency of the app).

Each font is renamed to a family no machine has installed ("VPU Inspector Sans / Mono / Symbols").
Why: with the upstream name, a machine that also has, say, Inter 3.19 installed hands Qt its Bold
instead of ours (measured: Qt 6.11 took the system's Inter Bold over the registered one), and the
text widths change again. The glyphs, metrics and hinting are the upstream ones; only the name
records change, and Symbols keeps only the symbol blocks of DejaVu Sans (what Inter lacks: ▸ ▾ ⇄ ✕ …).
resources/fonts/README.md lists the sources and versions.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fontTools.ttLib import TTFont

INTER = ("npm", "inter-ui@4.1.1")                               # the Inter release 4.1, web/*.woff2
JETBRAINS_MONO = ("deb", "fonts-jetbrains-mono=2.242+ds-3")
DEJAVU = ("deb", "fonts-dejavu-core=2.37-6")

# Symbols: the blocks of DejaVu Sans that Inter does not cover well (arrows, maths, technical,
# geometric shapes, symbols, dingbats and their supplements).
SYMBOL_BLOCKS = ((0x2190, 0x21FF), (0x2200, 0x22FF), (0x2300, 0x23FF), (0x2400, 0x243F),
                 (0x2500, 0x25FF), (0x2600, 0x26FF), (0x2700, 0x27BF), (0x27C0, 0x27FF),
                 (0x2900, 0x2AFF), (0x2B00, 0x2BFF))


@dataclass(frozen=True)
class Face:
    source: tuple[str, str]     # (registry, package spec)
    member: str                 # the file inside the package
    upstream: str               # upstream family name, as written in its name table
    family: str                 # ours
    style: str                  # Regular / SemiBold / Bold
    subset: bool = False


FACES = (
    Face(INTER, "package/web/Inter-Regular.woff2", "Inter", "VPU Inspector Sans", "Regular"),
    Face(INTER, "package/web/Inter-SemiBold.woff2", "Inter", "VPU Inspector Sans", "SemiBold"),
    Face(INTER, "package/web/Inter-Bold.woff2", "Inter", "VPU Inspector Sans", "Bold"),
    Face(JETBRAINS_MONO, "usr/share/fonts/truetype/jetbrains-mono/JetBrainsMono-Regular.ttf",
         "JetBrains Mono", "VPU Inspector Mono", "Regular"),
    Face(JETBRAINS_MONO, "usr/share/fonts/truetype/jetbrains-mono/JetBrainsMono-Bold.ttf",
         "JetBrains Mono", "VPU Inspector Mono", "Bold"),
    Face(DEJAVU, "usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "DejaVu Sans", "VPU Inspector Symbols",
         "Regular", subset=True),
    Face(DEJAVU, "usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", "DejaVu Sans", "VPU Inspector Symbols",
         "Bold", subset=True),
)
INTER_LICENSE = "package/LICENSE.txt"                           # the SIL Open Font License 1.1
DEJAVU_LICENSE = "usr/share/doc/fonts-dejavu-core/copyright"      # the Bitstream Vera licence
# JetBrains Mono 2.242 says in its own name table that it is under the OFL 1.1 (Debian's copyright
# file still names Apache-2.0, the licence of its 1.x releases): the OFL with its copyright line.
JETBRAINS_COPYRIGHT = "Copyright 2020 The JetBrains Mono Project Authors (https://github.com/JetBrains/JetBrainsMono)"


def fetch(source: tuple[str, str], work: Path) -> Path:
    """The package unpacked into its own folder of `work`, fetched with the registry's own client."""
    kind, spec = source
    folder = work / spec.replace("/", "_").replace("=", "_").replace("@", "_")
    if folder.exists():
        return folder
    folder.mkdir(parents=True)
    if kind == "npm":
        tarball = subprocess.run(["npm", "pack", spec, "--silent"], cwd=folder, check=True,
                                 capture_output=True, text=True).stdout.split()[-1]
        subprocess.run(["tar", "xzf", tarball], cwd=folder, check=True)
    else:
        subprocess.run(["apt-get", "download", spec], cwd=folder, check=True, capture_output=True)
        deb = next(folder.glob("*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(folder)], check=True)
    return folder


def renamed(font: TTFont, upstream: str, family: str) -> None:
    """Every name record that carries the upstream family name gets ours instead (the PostScript
    name its form without spaces); copyright, licence and version records stay as they are."""
    ps_upstream, ps_family = upstream.replace(" ", ""), family.replace(" ", "")
    for record in font["name"].names:
        text = record.toUnicode()
        if record.nameID in (1, 3, 4, 16, 18, 21):
            text = text.replace(upstream, family)
        if record.nameID in (3, 6):
            text = text.replace(ps_upstream, ps_family)
        record.string = text
    font["name"].removeNames(nameID=25)          # a variable-font PostScript prefix, if any


def build(face: Face, work: Path, out_dir: Path) -> Path:
    from fontTools import subset
    from fontTools.ttLib import TTFont

    src = fetch(face.source, work) / face.member
    font = TTFont(str(src), recalcTimestamp=False)      # reproducible: the same bytes on every rebuild
    if face.subset:
        options = subset.Options()
        options.layout_features = ["*"]
        options.name_IDs = ["*"]
        options.name_languages = ["*"]
        options.notdef_outline = True
        options.hinting = True
        sub = subset.Subsetter(options)
        sub.populate(unicodes=[cp for lo, hi in SYMBOL_BLOCKS for cp in range(lo, hi + 1)])
        sub.subset(font)
    renamed(font, face.upstream, face.family)
    font.flavor = "woff2"
    target = out_dir / f"{face.family.replace(' ', '')}-{face.style}.woff2"
    font.save(str(target))
    return target


def main(argv: list[str]) -> int:
    out_dir = Path(argv[0] if argv else Path(__file__).resolve().parents[1] / "resources" / "fonts")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="vpu-fonts-") as tmp:
        work = Path(tmp)
        for face in FACES:
            print(f"{build(face, work, out_dir).name}: {face.source[1]} {face.member}")
        ofl = (fetch(INTER, work) / INTER_LICENSE).read_text(encoding="utf-8")
        (out_dir / "LICENSE-Inter.txt").write_text(ofl, encoding="utf-8")
        body = ofl[ofl.index("This Font Software is licensed"):]
        (out_dir / "LICENSE-JetBrainsMono.txt").write_text(f"{JETBRAINS_COPYRIGHT}\n\n{body}", encoding="utf-8")
        (out_dir / "LICENSE-DejaVu.txt").write_bytes((fetch(DEJAVU, work) / DEJAVU_LICENSE).read_bytes())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
