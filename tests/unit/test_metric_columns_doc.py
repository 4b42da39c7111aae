"""docs/metrics.md documents every column of every metric, and nothing that no metric makes.

The "## Columns" section has one ``### `name`...`` heading per metric (or group of metrics) and a
table under it whose first cells name the columns in backticks (``{beta}``: a number, the
option's value; ``{n}``: an n-gram order). Every metric registered in gecscope is run on the
demo corpus (with the options that rename or add columns) and each field of its Score must
match a row under its heading; each row must be matched by some field, so a renamed or dropped
column fails here too. Metrics that need models run on tiny local ones (tests/learned_models.py,
tests/learned_gpt2.py) and the LLM judges against a local server (tests/loopback.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import gecscope
from gecscope.data import EvalData, Hypothesis
from gecscope.registry import get_metric, list_metrics

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "metrics.md"
DEMO = ROOT / "src" / "gecscope" / "data" / "demo"
SYSTEMS = ("careful", "cautious", "rewriter")
PLACEHOLDERS = {"{beta}": r"\d+(?:\.\d+)?", "{n}": r"\d+"}


def documented_columns(text: str) -> dict[str, list[str]]:
    """Metric name -> the column names (patterns) of its table in the Columns section."""
    section = text.split("\n## Columns\n", 1)[1].split("\n## ", 1)[0]
    out: dict[str, list[str]] = {}
    current: list[str] = []
    for line in section.splitlines():
        if line.startswith("### "):
            current = []
            for name in re.findall(r"`([^`]+)`", line):
                out[name] = current
        elif line.startswith("| `"):
            first = line.split("|")[1]
            current.extend(re.findall(r"`([^`]+)`", first))
    return out


def pattern(column: str) -> re.Pattern[str]:
    text = re.escape(column)
    for ph, rx in PLACEHOLDERS.items():
        text = text.replace(re.escape(ph), rx)
    return re.compile(text + r"\Z")


def test_the_parser_reads_the_tables() -> None:
    doc = documented_columns("# t\n## Columns\n\n### `a`, `b`\n\n| column | x |\n|---|---|\n"
                             "| `TP` | t |\n| `d_i`, `c_i` | i |\n\n### `c`\n\n| `F{beta}` | f |\n"
                             "\n## Next\n| `X` | no |\n")
    assert doc == {"a": ["TP", "d_i", "c_i"], "b": ["TP", "d_i", "c_i"], "c": ["F{beta}"]}
    assert pattern("F{beta}").match("F0.5") and pattern("TP{n}").match("TP3")
    assert not pattern("F{beta}").match("FP") and not pattern("TP").match("TP1")


# --------------------------------------------------------------------------- the runs

@pytest.fixture(scope="module")
def demo() -> tuple[EvalData, list[Hypothesis]]:
    data = EvalData.from_m2(DEMO / "references.m2")
    return data, [Hypothesis.from_file(DEMO / f"{s}.txt", s) for s in SYSTEMS]


def _demo_texts() -> list[str]:
    return [ln for f in ("source", *SYSTEMS) for ln in
            (DEMO / f"{f}.txt").read_text(encoding="utf-8").splitlines()]


def _learned(request: pytest.FixtureRequest) -> dict[str, str]:
    pytest.importorskip("torch", reason="the learned metrics need torch")
    pytest.importorskip("transformers", reason="the learned metrics need transformers")
    from learned_models import session_checkpoints, session_text

    return session_checkpoints(session_text(request))


def _some(request: pytest.FixtureRequest, tmp: Path) -> list[dict[str, Any]]:
    c = _learned(request)
    return [{k: c[k] for k in ("model_g", "model_f", "model_m")}]


def _impara(request: pytest.FixtureRequest, tmp: Path) -> list[dict[str, Any]]:
    c = _learned(request)
    return [{k: c[k] for k in ("model_qe", "model_se")}]


def _scribendi(request: pytest.FixtureRequest, tmp: Path) -> list[dict[str, Any]]:
    pytest.importorskip("torch", reason="scribendi needs torch")
    pytest.importorskip("tokenizers", reason="the tiny GPT-2 needs tokenizers")
    from learned_gpt2 import build_tiny_gpt2

    return [{"model": str(build_tiny_gpt2(tmp / "gpt2", _demo_texts()))}]


def _needs(module: str) -> Callable[[pytest.FixtureRequest, Path], None]:
    def check(request: pytest.FixtureRequest, tmp: Path) -> None:
        pytest.importorskip(module, reason=f"needs {module}")
    return check


#: per metric: the option sets that make every column it can have (beside the defaults)
VARIANTS: dict[str, Any] = {
    "errant": [{}, {"beta": 1.0}, {"mode": "ds"}],
    "m2": [{}, {"beta": 1.0}],
    "gleu": [{}],
    "green": [{}, {"order": 2, "beta": 1.0}],
    "gotoscorer": [{}],
    "imeasure": [{}],
    "cleme": [{}, {"level": "sentence"}],
    "cleme2": [{}, {"level": "sentence"}],
    "usim": [{}],
    "pterrant": [{"weighting": "none"}, {"weighting": "none", "level": "sentence"}],
    "ptm2": [{"weighting": "none"}, {"weighting": "none", "level": "corpus"}],
    "some": _some,
    "impara": _impara,
    "scribendi": _scribendi,
    "llm_sent": "llm",
    "llm_edit": "llm",
}


def test_every_registered_metric_is_run_here() -> None:
    assert set(list_metrics()) <= set(VARIANTS), "add the new metric to VARIANTS"


@pytest.fixture()
def judge() -> Iterator[str]:
    """A local chat-completions server that rates every target 3."""
    from loopback import JSONHandler, serving

    class Handler(JSONHandler):
        def do_POST(self) -> None:
            body = self.read_json()
            prompt = body["messages"][-1]["content"]
            targets = prompt.split("\n# targets\n", 1)[1].split("\n\n# output format\n", 1)[0]
            n = len(targets.split("\n"))
            content = json.dumps({f"target_score{k + 1}": 3 for k in range(n)})
            self.send_json(200, {"object": "chat.completion", "model": body["model"],
                                 "choices": [{"index": 0, "finish_reason": "stop", "message": {
                                     "role": "assistant", "content": content}}]})

    with serving(Handler) as url:
        yield url


def produced_fields(name: str, demo: tuple[EvalData, list[Hypothesis]],
                    request: pytest.FixtureRequest, tmp: Path) -> set[str]:
    variants = VARIANTS[name]
    if variants == "llm":
        url = request.getfixturevalue("judge")
        request.getfixturevalue("cache_dir")
        variants = [{"base_url": url, "model": "judge-doc", "temperature": 0}]
    elif callable(variants):
        variants = variants(request, tmp)
    data, hyps = demo
    fields: set[str] = set()
    for options in variants:
        try:
            metric = get_metric(name)(**options)
            results = gecscope.evaluate(metric, data, hyps)
        except gecscope.errors.MissingDependencyError as exc:
            pytest.skip(f"{name}: {exc}")
        for r in results:
            fields |= set(r.score.fields)
    return fields


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_column_is_documented(name: str, demo: tuple[EvalData, list[Hypothesis]],
                                    request: pytest.FixtureRequest, tmp_path: Path) -> None:
    doc = documented_columns(DOC.read_text(encoding="utf-8"))
    assert name in doc, f"docs/metrics.md has no '### `{name}`' table under ## Columns"
    fields = produced_fields(name, demo, request, tmp_path)
    assert fields, name
    rows = [pattern(c) for c in doc[name]]
    undocumented = sorted(f for f in fields if not any(p.match(f) for p in rows))
    assert not undocumented, f"{name}: columns missing from docs/metrics.md: {undocumented}"
    # a row no field matches is a column the metric no longer has (or one of a metric sharing
    # the table: those shared rows must be made by one of the metrics under the heading)
    sharing = [m for m, cols in doc.items() if cols is doc[name]]
    if sharing == [name]:
        stale = [c for c, p in zip(doc[name], rows, strict=True)
                 if not any(p.match(f) for f in fields)]
        assert not stale, f"{name}: docs/metrics.md documents columns it does not make: {stale}"
