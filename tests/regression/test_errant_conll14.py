"""ERRANT scoring reproduces errant_compare 3.0.2 on CoNLL-2014 (issue #2's table).

Golden values: what errant_compare 3.0.2 (PyPI errant==3.0.2, the current release) printed when
run here on ../shared/data/conll14/errant/{SYS}.m2 against references.m2 (span-based
correction, beta 0.5): TP FP FN P R F0.5 for all 13 systems, and for AMU with -ds, -dt, -cse
and -cat 2 (errant_compare needs no spaCy model). The annotation side is compared with
errant's own library loop, run inside tests/unit/test_errant_extraction.py.
``python benchmarks/errant_compare_conll14.py`` runs those errant_compare command lines again and
prints the tool's output (docs/errant.md compares).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.metrics.errant import ErrantMetric

ERRANT_COMPARE = {
    "AMU": (483, 795, 1934, .3779, .1998, .3208),
    "CAMB": (725, 1329, 1886, .3530, .2777, .3348),
    "CUUI": (607, 985, 1946, .3813, .2378, .3402),
    "IITB": (28, 65, 2064, .3011, .0134, .0568),
    "INPUT": (0, 0, 2070, 1.0, 0.0, 0.0),
    "IPN": (52, 488, 2078, .0963, .0244, .0606),
    "NTHU": (409, 991, 1976, .2921, .1715, .2561),
    "PKU": (294, 697, 2007, .2967, .1278, .2346),
    "POST": (508, 1152, 1985, .3060, .2038, .2781),
    "RAC": (319, 794, 2044, .2866, .1350, .2340),
    "SJTU": (104, 261, 2036, .2849, .0486, .1444),
    "UFC": (36, 14, 2069, .7200, .0171, .0781),
    "UMC": (311, 774, 2020, .2866, .1334, .2331),
}


@pytest.fixture(scope="module")
def refs(conll14: Path) -> EvalData:
    return EvalData((str(conll14 / "errant" / "references.m2"),))


@pytest.mark.parametrize("system", sorted(ERRANT_COMPARE))
def test_errant_compare_table(conll14: Path, refs: EvalData, system: str) -> None:
    hyp = Hypothesis.from_file(conll14 / "errant" / f"{system}.m2")
    f = ErrantMetric().score(refs, hyp).fields
    got = (f["TP"], f["FP"], f["FN"], round(f["P"], 4), round(f["R"], 4), round(f["F0.5"], 4))
    assert got == ERRANT_COMPARE[system]


def test_duplicate_and_rounding_options_do_not_change_conll(conll14: Path, refs: EvalData) -> None:
    # No reference annotator repeats an edit in this file, and no sentence's choice depends on
    # F beyond 4 decimals, so errant's duplicate counting and the unrounded selection give the
    # same counts here (they differ on the unit cases).
    hyp = Hypothesis.from_file(conll14 / "errant" / "CAMB.m2")
    base = ErrantMetric().score(refs, hyp).fields
    assert ErrantMetric(fix_duplicate_edits=True).score(refs, hyp).fields == base
    unrounded = ErrantMetric(selection_rounding=None).score(refs, hyp).fields
    actual = (unrounded["TP"], unrounded["FP"], unrounded["FN"])
    assert actual == (base["TP"], base["FP"], base["FN"]) == (725, 1329, 1886)


# errant_compare 3.0.2 -ds / -dt / -cse on AMU.m2 vs references.m2 (run here): TP FP FN F0.5
ERRANT_COMPARE_AMU_MODES = {
    "ds": (622, 656, 1903, .4072),
    "dt": (721, 564, 2242, .4449),
    "cse": (481, 797, 1936, .3194),
}
# errant_compare 3.0.2 -cat 2 on AMU (first rows of its table): TP FP FN
ERRANT_COMPARE_AMU_CAT2 = {
    "ADJ": [5, 38, 34], "ADJ:FORM": [5, 3, 2], "ADV": [2, 16, 37], "CONJ": [1, 14, 14],
    "CONTR": [8, 18, 1],
}


@pytest.mark.parametrize("mode", sorted(ERRANT_COMPARE_AMU_MODES))
def test_detection_modes_match_errant(conll14: Path, refs: EvalData, mode: str) -> None:
    hyp = Hypothesis.from_file(conll14 / "errant" / "AMU.m2")
    f = ErrantMetric(mode=mode).score(refs, hyp).fields  # the defaults are errant_compare's
    actual = (f["TP"], f["FP"], f["FN"], round(f["F0.5"], 4))
    assert actual == ERRANT_COMPARE_AMU_MODES[mode]


def test_token_detection_counts_each_token_once_when_fixed(conll14: Path, refs: EvalData) -> None:
    hyp = Hypothesis.from_file(conll14 / "errant" / "AMU.m2")
    f = ErrantMetric(mode="dt", fix_duplicate_edits=True).score(refs, hyp).fields
    actual = (f["TP"], f["FP"], f["FN"])
    assert actual == (710, 558, 2214)


def test_categories_match_errant(conll14: Path, refs: EvalData) -> None:
    from gecscope.metrics.errant import category_table

    hyp = Hypothesis.from_file(conll14 / "errant" / "AMU.m2")
    cs = ErrantMetric().score(refs, hyp)
    cats = cs.categories
    table = category_table(cats, 2)
    assert {k: table[k] for k in ERRANT_COMPARE_AMU_CAT2} == ERRANT_COMPARE_AMU_CAT2
    # Per-type counts add up to the corpus counts.
    actual = [sum(v[i] for v in cats.values()) for i in range(3)]
    assert actual == [
        cs.fields["TP"], cs.fields["FP"], cs.fields["FN"]]


@pytest.mark.slow
@pytest.mark.requires_spacy
@pytest.mark.parametrize("flags", [["-auto"], ["-gold"], ["-gold", "-no_min", "-old_cats"]])
def test_retype_equals_errant_m2(conll14: Path, tmp_path: Path, flags: list[str]) -> None:
    # errant 3.0.2's own errant_m2, run here on the first 150 sentences of the NUCLE-typed
    # official gold (Um detection edits and two annotators included), against
    # `gecscope annotate --retype`; both write M2 text, compared byte for byte
    from gecscope.cli.main import main

    blocks = (conll14 / "official-2014.combined.m2").read_text(encoding="utf-8").split("\n\n")
    gold = tmp_path / "gold150.m2"
    gold.write_text("\n\n".join(blocks[:150]) + "\n\n", encoding="utf-8")
    theirs, ours = tmp_path / "errant.m2", tmp_path / "gecscope.m2"
    assert main(["errant", "m2", *flags, str(gold), "-out", str(theirs)]) == 0
    ours_flags = {"-auto": [], "-gold": ["--gold"], "-no_min": ["--no-min"],
                  "-old_cats": ["--old-cats"]}
    argv = ["annotate", "--retype", str(gold), "--output", str(ours), "-q"]
    for f in flags:
        argv += ours_flags[f]
    assert main(argv) == 0
    assert ours.read_bytes() == theirs.read_bytes()
