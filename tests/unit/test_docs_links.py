"""The README and the pages under docs/ hold together (issue 32): every relative link points
to a file that exists (and a `#heading` to a heading of that page, as GitHub makes its
anchors), every docs/*.md page is linked from the README, and the detail the README used to
hold is still somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
# [text](target) and ![alt](target); a target ends at the first space or `)`
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)  # code spans are not links
    return LINK.findall(text)


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, each
    space a `-`."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {anchor(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.*)$", text, re.M)}


def test_the_anchor_is_githubs() -> None:
    assert anchor("The one severity scale") == "the-one-severity-scale"
    assert anchor("`zconsole check` (cron, Nagios/Icinga, node_exporter)") == \
        "zconsole-check-cron-nagiosicinga-node_exporter"


def broken(page: Path) -> list[str]:
    """The page's relative links whose file, or whose heading in that file, is missing."""
    found = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):  # https:, mailto: ... not checked here
            continue
        path, _, frag = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            found.append(target)
        elif frag and dest.suffix == ".md" and frag not in anchors(dest):
            found.append(target)
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken(page) == []


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in links(ROOT / "README.md")
              if not re.match(r"[a-z]+:", t)}
    pages = sorted((ROOT / "docs").glob("*.md"))
    assert pages
    assert [p.name for p in pages if p.resolve() not in linked] == []


def test_every_screenshot_is_shown_or_linked_from_the_readme() -> None:
    linked = {(ROOT / t).resolve() for t in links(ROOT / "README.md")}
    shots = sorted((ROOT / "screenshots").glob("*.svg"))
    assert shots
    assert [p.name for p in shots if p.resolve() not in linked] == []


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    """The checker itself: a missing file and a missing heading are both caught."""
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n\n## A heading\n")
    page.write_text("[ok](other.md#a-heading) [no](missing.md) [bad](other.md#nothing)\n"
                    "`[code](not-a-link.md)`\n```\n[fenced](neither.md)\n```\n")
    assert links(page) == ["other.md#a-heading", "missing.md", "other.md#nothing"]
    assert broken(page) == ["missing.md", "other.md#nothing"]
