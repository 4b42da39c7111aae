"""MaxMatch on the 13 CoNLL-2014 submissions: the official m2scorer 3.2 numbers.

Provenance of the golden numbers:
- F0.5 against official-2014.combined.m2, two decimals: CoNLL-2014 shared-task overview
  (Ng et al. 2014), as listed in ../shared/data/README.md; precision and recall of 11
  participants as published in the overview's results table (IITB and INPUT: only F is
  checked; IITB's P/R here, 30.77/1.39, give its published F of 5.90).
- The four-decimal P/R/F rows (combined and per-annotator files) are what the reference tool
  printed when run here: nusnlp/m2scorer at cb874a7 (HEAD, version 3.2) under Python 2.7.18,
  `m2scorer SYSTEM GOLD` for all 13 systems x {combined, 0, 1}: all 39 rows equal. The
  counts (correct, proposed, gold) are gecscope's; m2scorer prints them only per sentence with
  `-v`. docs/m2.md ("Agreement with m2scorer 3.2 (CoNLL-2014)") records the comparison;
  ``python benchmarks/m2_conll14.py`` prints gecscope's table.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.metrics.m2 import M2Metric

SYSTEMS = ("AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU",
           "UFC", "UMC")

# CoNLL-2014 overview, official scores without alternative answers: P, R, F0.5 (percent)
PUBLISHED = {
    "CAMB": (39.71, 30.10, 37.33), "CUUI": (41.78, 24.88, 36.79), "AMU": (41.62, 21.40, 35.01),
    "POST": (34.51, 21.73, 30.88), "NTHU": (35.08, 18.85, 29.92), "RAC": (33.14, 14.99, 26.68),
    "UMC": (31.27, 14.46, 25.37), "PKU": (32.21, 13.65, 25.32), "SJTU": (30.11, 5.10, 15.19),
    "UFC": (70.00, 1.72, 7.84), "IPN": (11.28, 2.85, 7.09), "IITB": (None, None, 5.90),
    "INPUT": (None, None, 0.00),
}

# (correct, proposed, gold, P, R, F0.5)
COMBINED = {
    "AMU": (509, 1223, 2378, 0.4162, 0.2140, 0.3501),
    "CAMB": (772, 1944, 2565, 0.3971, 0.3010, 0.3733),
    "CUUI": (623, 1491, 2504, 0.4178, 0.2488, 0.3679),
    "IITB": (28, 91, 2010, 0.3077, 0.0139, 0.0590),
    "INPUT": (0, 0, 1994, 1.0000, 0.0000, 0.0000),
    "IPN": (59, 523, 2067, 0.1128, 0.0285, 0.0709),
    "NTHU": (443, 1263, 2350, 0.3508, 0.1885, 0.2992),
    "PKU": (306, 950, 2242, 0.3221, 0.1365, 0.2532),
    "POST": (527, 1527, 2425, 0.3451, 0.2173, 0.3088),
    "RAC": (345, 1041, 2301, 0.3314, 0.1499, 0.2668),
    "SJTU": (106, 352, 2080, 0.3011, 0.0510, 0.1519),
    "UFC": (35, 50, 2032, 0.7000, 0.0172, 0.0784),
    "UMC": (329, 1052, 2275, 0.3127, 0.1446, 0.2537),
}
ANNOTATOR_0 = {
    "AMU": (324, 1187, 2391, 0.2730, 0.1355, 0.2269),
    "CAMB": (469, 1879, 2391, 0.2496, 0.1962, 0.2367),
    "CUUI": (373, 1432, 2391, 0.2605, 0.1560, 0.2297),
    "IITB": (21, 90, 2391, 0.2333, 0.0088, 0.0382),
    "INPUT": (0, 0, 2391, 1.0000, 0.0000, 0.0000),
    "IPN": (30, 517, 2391, 0.0580, 0.0125, 0.0336),
    "NTHU": (272, 1226, 2391, 0.2219, 0.1138, 0.1864),
    "PKU": (200, 929, 2391, 0.2153, 0.0836, 0.1637),
    "POST": (332, 1483, 2391, 0.2239, 0.1389, 0.1994),
    "RAC": (198, 1006, 2391, 0.1968, 0.0828, 0.1543),
    "SJTU": (74, 351, 2391, 0.2108, 0.0309, 0.0975),
    "UFC": (14, 50, 2391, 0.2800, 0.0059, 0.0270),
    "UMC": (210, 1029, 2391, 0.2041, 0.0878, 0.1614),
}
ANNOTATOR_1 = {
    "AMU": (428, 1206, 3317, 0.3549, 0.1290, 0.2629),
    "CAMB": (673, 1911, 3317, 0.3522, 0.2029, 0.3070),
    "CUUI": (543, 1471, 3317, 0.3691, 0.1637, 0.2951),
    "IITB": (22, 91, 3317, 0.2418, 0.0066, 0.0299),
    "INPUT": (0, 0, 3317, 1.0000, 0.0000, 0.0000),
    "IPN": (50, 520, 3317, 0.0962, 0.0151, 0.0463),
    "NTHU": (391, 1242, 3317, 0.3148, 0.1179, 0.2360),
    "PKU": (256, 932, 3317, 0.2747, 0.0772, 0.1817),
    "POST": (445, 1507, 3317, 0.2953, 0.1342, 0.2381),
    "RAC": (292, 1024, 3317, 0.2852, 0.0880, 0.1970),
    "SJTU": (86, 349, 3317, 0.2464, 0.0259, 0.0912),
    "UFC": (35, 50, 3317, 0.7000, 0.0106, 0.0498),
    "UMC": (278, 1044, 3317, 0.2663, 0.0838, 0.1855),
}


def _table(conll14: Path, gold: str) -> dict[str, tuple]:
    data = EvalData((str(conll14 / gold),))
    metric = M2Metric()
    out = {}
    for name in SYSTEMS:
        hyp = Hypothesis.from_file(conll14 / "submissions" / name, expected=len(data))
        s = metric.score(data, hyp)
        d = s.details
        out[name] = (d["correct"], d["proposed"], d["gold"], round(s.fields["P"], 4),
                     round(s.fields["R"], 4), round(s.fields["F0.5"], 4))
    return out


@pytest.mark.slow
def test_combined_matches_m2scorer(conll14: Path) -> None:
    table = _table(conll14, "official-2014.combined.m2")
    assert table == COMBINED
    published = {k: tuple(None if p is None else round(x * 100, 2) for x, p in zip(
        table[k][3:], v, strict=True)) for k, v in PUBLISHED.items()}
    assert published == PUBLISHED  # both sides rounded to two decimals


@pytest.mark.slow
@pytest.mark.parametrize(("gold", "expected"), [("official-2014.0.m2", ANNOTATOR_0),
                                                 ("official-2014.1.m2", ANNOTATOR_1)])
def test_per_annotator_files(conll14: Path, gold: str, expected: dict) -> None:
    assert _table(conll14, gold) == expected
