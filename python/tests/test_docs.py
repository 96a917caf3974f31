"""Every ```python block of docs/python.md (and of README.md's `## Python` section,
if there is one) runs as written."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import REPO

FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def blocks():
    out = []
    doc = (REPO / "docs" / "python.md").read_text(encoding="utf-8")
    out += [("docs/python.md", i, b) for i, b in enumerate(FENCE.findall(doc))]
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    m = re.search(r"^## Python\b.*?(?=^## |\Z)", readme, re.S | re.M)
    if m:
        out += [("README.md", i, b) for i, b in enumerate(FENCE.findall(m.group(0)))]
    return out


BLOCKS = blocks()


def test_there_are_examples() -> None:
    assert len([b for b in BLOCKS if b[0] == "docs/python.md"]) >= 3


@pytest.mark.parametrize("where,i,code", BLOCKS, ids=[f"{w}#{i}" for w, i, _ in BLOCKS])
def test_example_runs(where: str, i: int, code: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOOLCAP_REPO", str(REPO))
    exec(compile(code, f"{where}[block {i}]", "exec"), {"__name__": "__doc_example__"})
