"""Small HTML builders: every piece of user-controlled text goes through `esc` exactly once.

Builders take *already-safe* HTML for cells (wrap plain text with `esc` or `code`), so a table
can hold pills and code; plain strings passed to `text_cells` are escaped for the caller.
"""
from __future__ import annotations

from html import escape
from typing import AbstractSet


def esc(value: object) -> str:
    return escape(str(value), quote=True)


def code(value: object) -> str:
    return f"<code>{esc(value)}</code>"


def pill(text: str, kind: str) -> str:
    return f'<span class="pill {esc(kind)}">{esc(text)}</span>'


def placement_pill(placement: str, subgraph: int | None = None) -> str:
    if placement == "vpu":
        return pill("VPU" if subgraph is None else f"VPU · sg {subgraph}", "vpu")
    return pill("CPU", "cpu")


def card(section_id: str, title: str, body: str, lede: str = "", tag: str = "") -> str:
    """A section; `tag` names the configuration it shows when the report compares two."""
    intro = f'<p class="lede">{lede}</p>' if lede else ""
    tag_html = f' <span class="pill tag">{esc(tag)}</span>' if tag else ""
    return (f'<section class="card" id="{esc(section_id)}"><h2>{esc(title)}{tag_html}</h2>{intro}'
            f"{body}</section>")


def kpi(label: str, value: str, sub: str = "", tone: str = "") -> str:
    """A KPI tile; `value` and `sub` are safe HTML."""
    sub_html = f'<div class="s">{sub}</div>' if sub else ""
    return (f'<div class="kpi {esc(tone)}"><div class="k">{esc(label)}</div>'
            f'<div class="v">{value}</div>{sub_html}</div>')


def table(headers: list[str], rows: list[list[str]], *, numeric: AbstractSet[int] = frozenset(),
          row_classes: list[str] | None = None, total: list[str] | None = None,
          wrap: bool = True) -> str:
    """A zebra table; headers are plain text, cells safe HTML; `numeric` column indexes align right."""
    def cls(i: int) -> str:
        return ' class="num"' if i in numeric else ""

    head = "".join(f"<th{cls(i)}>{esc(h)}</th>" for i, h in enumerate(headers))
    body = []
    for r, row in enumerate(rows):
        rc = row_classes[r] if row_classes and row_classes[r] else ""
        attr = f' class="{esc(rc)}"' if rc else ""
        body.append(f"<tr{attr}>" + "".join(f"<td{cls(i)}>{c}</td>" for i, c in enumerate(row)) + "</tr>")
    if total is not None:
        body.append('<tr class="total">' + "".join(f"<td{cls(i)}>{c}</td>" for i, c in enumerate(total))
                    + "</tr>")
    html = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    return f'<div class="tablewrap">{html}</div>' if wrap else html


def details(summary_html: str, body_html: str, open_: bool = False, data: dict | None = None) -> str:
    """A collapsible group; `data` becomes data-* attributes (stable hooks for tests and scripts)."""
    attr = " open" if open_ else ""
    attr += "".join(f' data-{esc(k)}="{esc(v)}"' for k, v in (data or {}).items())
    return (f'<details class="group"{attr}><summary>{summary_html}</summary>'
            f'<div class="body">{body_html}</div></details>')


def facts(pairs: list[tuple[str, str]]) -> str:
    """A definition list; keys plain text, values safe HTML."""
    return '<dl class="facts">' + "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in pairs) + "</dl>"
