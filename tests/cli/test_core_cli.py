"""The annotate, evaluate and demo subcommands, run in-process as a user would.

The ERRANT counts and scores pinned on the CoNLL-2014 files (AMU 483/795/1934 F0.5 0.3208, -ds
622/656/1903, IPN P 0.0963...) are errant_compare 3.0.2's: ``python
benchmarks/errant_compare_conll14.py`` prints them (tests/regression/test_errant_conll14.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecscope.cli.main import main

DEMO = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"


def test_evaluate_json_multiple_systems(capsys, conll14: Path) -> None:
    e = conll14 / "errant"
    rc = main(["evaluate", "-r", str(e / "references.m2"), "--hyp", str(e / "AMU.m2"),
               str(e / "UFC.m2"), "--format", "json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["schema_version"] == "1.2" and out["systems"] == ["AMU", "UFC"]
    rows = {r["system"]: r for r in out["scores"]}
    actual = [rows["AMU"]["fields"][k] for k in ("TP", "FP", "FN")]
    assert actual == [483, 795, 1934]
    actual = [rows["UFC"]["fields"][k] for k in ("TP", "FP", "FN")]
    assert actual == [36, 14, 2069]
    assert rows["AMU"]["main"] == "F0.5"
    assert rows["AMU"]["value"] == pytest.approx(0.3208, abs=5e-5)
    (metric,) = out["metrics"]
    assert metric["options"]["mode"] == "cs" and metric["signature"].startswith("m:errant|")
    assert out["per_type"]["errant"]["AMU"]


def test_evaluate_tsv_and_table_with_options(capsys, conll14: Path) -> None:
    e = conll14 / "errant"
    assert main(["evaluate", "-r", str(e / "references.m2"), "--hyp", str(e / "AMU.m2"),
                 "--format", "tsv", "-o", "mode=ds", "-o", "duplicate_ref_edits=errant"]) == 0
    lines = capsys.readouterr().out.strip("\n").split("\n")
    # the long schema compare writes too (docs/reports.md): one row per system, metric, field
    assert lines[0].split("\t") == ["system", "metric", "field", "value", "bootstrap_ci_low", "bootstrap_ci_high",
                                    "main", "rank", "cluster", "signature", "sentence"]
    rows = {r[2]: r for r in (ln.split("\t") for ln in lines[1:])}
    tp, fp, fn = (rows[k][3] for k in ("TP", "FP", "FN"))
    assert tp == "622" and fp == "656" and fn == "1903"
    assert list(rows) == ["TP", "FP", "FN", "P", "R", "F0.5"]
    assert rows["F0.5"][:2] == ["AMU", "errant"] and rows["F0.5"][6] == "1"
    assert rows["F0.5"][9].startswith("m:errant|mode:ds|")
    assert main(["evaluate", "-r", str(e / "references.m2"), "--hyp", str(e / "IPN.m2"),
                 "--cat", "3", "-o", "errant.beta=1"]) == 0
    out = capsys.readouterr().out
    assert "Span-Based Correction" in out and "F1" in out and "R:NOUN:NUM" in out
    assert "IPN" in out and "0.0963" in out


def test_evaluate_length_mismatch_is_a_clear_error(capsys, tmp_path: Path) -> None:
    hyp = tmp_path / "short.txt"
    hyp.write_text("only one line\n", encoding="utf-8")
    rc = main(["evaluate", "-r", str(DEMO / "references.m2"), "--hyp", str(hyp)])
    err = capsys.readouterr().err
    assert rc == 65
    assert f"{hyp}: short: 1 lines for 12 source sentences of {DEMO / 'references.m2'}" in err
    assert "nothing was scored" in err


def test_evaluate_malformed_m2_names_line(capsys, tmp_path: Path) -> None:
    ref = tmp_path / "bad.m2"
    ref.write_text("S a b\nA 0 1|||X|||y\n", encoding="utf-8")
    rc = main(["evaluate", "-r", str(ref), "--hyp", str(DEMO / "careful.txt")])
    assert rc == 65
    assert f"{ref}:2: malformed A line" in capsys.readouterr().err


def test_unknown_metric_and_option(capsys) -> None:
    rc = main(["evaluate", "-m", "nope", "-r", str(DEMO / "references.m2"), "--hyp",
               str(DEMO / "careful.txt")])
    assert rc == 64 and "unknown metric 'nope'" in capsys.readouterr().err
    rc = main(["evaluate", "-r", str(DEMO / "references.m2"), "--hyp",
               str(DEMO / "careful.txt"), "-o", "errant.gamma=2"])
    assert rc == 64 and "no option 'gamma'" in capsys.readouterr().err


@pytest.mark.parametrize(("metrics", "option", "message"), [
    (["m2"], "bta=1.0", "did you mean 'beta'?"),
    (["m2"], "max_unchanged_word=0", "did you mean 'max_unchanged_words'?"),
    (["m2", "gleu"], "iteration=10", "did you mean 'iterations'?"),
    (["m2"], "errant.beta=1.0", "for metric 'errant', which is not selected"),
])
def test_misspelled_unprefixed_option_is_an_error(capsys, metrics: list[str], option: str,
                                                  message: str) -> None:
    # these used to run with the default and exit 0: a wrong number with no warning
    argv = ["evaluate", "-r", str(DEMO / "references.m2"), "--hyp", str(DEMO / "careful.txt"),
            "-o", option]
    for m in metrics:
        argv += ["-m", m]
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 64 and message in err


@pytest.mark.requires_spacy
def test_an_option_of_any_selected_metric_is_accepted(capsys) -> None:
    rc = main(["evaluate", "-m", "m2", "-m", "errant", "-r", str(DEMO / "references.m2"),
               "--hyp", str(DEMO / "careful.txt"), "-o", "mode=ds", "--format", "json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    modes = {m["name"]: m["options"].get("mode") for m in out["metrics"]}
    assert modes == {"m2": None, "errant": "ds"}


def test_annotate_levenshtein_round_trip(tmp_path: Path) -> None:
    from gecscope.formats.m2 import read_m2
    from gecscope.formats.plain import read_tokens

    out = tmp_path / "out.m2"
    assert main(["annotate", "-s", str(DEMO / "source.txt"), "-c", str(DEMO / "ref0.txt"),
                 str(DEMO / "ref1.txt"), "--output", str(out), "--extractor", "levenshtein",
                 "-q"]) == 0
    corpus = read_m2(out)
    assert corpus.references(0) == read_tokens(DEMO / "ref0.txt")
    assert corpus.references(1) == read_tokens(DEMO / "ref1.txt")


def test_annotate_mismatch_writes_nothing(capsys, tmp_path: Path) -> None:
    short = tmp_path / "short.txt"
    short.write_text("a\n", encoding="utf-8")
    out = tmp_path / "out.m2"
    rc = main(["annotate", "-s", str(DEMO / "source.txt"), "-c", str(short), "--output", str(out)])
    assert rc == 65 and not out.exists()
    assert "has 1 lines but 12 were expected" in capsys.readouterr().err


@pytest.mark.requires_spacy
def test_annotate_errant_matches_shipped_references(tmp_path: Path) -> None:
    pytest.importorskip("errant", reason="needs the spacy extra")
    out = tmp_path / "refs.m2"
    assert main(["annotate", "-s", str(DEMO / "source.txt"), "-c", str(DEMO / "ref0.txt"),
                 str(DEMO / "ref1.txt"), "--output", str(out), "-q"]) == 0
    assert out.read_text(encoding="utf-8") == (DEMO / "references.m2").read_text(
        encoding="utf-8")


@pytest.mark.requires_spacy
def test_demo(capsys) -> None:
    pytest.importorskip("errant", reason="needs the spacy extra")
    assert main(["demo", "--metric", "errant"]) == 0
    out = capsys.readouterr().out
    rows = {ln.split()[0]: ln.split()[1:] for ln in out.splitlines()
            if ln.split() and ln.split()[0] in ("careful", "cautious", "rewriter")}
    # Pinned from errant 3.0.2 + spaCy 3.8 on the built-in example: the careful system finds
    # most reference edits with no false positive, the cautious one few, and the rewriter's
    # paraphrases are mostly false positives.
    assert rows["careful"][:3] == ["24", "0", "7"]
    assert rows["cautious"][:3] == ["9", "0", "22"]
    assert rows["rewriter"][:3] == ["12", "38", "19"]


def test_version_and_help(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert "gecscope 0.1.0" in capsys.readouterr().out
    assert main([]) == 2


def test_evaluate_json_keeps_the_bootstrap_with_sentences(capsys) -> None:
    # --sentences used to rebuild the printed JSON report without the resampling
    code = main(["evaluate", "--metric", "gleu", "--ref", str(DEMO / "references.m2"),
                 "--hyp", str(DEMO / "careful.txt"), "--format", "json", "--bootstrap", "20",
                 "--sentences", "-q"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["resampling"]["n_samples"] == 20
    assert len(doc["sentences"]) == 12


@pytest.mark.parametrize("how", ["dash", "dev-stdin"])
def test_hypothesis_from_standard_input(how: str) -> None:
    # `--hyp -` used to say "file not found"; a pipe must be read once only
    import subprocess
    import sys

    hyp = "-" if how == "dash" else "/dev/stdin"
    run = subprocess.run(
        [sys.executable, "-m", "gecscope", "evaluate", "-m", "m2", "-r",
         str(DEMO / "references.m2"), "--hyp", hyp, "--format", "json"],
        input=(DEMO / "careful.txt").read_bytes(), capture_output=True, check=False)
    assert run.returncode == 0, run.stderr.decode()
    from_pipe = json.loads(run.stdout)["scores"][0]["fields"]
    direct = subprocess.run(
        [sys.executable, "-m", "gecscope", "evaluate", "-m", "m2", "-r",
         str(DEMO / "references.m2"), "--hyp", str(DEMO / "careful.txt"), "--format", "json"],
        capture_output=True, check=True)
    assert from_pipe == json.loads(direct.stdout)["scores"][0]["fields"]


@pytest.mark.parametrize("command", [
    ["annotate", "-s", str(DEMO / "source.txt"), "-c", str(DEMO / "ref0.txt")],
    ["convert", "m2-to-ixml", str(DEMO / "references.m2")],
])
def test_dash_o_is_never_an_output_file(capsys, tmp_path: Path, command: list[str]) -> None:
    # -o is a metric option in evaluate; it used to be the output file in annotate/convert
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as stop:
        main([*command, "-o", str(out)])
    assert stop.value.code == 64
    assert "write the output file with --output" in capsys.readouterr().err
    assert not out.exists()


def test_errant_spellings_of_annotate(tmp_path: Path) -> None:
    out = tmp_path / "refs.m2"
    rc = main(["annotate", "-orig", str(DEMO / "source.txt"), "-cor", str(DEMO / "ref0.txt"),
               "-out", str(out), "--extractor", "levenshtein", "-q"])
    assert rc == 0 and out.read_text(encoding="utf-8").startswith("S ")


@pytest.mark.requires_spacy
def test_spellings_of_errant_compare_and_m2scorer(capsys) -> None:
    # `-hyp` used to fail with "argument -h/--help: ignored explicit argument 'yp'"
    ref, hyp = str(DEMO / "references.m2"), str(DEMO / "careful.txt")
    assert main(["evaluate", "-m", "m2", "-ref", ref, "-hyp", hyp, "-b", "1.0",
                 "--format", "json"]) == 0
    field = json.loads(capsys.readouterr().out)
    assert main(["evaluate", "-m", "m2", "-r", ref, "--hyp", hyp, "-o", "beta=1.0",
                 "--format", "json"]) == 0
    option = json.loads(capsys.readouterr().out)
    assert field["scores"] == option["scores"] and field["metrics"][0]["options"]["beta"] == 1.0
    assert main(["evaluate", "-ref", ref, "-hyp", hyp, "-ds", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"][0]["options"]["mode"] == "ds"
    assert main(["evaluate", "-m", "gleu", "-r", ref, "--hyp", hyp, "-b", "1.0"]) == 64
    assert "no selected metric (gleu) has an option 'beta'" in capsys.readouterr().err


@pytest.mark.parametrize("flag", [["-v"], ["-o", "verbose=true"]])
def test_verbose_lists_the_chosen_annotator_and_edits(capsys, flag: list[str]) -> None:
    # `-o verbose=true` used to print nothing more
    rc = main(["evaluate", "-m", "m2", "-r", str(DEMO / "references.m2"), "--hyp",
               str(DEMO / "careful.txt"), *flag])
    out = capsys.readouterr().out
    assert rc == 0
    listed = [ln for ln in out.splitlines() if ln.startswith("sentence ")]
    assert len(listed) == 12
    assert listed[0] == "sentence 1  annotator 0  correct 3  proposed 3  gold 3"
    assert "  correct:  (1, 2) 'has' -> ''; (8, 9) 'buyed' -> 'bought'; (10, 11) 'apple' -> " \
        "'apples'" in out.splitlines()


@pytest.mark.requires_spacy
def test_errants_own_scripts_run_in_gecscopes_environment(capsys, tmp_path: Path) -> None:
    # errant_parallel used to crash here: its model name is installed under another name
    pytest.importorskip("errant")
    theirs, ours = tmp_path / "errant.m2", tmp_path / "gecscope.m2"
    assert main(["errant", "parallel", "-orig", str(DEMO / "source.txt"), "-cor",
                 str(DEMO / "careful.txt"), "-out", str(theirs)]) == 0
    assert main(["annotate", "-s", str(DEMO / "source.txt"), "-c", str(DEMO / "careful.txt"),
                 "--output", str(ours), "-q"]) == 0
    assert theirs.read_text(encoding="utf-8") == ours.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["errant", "compare", "-hyp", str(theirs), "-ref",
                 str(DEMO / "references.m2")]) == 0
    printed = capsys.readouterr().out.split()
    assert main(["evaluate", "-ref", str(DEMO / "references.m2"), "-hyp", str(ours),
                 "--format", "json"]) == 0
    f = json.loads(capsys.readouterr().out)["scores"][0]["fields"]
    i = printed.index("F0.5")
    assert printed[i + 1:i + 4] == [str(f["TP"]), str(f["FP"]), str(f["FN"])]


def test_files_with_one_stem_keep_apart_and_repeated_names_are_refused(
        capsys, tmp_path: Path) -> None:
    # `AMU` and `AMU.detok` used to be two rows named "AMU"
    plain = tmp_path / "careful"
    plain.write_bytes((DEMO / "careful.txt").read_bytes())
    assert main(["evaluate", "-m", "m2", "-r", str(DEMO / "references.m2"), "--hyp", str(plain),
                 str(DEMO / "careful.txt"), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["systems"] == ["careful", "careful.txt"]
    assert main(["evaluate", "-m", "m2", "-r", str(DEMO / "references.m2"), "--hyp", str(plain),
                 str(DEMO / "careful.txt"), "--name", "A", "A"]) == 64
    assert "two systems are named 'A'" in capsys.readouterr().err


def test_detokenised_hypothesis_is_flagged(capsys, tmp_path: Path) -> None:
    # a detokenised output scored against tokenised references used to pass silently
    import re

    lines = (DEMO / "careful.txt").read_text(encoding="utf-8").splitlines()
    detok = tmp_path / "careful.detok"
    detok.write_text("\n".join(re.sub(r" ([.,!?]|n't)", r"\1", ln) for ln in lines) + "\n",
                     encoding="utf-8")
    assert main(["evaluate", "-m", "m2", "-r", str(DEMO / "references.m2"), "--hyp",
                 str(DEMO / "careful.txt"), str(detok)]) == 0
    warnings = [ln for ln in capsys.readouterr().err.splitlines() if "warning" in ln]
    assert len(warnings) == 1
    assert warnings[0].startswith("gecscope: warning: careful.detok: ")
    assert "looks detokenised" in warnings[0]


def test_swapped_reference_and_hypothesis_m2_is_flagged(capsys, tmp_path: Path) -> None:
    # a copy: the -r file itself given as --hyp is left out of the systems
    system_m2 = tmp_path / "system.m2"
    system_m2.write_bytes((DEMO / "references.m2").read_bytes())
    rc = main(["evaluate", "-m", "m2", "-r", str(DEMO / "references.m2"), "--hyp", str(system_m2)])
    assert rc == 0
    err = capsys.readouterr().err
    assert "this hypothesis M2 has 2 annotators (0, 1), like a reference file" in err


@pytest.mark.requires_spacy
def test_per_type_table_warns_when_the_type_schemes_differ(capsys, tmp_path: Path) -> None:
    # NUCLE-typed gold against an ERRANT-typed hypothesis used to give a silent, meaningless
    # table; now the references are re-typed with ERRANT for it (tests/cli/test_compare_types)
    import re

    text = (DEMO / "references.m2").read_text(encoding="utf-8")
    nucle = tmp_path / "nucle.m2"
    nucle.write_text(re.sub(r"\|\|\|[RMU]:[A-Z:]+\|\|\|", "|||Nn|||", text), encoding="utf-8")
    hyp = tmp_path / "careful.m2"
    assert main(["annotate", "-s", str(DEMO / "source.txt"), "-c", str(DEMO / "careful.txt"),
                 "--output", str(hyp), "-q"]) == 0
    assert main(["evaluate", "-r", str(nucle), "--hyp", str(hyp), "--cat", "2"]) == 0
    out, err = capsys.readouterr()
    assert "the references use types such as Nn, careful types such as" in err
    assert "so the references were re-typed with ERRANT" in err
    table = out.split("-- careful: errant by error type (level 2) --\n")[1].splitlines()
    assert "VERB:SVA" in {ln.split()[0] for ln in table[2:] if ln.strip()}
    assert not [ln for ln in table if ln.startswith("Nn ")]
    assert main(["evaluate", "-r", str(DEMO / "references.m2"), "--hyp", str(hyp),
                 "--cat", "2"]) == 0
    assert "re-typed" not in capsys.readouterr().err


def test_progress_counts_sentences_from_inside_the_metrics() -> None:
    # progress used to count systems (3 calls for 3 systems) and read "0/s"
    from gecscope import evaluate
    from gecscope.cli._common import Progress
    from gecscope.data import EvalData, Hypothesis

    data = EvalData((str(DEMO / "references.m2"),))
    hyps = [Hypothesis.from_file(DEMO / f"{s}.txt") for s in ("careful", "cautious")]
    calls: list[int] = []
    evaluate(["m2", "gleu"], data, hyps, progress=calls.append)
    assert sum(calls) == 2 * 2 * len(data)
    assert calls.count(1) >= 2 * len(data)  # m2 reports sentence by sentence
    bar = Progress(120, "scoring", unit="sentences")
    bar.start -= 4.0
    bar.done = 30
    assert bar.line(bar.start + 4.0) == "scoring: 30/120 sentences (25%, 7.5/s, ETA 0:12)"


def test_progress_flag_reports_to_a_log(tmp_path: Path) -> None:
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-m", "gecscope", "evaluate", "-m", "m2", "-r",
         str(DEMO / "references.m2"), "--hyp", str(DEMO / "careful.txt"), "--progress"],
        capture_output=True, text=True, check=True)
    assert "scoring: 12/12 sentences (100%" in run.stderr
    quiet = subprocess.run(
        [sys.executable, "-m", "gecscope", "evaluate", "-m", "m2", "-r",
         str(DEMO / "references.m2"), "--hyp", str(DEMO / "careful.txt")],
        capture_output=True, text=True, check=True)
    assert "scoring" not in quiet.stderr


def test_one_interval_per_row(capsys) -> None:
    # GLEU's row used to show the bootstrap interval next to its own over reference draws
    refs = [str(DEMO / "ref0.txt"), str(DEMO / "ref1.txt")]
    assert main(["evaluate", "-m", "gleu", "-r", *refs, "--source", str(DEMO / "source.txt"),
                 "--hyp", str(DEMO / "careful.txt"), "--bootstrap", "50"]) == 0
    out = capsys.readouterr().out
    header = next(ln for ln in out.splitlines() if ln.startswith("rank"))
    assert header.split("  ") and [c.strip() for c in header.split("  ") if c.strip()] == [
        "rank", "cluster", "system", "GLEU [95% CI, bootstrap over sentences]", "draws_std"]
    assert "its own interval (draws_ci_low, draws_ci_high" in out
    assert main(["evaluate", "-m", "gleu", "-r", *refs, "--source", str(DEMO / "source.txt"),
                 "--hyp", str(DEMO / "careful.txt")]) == 0
    assert "draws_ci_low" in capsys.readouterr().out  # without resampling, compute_gleu's columns


def test_latex_and_markdown_tables(capsys) -> None:
    argv = ["evaluate", "-m", "m2", "-r", str(DEMO / "references.m2"), "--hyp",
            str(DEMO / "careful.txt"), str(DEMO / "cautious.txt")]
    assert main([*argv, "--format", "latex"]) == 0
    latex = capsys.readouterr().out.splitlines()
    assert latex[1] == r"\begin{tabular}{lrrrrrr}"
    assert "careful & 0.9449 & 24 & 0 & 7 & 1.0000 & 0.7742 \\\\" in latex
    assert latex[-1].startswith("% signature: m:m2|")
    assert main([*argv, "--format", "markdown", "--bootstrap", "20"]) == 0
    md = capsys.readouterr().out.splitlines()
    assert "| rank | cluster | system | F0.5 [95% CI, bootstrap over sentences] | TP | FP | FN | P | R |" in md
    row = next(ln for ln in md if "| careful |" in ln)
    assert row.startswith("| 1 | 1 | careful | 0.9449 [") and row.endswith("| 24 | 0 | 7 | 1.0000 | 0.7742 |")


@pytest.mark.requires_spacy
def test_cat_and_sentences_are_never_silently_ignored(capsys) -> None:
    # --cat with a metric without types, and --sentences in the table format, used to print
    # nothing more and say nothing; and both vanished from a bootstrap table
    argv = ["evaluate", "-m", "m2", "-r", str(DEMO / "references.m2"), "--hyp",
            str(DEMO / "careful.txt")]
    assert main([*argv, "--cat", "2"]) == 0
    # m2 counts nothing by type: its edits' Shapley shares of its sentence scores instead
    assert "-- careful: m2 by error type (level 2), attribution (shapley): sum of edit " \
           "shares of delta m2" in capsys.readouterr().out
    assert main([*argv, "--sentences", "--bootstrap", "20"]) == 0
    out = capsys.readouterr().out
    assert "-- m2: sentence scores --" in out and "\n12  " in out
    assert main(["evaluate", "-r", str(DEMO / "references.m2"), "--hyp",
                 str(DEMO / "careful.txt"), "--cat", "1", "--bootstrap", "20"]) == 0
    assert "-- careful: errant by error type (level 1) --" in capsys.readouterr().out


def test_output_into_a_missing_directory_is_a_clear_error(capsys, tmp_path: Path) -> None:
    # used to end in a FileNotFoundError traceback from the temporary file
    out = tmp_path / "no" / "such" / "refs.m2"
    rc = main(["annotate", "-s", str(DEMO / "source.txt"), "-c", str(DEMO / "ref0.txt"),
               "--output", str(out), "--extractor", "levenshtein", "-q"])
    assert rc == 73
    assert "does not exist" in capsys.readouterr().err and not out.parent.exists()


@pytest.mark.parametrize(("metric", "option", "message"), [
    ("m2", "beta=inf", "must be a finite number"),
    ("imeasure", "w=nan", "must be a finite number"),
    ("m2", "max_unchanged_words=99999999999999999999", "is out of range"),
    ("gleu", "order=100000000000000000000", "order must be an integer from 1 to 10"),
    ("cleme", "length_tp_min=-5", "must be >= 0"),
])
def test_option_values_out_of_range_are_refused(capsys, metric: str, option: str,
                                                message: str) -> None:
    # these used to end in tracebacks, NaN scores or exhausted memory
    rc = main(["evaluate", "-m", metric, "-r", str(DEMO / "references.m2"), "--hyp",
               str(DEMO / "careful.txt"), "-o", option])
    assert rc == 64 and message in capsys.readouterr().err


def test_bootstrap_count_is_bounded(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["evaluate", "-m", "m2", "-r", str(DEMO / "references.m2"), "--hyp",
              str(DEMO / "careful.txt"), "--bootstrap", "100000000"])
    assert stop.value.code == 64 and "between 0 and 100,000" in capsys.readouterr().err


@pytest.mark.requires_spacy
def test_runaway_lines_are_refused_or_scored_as_the_source(capsys, tmp_path: Path) -> None:
    # a system stuck in a loop (a 2,000-token line) used to make ERRANT and CLEME run for hours
    lines = (DEMO / "careful.txt").read_text(encoding="utf-8").splitlines()
    lines[4] = " ".join(["the", "a", ","] * 700)
    hyp = tmp_path / "loop.txt"
    hyp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    argv = ["evaluate", "-m", "errant", "-r", str(DEMO / "references.m2"), "--hyp", str(hyp)]
    assert main(argv) == 65
    assert f"{hyp}:5: has 2,100 tokens, more than --max-tokens 1000" in capsys.readouterr().err
    assert main([*argv, "--long-lines", "source", "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert "1 line(s) longer than 1000 tokens (first: line 5) scored as the unchanged source" \
        in captured.err
    sources = (DEMO / "source.txt").read_text(encoding="utf-8").splitlines()
    same = tmp_path / "same.txt"
    same.write_text("\n".join(lines[:4] + [sources[4]] + lines[5:]) + "\n", encoding="utf-8")
    assert main(["evaluate", "-m", "errant", "-r", str(DEMO / "references.m2"), "--hyp",
                 str(same), "--format", "json"]) == 0
    want = json.loads(capsys.readouterr().out)["scores"][0]["fields"]
    assert json.loads(captured.out)["scores"][0]["fields"] == want


@pytest.mark.requires_spacy
def test_annotate_jobs_gives_the_same_m2(monkeypatch, tmp_path: Path) -> None:
    # --jobs runs ERRANT in worker processes (each loads spaCy once), chunks merged in order
    pytest.importorskip("errant")
    from gecscope.execution import chunks as chunks_module

    monkeypatch.setattr("gecscope.execution.executors.PARALLEL_MIN", 1)  # the demo is small
    monkeypatch.setattr(chunks_module, "CHUNK", 10)  # 5 sentences x 2 corrections: 3 chunks
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}.m2"
        assert main(["annotate", "-s", str(DEMO / "source.txt"), "-c", str(DEMO / "careful.txt"),
                     str(DEMO / "rewriter.txt"), "--output", str(out), "--jobs", jobs,
                     "-q"]) == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0].count(b"\nS ") == 11


@pytest.mark.requires_spacy
def test_annotate_jobs_with_recurring_sources(monkeypatch, tmp_path: Path) -> None:
    """The demo's sources twice, against two systems one after the other (as several systems'
    outputs of one test set): gathered by source for the workers, written in input order."""
    pytest.importorskip("errant")
    from gecscope.execution import chunks as chunks_module

    monkeypatch.setattr("gecscope.execution.executors.PARALLEL_MIN", 1)
    monkeypatch.setattr(chunks_module, "CHUNK", 5)
    src, cor = tmp_path / "src.txt", tmp_path / "cor.txt"
    src.write_bytes((DEMO / "source.txt").read_bytes() * 2)
    cor.write_bytes((DEMO / "careful.txt").read_bytes() + (DEMO / "rewriter.txt").read_bytes())
    lines = src.read_text(encoding="utf-8").splitlines()
    order = chunks_module.grouped_order([tuple(x.split()) for x in lines])
    assert order is not None and order[:2] == [0, len(lines) // 2]
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}.m2"
        assert main(["annotate", "-s", str(src), "-c", str(cor), "--output", str(out),
                     "--jobs", jobs, "-q"]) == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0].count(b"\nS ") == 23
    assert chunks_module.grouped_order([("a",), ("b",)]) is None
    # evaluate's edit phase (annotate_parallel): regrouped the same way, in input order again
    sources = [tuple(x.split()) for x in lines]
    cors = [tuple(x.split()) for x in cor.read_text(encoding="utf-8").splitlines()]
    one = chunks_module.process_annotator().annotate_corpus(sources, [cors])
    two = chunks_module.annotate_parallel(sources, [cors], jobs=2)
    assert two.sentences == one.sentences


@pytest.mark.slow
@pytest.mark.requires_spacy
def test_annotate_jobs_on_conll_and_jfleg(shared_data: Path, tmp_path: Path,
                                         monkeypatch) -> None:
    # the first 400 sentences of each (all 2,066 took 19 s of CPU for no other coverage): the
    # pool forced; that a large input starts workers by itself is test_workers_hardening's
    pytest.importorskip("errant")
    monkeypatch.setattr("gecscope.execution.executors.PARALLEL_MIN", 1)
    parts = {"src": [("conll14/submissions/INPUT"), ("jfleg/dev/dev.src")],
             "cor": [("conll14/submissions/AMU"), ("jfleg/dev/dev.ref0")]}
    files = {}
    for name, paths in parts.items():
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("".join(
            "".join((shared_data / p).read_text(encoding="utf-8").splitlines(keepends=True)[:400])
            for p in paths), encoding="utf-8")
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}.m2"
        assert main(["annotate", "-s", str(files["src"]), "-c", str(files["cor"]), "--output",
                     str(out), "--jobs", jobs, "-q"]) == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0].count(b"\nS ") == 799
