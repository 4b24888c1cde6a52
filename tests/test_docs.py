"""The documentation stands on its own: links and paths resolve inside the repository, nothing
points outside it, and the preset table of docs/rules.md is the code's."""
import dataclasses
import re
from pathlib import Path

import pytest

from truco_env.rules import PRESETS, RuleSet, get_rules

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SKIP_DIRS = {".venv", ".git", "__pycache__", "runs", "node_modules", "build", "dist"}
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".txt", ".cfg", ".ini", ".json"}

INLINE_LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.M)
# A backticked repository path: a folder and a file name with one of these extensions.
CODE_PATH = re.compile(r"`([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+\.(?:py|md|yaml|yml|toml))`")


def repo_files():
    """Text files of the repository (not the virtual environment, caches or run outputs)."""
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if any(part in SKIP_DIRS or part.endswith(".egg-info") for part in rel.parts):
            continue
        if path.is_file() and path.suffix in TEXT_SUFFIXES:
            yield path


def links(text):
    found = INLINE_LINK.findall(text) + REFERENCE_LINK.findall(text)
    return [u for u in found if not re.match(r"^(?:[a-z][a-z0-9+.-]*:|#)", u)]


def test_the_documents_exist():
    names = {p.name for p in DOCS}
    assert {"README.md", "rules.md", "design.md"} <= names


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(doc):
    text = doc.read_text(encoding="utf-8")
    bad = []
    for url in links(text):
        target = (doc.parent / url.split("#", 1)[0]).resolve()
        if not target.exists() or ROOT not in (target, *target.parents):
            bad.append(url)
    assert not bad, f"{doc.name}: links that do not resolve inside the repository: {bad}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_backticked_paths_exist(doc):
    text = doc.read_text(encoding="utf-8")
    bad = [p for p in CODE_PATH.findall(text)
           if not (ROOT / p).exists() and not (doc.parent / p).exists()]
    assert not bad, f"{doc.name}: paths that are not in the repository: {bad}"


def test_link_finder_finds_links():
    text = "see [rules](docs/rules.md#8-presets), [x](https://a.b), [y](#top)\n[ref]: ../a.md\n"
    assert links(text) == ["docs/rules.md#8-presets", "../a.md"]


def test_nothing_points_outside_the_repository():
    needles = ["../" + "shared", "/work/" + "shared"]   # split: this file must not match itself
    files = list(repo_files())
    assert len(files) > 20 and ROOT / "README.md" in files
    bad = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
           for p in files
           for i, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(),
                                    1)
           if any(n in line for n in needles)]
    assert not bad, "references to files outside the repository:\n" + "\n".join(bad)


# ---------------------------------------------------------------------- the preset table
NOT_KNOBS = {"name", "envido_chain", "truco_quiero", "truco_no_quiero"}


def preset_table():
    """``{knob: {preset: cell}}`` from the table of docs/rules.md section 8."""
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    header = re.search(r"^\| knob((?: \| \w+)+) \|$", text, re.M)
    assert header, "docs/rules.md has no '| knob | preset | ...' table"
    presets = [p.strip() for p in header.group(1).split("|") if p.strip()]
    cols = r" \| ([^|]+)" * len(presets)
    rows = re.findall(r"^\| `(\w+)`" + cols + r" \|$", text, re.M)
    return {knob: dict(zip(presets, (c.strip() for c in cells))) for knob, *cells in rows}


def cell(value):
    if isinstance(value, tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def test_rules_doc_lists_every_knob_of_every_preset_as_the_code_has_it():
    table = preset_table()
    knobs = [f.name for f in dataclasses.fields(RuleSet) if f.name not in NOT_KNOBS]
    assert sorted(table) == sorted(knobs), "the table's knobs are RuleSet's knobs"
    checked = 0
    for knob in knobs:
        assert set(table[knob]) == set(PRESETS)
        for preset in PRESETS:
            assert table[knob][preset] == cell(getattr(get_rules(preset), knob)), (
                f"docs/rules.md says {knob}={table[knob][preset]} for {preset}")
            checked += 1
    assert checked == len(knobs) * len(PRESETS)
