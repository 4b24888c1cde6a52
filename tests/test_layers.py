"""Layers point down: the game imports nothing above it, and no script imports a script.

    truco_env  <-  agents  <-  evaluation  <-  training  <-  train.py / evaluate.py
                                                            examples/*.py, benchmarks/*.py
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ORDER = ["truco_env", "agents", "evaluation", "training"]
SCRIPTS = {"train", "evaluate"}


def imported_top_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


@pytest.mark.parametrize("package", ORDER)
def test_a_package_imports_only_below_it(package):
    above = set(ORDER[ORDER.index(package) + 1:]) | SCRIPTS
    files = sorted((ROOT / package).rglob("*.py"))
    assert files
    for f in files:
        bad = imported_top_modules(f) & above
        assert not bad, f"{f.relative_to(ROOT)} imports {sorted(bad)} (a layer above it)"


def test_no_script_imports_a_script_or_edits_sys_path():
    examples = sorted((ROOT / "examples").glob("*.py"))
    scripts = [ROOT / "train.py", ROOT / "evaluate.py", *sorted((ROOT / "benchmarks").glob("*.py")),
               *examples]
    names = SCRIPTS | {f.stem for f in examples}
    for f in scripts:
        assert not imported_top_modules(f) & names, f"{f.name} imports a script"
        assert "sys.path" not in f.read_text(), f"{f.name} edits sys.path"
    for f in sorted((ROOT / "tests").rglob("*.py")):
        if f.name != "test_layers.py":
            assert "sys.path.insert" not in f.read_text(), f"{f.name} edits sys.path"
