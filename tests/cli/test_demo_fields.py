"""``gecscope demo``: the main columns of each metric by default, every column with
``--all-fields``, one line per metric on what its headline measures, and the note on why M2
and ERRANT disagree on the rewriter (with the counts the tables print)."""

from __future__ import annotations

import json
import re

import pytest

from gecscope.cli.demo import DEMO_METRICS, DEMO_SYSTEMS, MEASURES, main_fields
from gecscope.cli.main import main
from gecscope.reports.model import MetricInfo

#: the main columns: what `gecscope evaluate` shows by default (GLEU names none: its headline)
MAIN = {
    "errant": ["TP", "FP", "FN", "P", "R", "F0.5"],
    "m2": ["TP", "FP", "FN", "P", "R", "F0.5"],
    "gleu": ["GLEU"],
    "cleme2": ["Score", "Hit", "Wrong", "Under", "Over"],
    "imeasure": ["c_p", "c_r", "c_f", "c_wacc", "c_wacc_b", "c_i"],
}


def demo(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["demo", *args]) == 0
    return capsys.readouterr().out


def tables(out: str) -> dict[str, list[list[str]]]:
    """Metric -> [header, rows...] of each ``== metric: title ==`` table."""
    found: dict[str, list[list[str]]] = {}
    lines = out.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"== (\w+): ", line)
        if m:
            rows = [lines[i + 1].split()]
            rows += [ln.split() for ln in lines[i + 3:i + 3 + len(DEMO_SYSTEMS)]]
            found[m.group(1)] = rows
    return found


def measure_lines(out: str) -> list[str]:
    block = out.split("What the main figures measure:\n", 1)[1].split("\n\n", 1)[0]
    return block.splitlines()


@pytest.fixture(scope="module")
def all_fields_json() -> dict[str, list[str]]:
    """Every field of every demo metric's Score, from the JSON report."""
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["demo", "--format", "json"]) == 0
    report = json.loads(buf.getvalue())
    out: dict[str, list[str]] = {}
    for s in report["scores"]:
        out.setdefault(s["metric"], list(s["fields"]))
    return out


def test_default_shows_only_the_main_fields_and_one_line_per_metric(
        capsys: pytest.CaptureFixture[str], all_fields_json: dict[str, list[str]]) -> None:
    out = demo(capsys)
    shown = tables(out)
    assert list(shown) == list(DEMO_METRICS)
    for metric, rows in shown.items():
        assert rows[0] == ["system", *MAIN[metric]], metric
        assert [r[0] for r in rows[1:]] == list(DEMO_SYSTEMS)
        assert set(MAIN[metric]) <= set(all_fields_json[metric]), metric
    for metric in ("gleu", "cleme2", "imeasure"):  # these have columns beyond the main ones
        assert set(MAIN[metric]) < set(all_fields_json[metric]), metric
    lines = measure_lines(out)
    assert lines == [f"  {m}: {MEASURES[m]}" for m in DEMO_METRICS]
    assert "std" not in out and "c_tp" not in out and "FP_ne" not in out


def test_all_fields_shows_every_field(capsys: pytest.CaptureFixture[str],
                                      all_fields_json: dict[str, list[str]]) -> None:
    out = demo(capsys, "--all-fields")
    shown = tables(out)
    for metric in DEMO_METRICS:
        assert shown[metric][0] == ["system", *all_fields_json[metric]], metric
    assert len(measure_lines(out)) == len(DEMO_METRICS)


def test_the_m2_errant_note_states_the_tables_counts(capsys: pytest.CaptureFixture[str]) -> None:
    out = demo(capsys)
    shown = tables(out)

    def row(metric: str, system: str) -> dict[str, str]:
        header, *rows = shown[metric]
        return dict(zip(header, next(r for r in rows if r[0] == system), strict=True))

    notes = out.split("Why metrics disagree:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(notes) == 1 and notes[0].startswith("  rewriter: ")  # only the rewriter differs
    m2, errant = row("m2", "rewriter"), row("errant", "rewriter")
    assert (f"m2 {m2['F0.5']} vs errant {errant['F0.5']} (M2 {m2['TP']} TP / {m2['FP']} FP, "
            f"ERRANT {errant['TP']} TP / {errant['FP']} FP)") in notes[0]
    assert abs(float(m2["F0.5"]) - float(errant["F0.5"])) > 0.1
    for system in ("careful", "cautious"):  # the note says they agree: they do
        assert row("m2", system) == row("errant", system)
        assert system in notes[0]


def test_metric_subset_has_its_lines_only(capsys: pytest.CaptureFixture[str]) -> None:
    out = demo(capsys, "--metric", "m2", "--metric", "green")
    assert list(tables(out)) == ["m2", "green"]
    assert tables(out)["green"][0] == ["system", "F2", "P", "R"]
    assert measure_lines(out) == [f"  m2: {MEASURES['m2']}", f"  green: {MEASURES['green']}"]
    assert "Why metrics disagree" not in out  # no errant beside m2: nothing to explain


def test_machine_readable_formats_have_no_prose(capsys: pytest.CaptureFixture[str]) -> None:
    out = demo(capsys, "--format", "tsv", "--metric", "gleu")
    assert "What the main figures" not in out
    assert {ln.split("\t")[2] for ln in out.splitlines()[1:]} >= {"GLEU", "draws_std"}


def test_main_fields_is_the_display_or_the_headline() -> None:
    info = MetricInfo("x", "F", "", {}, "sig", "sig")
    assert main_fields(info).display == ("F",)
    shown = MetricInfo("x", "F", "", {}, "sig", "sig", display=("F", "P"))
    assert main_fields(shown).display == ("F", "P")


def test_unknown_metric_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--metric", "nosuchmetric"]) == 64
    assert "nosuchmetric" in capsys.readouterr().err
