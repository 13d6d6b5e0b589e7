"""The documentation holds together (reads the Markdown as text, milliseconds): the README stays a
front page, every relative link of README.md and docs/*.md reaches a file and, with an #anchor, one
of its headings (as GitHub makes anchors), and the README's test command is the one CI runs."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation but - and _ dropped, spaces to -;
    a repeated heading gets -1, -2, …; a '#' line inside a code fence is no heading."""
    found: set[str] = set()
    fenced = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            slug = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
            k, base = 0, slug
            while slug in found:
                k += 1
                slug = f"{base}-{k}"
            found.add(slug)
    return found


def broken_links(page: Path) -> list[str]:
    out = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue                               # http(s), mailto: not ours to check offline
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            out.append(f"{page.name}: {target} (no such file)")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text(encoding="utf-8")):
            out.append(f"{page.name}: {target} (no such heading)")
    return out


def test_every_link_of_the_docs_reaches_its_file_and_heading():
    assert len(PAGES) > 5
    assert [b for page in PAGES for b in broken_links(page)] == []


def test_the_readme_is_a_front_page():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    assert len(re.findall(r"!\[[^\]]*\]\(docs/screenshots/", text)) == 3


def test_the_readme_test_command_is_the_one_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = next(line for line in readme.splitlines() if "pip install '.[test]'" in line and "pytest" in line)
    # .ci/run exports QT_QPA_PLATFORM itself; the command is otherwise the same
    assert command.replace("QT_QPA_PLATFORM=offscreen ", "") in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_anchors_are_made_as_github_makes_them():
    assert anchors("# A\n## Run it on this CPU (`--run`)\n```\n# not a heading\n```\n## A") == {
        "a", "run-it-on-this-cpu---run", "a-1"}
