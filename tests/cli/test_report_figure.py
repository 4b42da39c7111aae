"""The number to report (#43 item 1): ``evaluate`` marks the figure a known test set's papers
report and says why the others differ, ``--paper`` prints the standard table (Markdown and
LaTeX) with bootstrap intervals and a paired test against a baseline, and every interval says
what it is over. Real data: CoNLL-2014 (AMU, CAMB, CUUI) and JFLEG dev; the tampering tests
use copies of those files with a line changed, a reference left out or options changed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gecscope.cli.main import main
from gecscope.data import EvalData
from gecscope.errors import ConfigError
from gecscope.registry import get_metric
from gecscope.reports.headline import find_reported
from gecscope.testsets import parse_registry

pytestmark = pytest.mark.requires_spacy

SYSTEMS = ("AMU", "CAMB", "CUUI")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def _hyps(conll14: Path, names: tuple[str, ...] = SYSTEMS) -> list[str]:
    return [str(conll14 / "submissions" / n) for n in names]


@pytest.fixture(scope="module")
def json_scores(conll14: Path) -> dict[str, Any]:
    """The three systems' m2 scores, intervals and pairwise tests as `evaluate --format json`
    gives them (1,000 resamples, seed 12345): what the paper table must print."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "gecscope", "evaluate", "-m", "m2", "-q",
                          "-r", str(conll14 / "official-2014.combined.m2"), "--hyp",
                          *_hyps(conll14), "--bootstrap", "1000", "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    doc: dict[str, Any] = json.loads(out)
    return doc


def _markdown_rows(text: str) -> dict[str, list[str]]:
    rows = {}
    for ln in text.splitlines():
        cells = [c.strip() for c in ln.strip("|").split("|")]
        if ln.startswith("| ") and cells[0] in SYSTEMS:
            rows[cells[0]] = cells
    return rows


def test_paper_table_prints_the_json_figures_as_papers_do(
        conll14: Path, capsys: pytest.CaptureFixture[str], json_scores: dict[str, Any]) -> None:
    rc, out, err = _run(capsys, "evaluate", "--paper", "--format", "markdown", "-r",
                        str(conll14 / "official-2014.combined.m2"), "--hyp", *_hyps(conll14),
                        "--baseline", "AMU")
    assert rc == 0, err
    header = next(ln for ln in out.splitlines() if ln.startswith("| System"))
    assert header == ("| System | P | R | F0.5 | F0.5 95% CI (bootstrap over sentences) "
                      "| p vs AMU (paired bootstrap) |")
    rows = _markdown_rows(out)
    assert list(rows) == list(SYSTEMS)  # the order they were given in
    scores = {s["system"]: s for s in json_scores["scores"]}
    for name, cells in rows.items():
        s = scores[name]
        assert cells[1:4] == [f"{s['fields']['P'] * 100:.2f}", f"{s['fields']['R'] * 100:.2f}",
                              f"{s['value'] * 100:.2f}"]
        iv = s["interval"]
        assert iv["over"] == "sentences" and iv["n_samples"] == 1000
        assert cells[4] == f"[{iv['low'] * 100:.2f}, {iv['high'] * 100:.2f}]"
    # the published figures: m2scorer 3.2 on the official M2
    assert rows["AMU"][3] == "35.01" and rows["CAMB"][3] == "37.33" and rows["CUUI"][3] == "36.79"
    assert rows["AMU"][5] == "baseline"
    for name in ("CAMB", "CUUI"):
        pair = next(c for c in json_scores["pairwise"]
                    if {c["system_a"], c["system_b"]} == {"AMU", name})
        delta = pair["score_a"] - pair["score_b"] if pair["system_a"] == name else \
            pair["score_b"] - pair["score_a"]
        p, arrow = rows[name][5].split()
        assert p == f"{pair['p_value']:.3f}"  # unsigned, the direction a word apart
        assert arrow == ("↑" if delta > 0 else "↓")
    assert "- CI: percentile bootstrap over the 1,312 sentences (1000 resamples, seed 12345)" \
        in out
    sig = next(m["signature"] for m in json_scores["metrics"] if m["name"] == "m2")
    assert f"- Signature: {sig}" in out


def test_paper_latex_has_the_same_rows_and_escapes(conll14: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["evaluate", "--paper", "-r", str(conll14 / "official-2014.combined.m2"), "--hyp",
            *_hyps(conll14), "--baseline", "CAMB", "-q"]
    rc, both, _ = _run(capsys, *argv)
    assert rc == 0
    rc, latex, _ = _run(capsys, *argv, "--format", "latex")
    assert rc == 0
    assert latex in both and "| System |" in both  # the default prints Markdown and LaTeX
    assert latex.startswith("\\begin{table}") and latex.rstrip().endswith("\\end{table}")
    assert "F0.5 95\\% CI (bootstrap over sentences) & $p$ vs CAMB (paired bootstrap)" in latex
    md = _markdown_rows(both)
    for name in SYSTEMS:
        cells = md[name]
        tex = next(ln for ln in latex.splitlines() if ln.startswith(name + " & "))
        values = [c.strip() for c in tex.removesuffix(" \\\\").split(" & ")]
        assert values[:5] == cells[:5]
        assert values[5] == cells[5].replace("↑", "$\\uparrow$").replace("↓", "$\\downarrow$")
    assert "\\texttt{m:m2\\textbar{}r:2" in latex  # no bare | in text mode
    assert latex.count("{") == latex.count("}")
    assert "<" not in latex.replace("$<$", "")


def test_evaluate_marks_the_reported_figure_and_says_why_the_others_differ(
        conll14: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref = str(conll14 / "official-2014.combined.m2")
    rc, out, _ = _run(capsys, "evaluate", "-m", "m2", "-m", "errant", "-r", ref, "--hyp",
                      *_hyps(conll14, ("AMU",)))
    assert rc == 0
    titles = [ln for ln in out.splitlines() if ln.startswith("== ")]
    assert titles[0].endswith("<- report this (CoNLL-2014 test: F0.5)")
    assert "report this" not in titles[1]
    notes = [ln for ln in out.splitlines() if ln.startswith("note: ")]
    assert notes[0].startswith("note: report: m2 F0.5 is CoNLL-2014 test's figure")
    assert "official-2014.combined.m2" in notes[0]
    assert notes[1].startswith("note: errant differs: ERRANT extracts the output's edits")
    rc, out, _ = _run(capsys, "evaluate", "-m", "m2", "-m", "errant", "-r", ref, "--hyp",
                      *_hyps(conll14, ("AMU",)), "--format", "json")
    doc = json.loads(out)
    assert doc["reported"]["marked"] == "m2" and doc["reported"]["fields"] == ["P", "R", "F0.5"]
    assert doc["reported"]["test_set"] == "CoNLL-2014 test"


def test_no_mark_when_the_options_or_the_file_are_not_the_papers(
        conll14: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref = conll14 / "official-2014.combined.m2"
    rc, out, _ = _run(capsys, "evaluate", "-m", "m2", "-b", "1.0", "-r", str(ref), "--hyp",
                      *_hyps(conll14, ("AMU",)), "--format", "json")
    assert rc == 0
    rep = json.loads(out)["reported"]
    assert rep["marked"] is None and "beta=1.0" in rep["notes"][0]
    # one character of the test set changed: not the test set any more, no word said
    text = ref.read_text(encoding="utf-8")
    changed = tmp_path / "official-2014.combined.m2"
    changed.write_text(text.replace("A 0 1|||", "A 0 1 |||", 1)
                       if "A 0 1|||" in text else text.replace("S ", "S  ", 1), encoding="utf-8")
    assert changed.read_bytes() != ref.read_bytes()
    rc, out, _ = _run(capsys, "evaluate", "-m", "m2", "-r", str(changed), "--hyp",
                      *_hyps(conll14, ("AMU",)))
    assert rc == 0 and "report this" not in out and "note: report" not in out
    # the same content through Windows (CRLF): still the test set
    crlf = tmp_path / "crlf.m2"
    crlf.write_bytes(ref.read_bytes().replace(b"\n", b"\r\n"))
    data = EvalData.from_m2(str(crlf))
    rep2 = find_reported(data, [get_metric("m2")()])
    assert rep2 is not None and rep2.marked == "m2"


def test_jfleg_needs_all_four_references(shared_data: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    d = shared_data / "jfleg" / "dev"
    refs = [str(d / f"dev.ref{k}") for k in range(4)]
    argv = ["evaluate", "-m", "gleu", "-s", str(d / "dev.src"), "--hyp", str(d / "dev.src"),
            "--format", "json", "-q"]
    rc, out, _ = _run(capsys, *argv, "-r", *refs)
    assert rc == 0
    doc = json.loads(out)
    assert doc["reported"]["marked"] == "gleu" and doc["reported"]["test_set"] == "JFLEG dev"
    fields = doc["scores"][0]["fields"]
    assert set(fields) == {"GLEU", "draws_std", "draws_ci_low", "draws_ci_high"}
    # the spell-checked source JFLEG ships is a system input, not the source GLEU uses
    rc, out, _ = _run(capsys, "evaluate", "-m", "gleu", "-s", str(d / "dev.spellchecked.src"),
                      "--hyp", str(d / "dev.src"), "--format", "json", "-q", "-r", *refs)
    assert rc == 0
    rep = json.loads(out)["reported"]
    assert rep["marked"] is None and "spell-checked" in rep["notes"][0]
    rc, out, _ = _run(capsys, *argv, "-r", *refs[:3])
    assert rc == 0
    rep = json.loads(out)["reported"]
    assert rep["marked"] is None and "all 4 references" in rep["notes"][0]


def test_paper_refusals(conll14: Path, tmp_path: Path,
                        capsys: pytest.CaptureFixture[str]) -> None:
    ref = str(conll14 / "official-2014.combined.m2")
    hyps = _hyps(conll14, ("AMU", "CAMB"))
    rc, _, err = _run(capsys, "evaluate", "--paper", "-r", ref, "--hyp", *hyps,
                      "--baseline", "NOPE")
    assert rc == 64 and "--baseline 'NOPE' is not one of the systems: AMU, CAMB" in err
    rc, _, err = _run(capsys, "evaluate", "-m", "m2", "-r", ref, "--hyp", *hyps,
                      "--baseline", "AMU")
    assert rc == 64 and "--baseline goes with --paper" in err
    rc, _, err = _run(capsys, "evaluate", "--paper", "--format", "tsv", "-r", ref,
                      "--hyp", *hyps)
    assert rc == 64 and "not tsv" in err
    # an explicit --bootstrap 0 is not turned into 1000: the table's interval needs resamples
    rc, out, err = _run(capsys, "evaluate", "--paper", "-r", ref, "--hyp", *hyps,
                        "--bootstrap", "0")
    assert rc == 64 and "--paper --bootstrap 0" in err and out == ""
    # references that are not a known test set: no standard figure to guess
    unknown = tmp_path / "mine.m2"
    lines = Path(ref).read_text(encoding="utf-8").split("\n\n")
    unknown.write_text("\n\n".join(lines[:50]) + "\n", encoding="utf-8")
    src = tmp_path / "src.txt"
    src.write_text("".join(b.split("\n")[0][2:] + "\n" for b in lines[:50]), encoding="utf-8")
    rc, _, err = _run(capsys, "evaluate", "--paper", "-r", str(unknown), "--hyp", str(src))
    assert rc == 64 and "not a known test set" in err and "-m" in err
    rc, out, err = _run(capsys, "evaluate", "--paper", "-m", "m2", "--format", "markdown",
                        "-r", str(unknown), "--hyp", str(src), "--bootstrap", "50")
    assert rc == 0 and "not a known test set" in err
    assert "| System | P | R | F0.5 |" in out and "| src | 0.00 | 0.00 | 0.00 |" not in out


def test_a_malformed_headline_is_the_registry_file_s_error(tmp_path: Path) -> None:
    good = {"name": "x", "sha256": "0" * 64}
    for bad, why in (({"metric": 3, "fields": ["F"]}, "metric"),
                     ({"metric": "m2", "fields": []}, "fields"),
                     ({"metric": "m2", "fields": ["F"], "digits": 40}, "digits"),
                     ({"metric": "m2", "fields": ["F"], "scale": -1}, "scale"),
                     ({"metric": "m2", "fields": ["F"], "differs": {"errant": 1}}, "differs"),
                     ("m2", "object")):
        with pytest.raises(ConfigError, match=rf"mine\.json: x: headline: .*{why}"):
            parse_registry([{**good, "headline": bad}], "mine.json")


def test_a_user_registry_can_name_its_own_headline(conll14: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    part = tmp_path / "part.m2"
    blocks = (conll14 / "official-2014.combined.m2").read_text(encoding="utf-8").split("\n\n")
    part.write_text("\n\n".join(blocks[:40]) + "\n", encoding="utf-8")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("".join(b.split("\n")[0][2:] + "\n" for b in blocks[:40]), encoding="utf-8")
    rc, out, _ = _run(capsys, "check", "--hash", str(part))
    assert rc == 0
    entry = json.loads(out)[0]
    entry.update(name="my dev set", headline={"test_set": "My dev", "metric": "m2",
                                              "fields": ["F0.5"], "digits": 1,
                                              "reference": "part.m2"})
    registry = tmp_path / "registry.json"
    registry.write_text(json.dumps([entry]), encoding="utf-8")
    monkeypatch.setenv("GECSCOPE_TESTSETS", str(registry))
    rc, out, err = _run(capsys, "evaluate", "--paper", "--format", "markdown", "-r", str(part),
                        "--hyp", str(hyp), "--bootstrap", "30")
    assert rc == 0, err
    assert "**My dev: m2 F0.5**" in out
    row = next(ln for ln in out.splitlines() if ln.startswith("| hyp |"))
    assert re.fullmatch(r"\| hyp \| \d+\.\d \| \[\d+\.\d, \d+\.\d\] \| baseline \|", row), row
