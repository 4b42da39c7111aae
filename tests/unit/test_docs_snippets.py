"""Every Python snippet of the API docs runs (in order, one namespace per page)."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = ["python-api.md", "adding-a-metric.md"]


def snippets(page: str) -> list[str]:
    text = (DOCS / page).read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


@pytest.mark.parametrize("page", PAGES)
def test_docs_snippets_run(page: str, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("numpy", reason="the snippets use the stats extra")
    pytest.importorskip("spacy", reason="the snippets use the spacy extra")
    blocks = snippets(page)
    assert len(blocks) >= 5
    # a real module, so that dataclasses and pickling find the snippets' classes
    module = types.ModuleType(f"docs_{page.replace('-', '_').removesuffix('.md')}")
    sys.modules[module.__name__] = module
    try:
        for i, block in enumerate(blocks, 1):
            try:
                exec(compile(block, f"{page}#snippet{i}", "exec"), module.__dict__)  # noqa: S102
            except Exception as exc:  # noqa: BLE001 - reported with the snippet
                pytest.fail(f"{page} snippet {i} failed: {exc!r}\n{block}")
    finally:
        sys.modules.pop(module.__name__, None)
    out = capsys.readouterr().out
    assert "Traceback" not in out and out.strip()


def test_every_metric_has_its_paper_and_gecscope_a_citation() -> None:
    # there was no citation file and no table of the metrics with their papers
    from gecscope.registry import get_metric, list_metrics

    shipped = [m for m in list_metrics()  # not the plug-ins other tests register
               if get_metric(m).__module__.startswith("gecscope.metrics")]
    root = Path(__file__).resolve().parents[2]
    table = (root / "docs" / "metrics.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `([a-z0-9_]+)` \|", table, flags=re.MULTILINE)
    assert sorted(listed) == sorted(shipped)
    for row in (ln for ln in table.splitlines() if re.match(r"\| `[a-z0-9_]+` \|", ln)):
        assert re.search(r"\(\d{4}\)", row), row  # a paper with its year
    cff = (root / "CITATION.cff").read_text(encoding="utf-8")
    assert cff.startswith("cff-version: 1.2.0") and "\ntitle: " in cff and "\nauthors:" in cff
    version = re.search(r'^version = "(.+)"', (root / "pyproject.toml").read_text(),
                        flags=re.MULTILINE)
    assert version and f"\nversion: {version.group(1)}\n" in cff
