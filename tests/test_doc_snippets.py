"""Every Python example written into README.md and the docs pages runs as a reader would run it: pasted into
a fresh interpreter at the repository root. A renamed function, a changed keyword or a moved checkpoint then
fails here instead of in a reader's hands.

The blocks that show a file of examples/ as it is (a `title="examples/..."` fence, or README's copies of
those files) are left to tests/integrations/test_examples.py, which runs the files and checks the copies.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```python([^\n]*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
EXAMPLE_FILES = {path.read_text().strip() for path in (ROOT / "examples").glob("*.py")}
# A snippet that takes minutes: (page, a line of it); run with -m slow.
SLOW = {("docs/envs/snack_time_v0.md", 'print(solo("snack_time_v0", "search", games=25, seed=2_000_000)')}


def snippets() -> list:
    found = []
    for page in PAGES:
        text = page.read_text()
        name = page.relative_to(ROOT).as_posix()
        for block in FENCE.finditer(text):
            code = block.group(2)
            if "title=" in block.group(1) or code.strip() in EXAMPLE_FILES:
                continue
            line = text.count("\n", 0, block.start()) + 1
            slow = any(page_name == name and fragment in code for page_name, fragment in SLOW)
            found.append(pytest.param(code, id=f"{name}:{line}", marks=[pytest.mark.slow] if slow else []))
    return found


SNIPPETS = snippets()


def test_the_pages_have_snippets_to_run():
    assert len(SNIPPETS) >= 5, [s.id for s in SNIPPETS]
    for page, fragment in SLOW:  # a slow mark that no longer finds its snippet would quietly run nothing
        assert fragment in (ROOT / page).read_text(), (page, fragment)


@pytest.mark.parametrize("code", SNIPPETS)
def test_a_documented_snippet_runs(code):
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
