"""The pages the tests read their examples from: README.md and every page of docs/.

Each example is read literally from the page that shows it, so what a reader sees is what runs.
`section(title)` finds the section of that heading on whichever page holds it (headings are unique
across the pages; a test does not care which page a section lives on), up to the next heading of
its level or above."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def pages() -> dict[str, str]:
    """{path relative to the checkout: text} of README.md and every docs/*.md."""
    found = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")}
    for path in sorted(DOCS.glob("*.md")):
        found[f"docs/{path.name}"] = path.read_text(encoding="utf-8")
    return found


def page(name: str) -> str:
    """One page's text: "README.md" or a docs page ("quickstart" or "docs/quickstart.md")."""
    if name == "README.md":
        return (ROOT / name).read_text(encoding="utf-8")
    stem = name.removeprefix("docs/").removesuffix(".md")
    return (DOCS / f"{stem}.md").read_text(encoding="utf-8")


def everything() -> str:
    """Every page, one after the other (for a phrase that must appear somewhere a reader finds it)."""
    return "\n".join(pages().values())


def section(title: str, level: int = 2) -> str:
    """The text under the heading `title` (## by default), on the one page that holds it."""
    heading = f"\n{'#' * level} {title}\n"
    holders = [text for text in pages().values() if heading in "\n" + text]
    assert len(holders) == 1, f"heading {heading.strip()!r} is on {len(holders)} pages, not one"
    body = ("\n" + holders[0]).split(heading, 1)[1]
    kept, fenced = [], False
    for line in body.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,%d} " % level, line):
            break  # the next heading of this level or above (a `# ` line inside a code block is output)
        kept.append(line)
    return "\n".join(kept)


def between(start: str, end: str) -> str:
    """The text between two markers (`<!-- name:start -->\\n` ... `<!-- name:end -->`), on the page that holds them."""
    (text,) = [text for text in pages().values() if start in text]
    return text.split(start, 1)[1].split(end, 1)[0]
