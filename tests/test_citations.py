"""The repository explains itself: code and docs cite docs/spec.md, never an issue tracker or a file
a cloner does not have. Reads the sources as text (no imports, milliseconds).

- no comment or docstring refers to an issue ("issue 21", "qa-1 #7") or to SPEC.md;
- every `docs/spec.md, "Section"` citation names a section docs/spec.md has."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "docs" / "spec.md"
ISSUE = re.compile(r"\b[Ii]ssues? ?#?\d|\bissue-\d|\bqa-\d|\bSPEC\.md\b|\bSPEC's\b|\bSPEC\b(?![\"\]])")
CITATION = re.compile(r"docs/spec\.md\W{1,3}\"([^\"]+)\"")


def _sources() -> list[Path]:
    files = [p for d in ("vpu_core", "app", "tools", "tests", "benchmarks") for p in (ROOT / d).rglob("*.py")]
    return [p for p in files if p.name != Path(__file__).name] + [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]


def issue_references(text: str) -> list[str]:
    """The lines of `text` that cite an issue or SPEC.md (a metavar "SPEC" is no citation)."""
    return [line.strip() for line in text.splitlines() if ISSUE.search(line.replace("--compare SPEC", ""))]


def _headings() -> list[str]:
    return [line.lstrip("#").replace("`", "").strip().lower()
            for line in SPEC.read_text(encoding="utf-8").splitlines() if line.startswith("#")]


def test_nothing_cites_an_issue_or_a_file_outside_the_repository():
    found = {str(p.relative_to(ROOT)): refs for p in _sources()
             if (refs := issue_references(p.read_text(encoding="utf-8")))}
    assert found == {}


def test_every_citation_of_the_spec_names_one_of_its_sections():
    headings = _headings()
    assert len(headings) > 20
    cited = {m for p in _sources() for m in CITATION.findall(p.read_text(encoding="utf-8"))}
    assert cited, "the code cites docs/spec.md by section"
    named = {" ".join(c.replace("`", "").lower().split()) for c in cited}     # a citation may wrap
    assert [c for c in named if not any(c in h for h in headings)] == []


def test_the_check_tells_a_citation_from_a_name():
    assert issue_references("# target of issue 21\n# qa-1 #7: x\nx = 1  # SPEC.md says\n# SPEC's keys") == [
        "# target of issue 21", "# qa-1 #7: x", "x = 1  # SPEC.md says", "# SPEC's keys"]
    assert issue_references('SPEC_FIELDS = ()\nmetavar="SPEC"\nB as for --compare SPEC\n'
                            '"Convolution IGEMM #2"\n"block #2 (Block)"') == []
