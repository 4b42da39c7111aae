"""``gecscope meta-eval attack`` end to end on CoNLL-2014 (GJG15) and SEEDA, with fast metrics;
its new input, ``--attack-dir``, attacked with damaged files (exit 65, file and line named);
a user's attack class the I-measure refuses (a refused cell, not a skipped metric); a metric
named twice; and ``meta-eval table --ensemble``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from attack_examples import REWRITE

from gecscope.cli.main import main
from gecscope.meta_eval.attacks import Attack, AttackContext, AttackOutput

pytestmark = pytest.mark.requires_data


def _gjg15(shared_data: Path) -> list[str]:
    c = shared_data / "conll14"
    return ["--gjg15", str(shared_data / "gjg15"), "--submissions", str(c / "submissions"),
            "--m2", str(c / "official-2014.combined.m2")]


def _source_lines(shared_data: Path) -> list[str]:
    text = (shared_data / "conll14" / "submissions" / "INPUT").read_text(encoding="utf-8")
    return [ln.strip() for ln in text.splitlines()]


def test_attack_json_on_gjg15_with_attack_dir(shared_data: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    # a published-style attack output: the source with "Yes ." appended to every line
    attack_dir = tmp_path / "attacks"
    attack_dir.mkdir()
    (attack_dir / "conll14-llmsent.txt").write_text(
        "\n".join(f"{ln} Yes ." for ln in _source_lines(shared_data)), encoding="utf-8")
    out_json = tmp_path / "audit.json"
    rc = main(["meta-eval", "attack", *_gjg15(shared_data), "--metrics", "m2",
               "--attacks", "copy-source,chatter-suffix", "--attack-dir", str(attack_dir),
               "--resamples", "100", "--format", "json", "--json-out", str(out_json), "-q"])
    assert rc == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(out_json.read_text(encoding="utf-8"))
    (audit,) = printed["audits"]
    assert audit["test_set"] == "gjg15" and audit["human_best"] == "AMU"
    assert [a["name"] for a in audit["attacks"]] == [
        "attack:copy-source", "attack:chatter-suffix", "attack:Attack-LLM"]
    cells = {c["attack"]: c for c in audit["cells"] if c["metric"] == "m2"}
    assert cells["attack:copy-source"]["score"] == 0.0
    # chatter appended to AMU's output: five spurious insertions a sentence cost M2 precision
    assert cells["attack:chatter-suffix"]["score"] < audit["scores"]["m2"]["AMU"]
    assert cells["attack:chatter-suffix"]["versus"]["human"]["delta"] < 0
    assert audit["ensemble_members"] == ["m2"]


def test_attack_markdown_on_seeda(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["meta-eval", "attack", "--seeda", str(shared_data / "seeda"), "--m2",
               str(shared_data / "conll14" / "official-2014.combined.m2"), "--metrics", "gleu",
               "--attacks", "copy-source,other-reference", "--resamples", "100",
               "--ensemble", "none", "-q"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "## seeda: 2 attacks vs 12 real systems" in out  # the base set (no INPUT)
    assert "human-preferred system TransGEC (EW_sent)" in out
    row = next(ln for ln in out.splitlines() if ln.startswith("| other-reference |"))
    assert row == "| other-reference | 13/13 |"  # GLEU puts a wrong sentence last
    assert "| Attack | gleu |" in out  # no ensemble column


def test_attack_on_a_folder_of_systems_needs_best(shared_data: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    c = shared_data / "conll14"
    base = ["meta-eval", "attack", "--submissions", str(c / "submissions"), "--m2",
            str(c / "official-2014.combined.m2"), "--metrics", "gleu", "--attacks",
            "chatter-prefix", "--resamples", "50", "-q"]
    assert main(base) == 64
    assert "--best" in capsys.readouterr().err
    assert main([*base, "--best", "CAMB", "--format", "json"]) == 0
    (audit,) = json.loads(capsys.readouterr().out)["audits"]
    assert audit["best_system"] == "CAMB" and audit["human_best"] is None
    assert set(audit["cells"][0]["versus"]) == {"best", "source"}


@pytest.mark.parametrize("damage, where", [
    ("truncated", r"conll14-some\.txt:\d+: has \d+ lines, expected 1312"),
    ("wrong-count", r"conll14-some\.txt:1313: has 4384 lines, more than the 1312 lines"),
    ("empty", r"conll14-some\.txt: file is empty"),
    ("utf-16", r"conll14-some\.txt:1: contains NUL bytes: not UTF-8 text \(a UTF-16 file"),
    ("latin-1", r"conll14-some\.txt:2: byte 0xe9 is not valid UTF-8"),
])
def test_attack_dir_damaged_file_exits_65(shared_data: Path, tmp_path: Path, damage: str,
                                          where: str, capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    import re

    lines = _source_lines(shared_data)
    d = tmp_path / "attacks"
    d.mkdir()
    path = d / "conll14-some.txt"
    if damage == "truncated":
        text = "\n".join(lines)
        path.write_text(text[: len(text) * 2 // 3], encoding="utf-8")
    elif damage == "wrong-count":  # the BEA-19 dev file of the same folder
        path.write_text("\n".join((lines * 4)[:4384]), encoding="utf-8")
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "utf-16":
        path.write_bytes("\n".join(lines).encode("utf-16"))
    else:
        path.write_bytes("\n".join([lines[0], "caf\u00e9", *lines[2:]]).encode("latin-1"))
    rc = main(["meta-eval", "attack", *_gjg15(shared_data), "--metrics", "m2", "--attacks",
               "none", "--attack-dir", str(d), "-q"])
    err = capsys.readouterr().err
    assert rc == 65, err
    assert re.search(where, err), err


def test_attack_usage_errors(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["meta-eval", "attack", *_gjg15(shared_data), "--metrics", "m2", "-q"]
    assert main([*args, "--attacks", "nope"]) == 64
    assert "unknown attack 'nope'" in capsys.readouterr().err
    assert main([*args, "--attacks", "none"]) == 64
    assert "no attacks" in capsys.readouterr().err
    assert main(["meta-eval", "attack", "--metrics", "m2"]) == 64
    assert "give --gjg15 DIR" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main([*args, "--resamples", "0"])
    assert exc.value.code == 64
    assert main([*args, "--alpha", "2"]) == 64
    assert main([*args, "--attack-dir", str(shared_data / "no-such-dir")]) == 65
    assert "attack directory not found" in capsys.readouterr().err


def test_table_with_an_ensemble_row(shared_data: Path, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "table.json"
    rc = main(["meta-eval", "table", *_gjg15(shared_data), "--metrics", "m2,gleu",
               "--ensemble", "m2,gleu", "--no-statistics", "--json", str(out),
               "--output", str(tmp_path / "table.md"), "-q"])
    assert rc == 0, capsys.readouterr().err
    rows = {r["label"]: r for r in json.loads(out.read_text(encoding="utf-8"))["rows"]}
    ens = rows["RankEns(m2+gleu)"]
    assert ens["kind"] == "ensemble"
    assert set(ens["correlations"]["gjg15"]) == {"EW", "TS"}
    md = (tmp_path / "table.md").read_text(encoding="utf-8")
    assert "| RankEns(m2+gleu) |" in md
    # the other rows are those of a table without the ensemble
    assert {"m2", "Sentm2", "gleu", "Sentgleu"} <= set(rows)


def test_attack_folder_with_damaged_system_exits_65(shared_data: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    c = shared_data / "conll14"
    folder = tmp_path / "systems"
    folder.mkdir()
    lines = _source_lines(shared_data)
    (folder / "INPUT").write_text("\n".join(lines), encoding="utf-8")
    (folder / "AMU").write_text("\n".join(lines[:-7]), encoding="utf-8")  # lines lost
    args = ["meta-eval", "attack", "--submissions", str(folder), "--m2",
            str(c / "official-2014.combined.m2"), "--metrics", "gleu", "--best", "AMU", "-q"]
    assert main(args) == 65
    assert "AMU: has 1305 lines but 1312 were expected" in capsys.readouterr().err
    # a source that is not the M2's
    (folder / "AMU").write_text("\n".join(lines), encoding="utf-8")
    (folder / "INPUT").write_text("\n".join(["Changed ."] + lines[1:]), encoding="utf-8")
    assert main(args) == 65
    assert "INPUT:1: line 1 differs from the M2's source sentence" in capsys.readouterr().err


@pytest.fixture(scope="module")
def rows_333(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A folder test set of real data, cheap for the I-measure: CoNLL-2014 rows 330-335 (333
    the longest) of four systems and INPUT, and the M2 of those rows; its arguments."""
    start, stop = 330, 336
    c = shared_data / "conll14"
    root = tmp_path_factory.mktemp("rows")
    blocks = [b for b in (c / "official-2014.combined.m2").read_text(
        encoding="utf-8").split("\n\n") if b.strip()]
    assert len(blocks) == 1312
    (root / "rows.m2").write_text("\n\n".join(blocks[start:stop]) + "\n\n", encoding="utf-8")
    systems = root / "rows"
    systems.mkdir()
    for name in ("AMU", "CAMB", "CUUI", "POST", "INPUT"):
        lines = (c / "submissions" / name).read_text(encoding="utf-8").splitlines()
        (systems / name).write_text("\n".join(lines[start:stop]) + "\n", encoding="utf-8")
    return ["meta-eval", "attack", "--submissions", str(systems), "--m2", str(root / "rows.m2"),
            "--best", "AMU", "--resamples", "50", "-q"]


def _audit(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main([*args, "--format", "json"]) == 0, capsys.readouterr().err
    (audit,) = json.loads(capsys.readouterr().out)["audits"]
    return audit  # type: ignore[no-any-return]


def test_attack_a_metric_refuses_is_a_refused_cell(rows_333: list[str], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    md = tmp_path / "audit.md"
    out_json = tmp_path / "audit.json"
    page = tmp_path / "audit.html"
    rc = main([*rows_333, "--metrics", "m2,imeasure", "--attacks",
               f"{REWRITE},copy-source", "--json-out", str(out_json),
               "--output", str(md), "--html", str(page)])
    assert rc == 0, capsys.readouterr().err
    (audit,) = json.loads(out_json.read_text(encoding="utf-8"))["audits"]
    assert audit["metrics"] == ["m2", "imeasure"] and audit["skipped_metrics"] == {}
    cells = {(c["metric"], c["attack"]): c for c in audit["cells"]}
    refused = cells["imeasure", "attack:rewrite-longest"]
    assert refused["refused"].startswith("ConfigError: imeasure: sentence 3 has up to ")
    assert "cannot be split into independent regions" in refused["refused"]
    assert refused["score"] is None and refused["rank"] is None and refused["versus"] == {}
    assert cells["m2", "attack:rewrite-longest"]["refused"] is None
    assert cells["RankEns", "attack:rewrite-longest"]["refused"] == (
        "member imeasure refused this attack")
    assert audit["refused"] == {
        "imeasure": {"attack:rewrite-longest": refused["refused"]},
        "RankEns": {"attack:rewrite-longest": "member imeasure refused this attack"}}
    # copy-source: every figure as in an audit without the refused attack
    alone = _audit([*rows_333, "--metrics", "m2,imeasure", "--attacks", "copy-source"], capsys)
    assert alone["refused"] == {}
    for metric in ("m2", "imeasure", "RankEns"):
        (want,) = [c for c in alone["cells"] if c["metric"] == metric]
        assert cells[metric, "attack:copy-source"] == want
    text = md.read_text(encoding="utf-8")
    assert "| rewrite-longest | " in text and "| refused[^rows-1] | refused[^rows-2] |" in text
    html_text = page.read_text(encoding="utf-8")  # the page: the same refusal, as a note
    assert html_text.startswith("<!DOCTYPE html>") and "rows: 2 attacks vs 4 real systems" in html_text
    assert html_text.count('<td class="refused">refused<sup>') == 2
    # an output pointed at an input is refused before anything runs, the input untouched
    m2 = rows_333[rows_333.index("--m2") + 1]
    before = Path(m2).read_bytes()
    rc = main([*rows_333, "--metrics", "m2", "--attacks", "copy-source", "--html", m2])
    assert rc != 0 and Path(m2).read_bytes() == before
    assert "--html" in capsys.readouterr().err
    assert f"[^rows-1]: `imeasure` refused `rewrite-longest`: {refused['refused']}" in text


def test_attack_metric_named_twice_is_scored_once(rows_333: list[str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """``--metrics m2,gleu,m2`` once weighed m2 twice in the ensemble's null, once in its delta."""
    args = [*rows_333, "--attacks", "copy-source,chatter-suffix"]
    twice = _audit([*args, "--metrics", "m2,gleu,m2"], capsys)
    once = _audit([*args, "--metrics", "m2,gleu"], capsys)
    assert twice["metrics"] == ["m2", "gleu"] and twice["ensemble_members"] == ["m2", "gleu"]
    assert twice["cells"] == once["cells"]
    named = _audit([*args, "--metrics", "m2,gleu", "--ensemble", "m2,gleu,m2"], capsys)
    assert named["ensemble_members"] == ["m2", "gleu"] and named["cells"] == once["cells"]
    assert main([*args, "--metrics", "m2,M2"]) == 64
    assert "'M2' is m2, named before: name each metric once" in capsys.readouterr().err


class DropsLast(Attack):
    """A broken user attack: its output (made by hand) has lost its last sentence."""

    name = "drops-last"

    def build(self, ctx: AttackContext) -> AttackOutput:
        from gecscope.data import Hypothesis

        return AttackOutput("attack:drops-last", self.name,
                            Hypothesis("attack:drops-last", ctx.sources[:-1]), "broken")


class ReturnsTokens(Attack):
    """A broken user attack: build() returns the tokens, not an AttackOutput."""

    name = "returns-tokens"

    def build(self, ctx: AttackContext) -> AttackOutput:
        return [list(t) for t in ctx.sources]  # type: ignore[return-value]


def test_attack_user_class_errors(rows_333: list[str],
                                  capsys: pytest.CaptureFixture[str]) -> None:
    args = [*rows_333, "--metrics", "m2"]
    assert main([*args, "--attacks", f"copy-source,{__name__}:DropsLast"]) == 65
    assert (f"attack '{__name__}:DropsLast' (attack:drops-last): has 5 sentences but 6 were "
            "expected") in capsys.readouterr().err
    assert main([*args, "--attacks", f"{__name__}:ReturnsTokens"]) == 64
    assert (f"attack '{__name__}:ReturnsTokens': build() returned list, expected an "
            "AttackOutput") in capsys.readouterr().err
    assert main([*args, "--attacks", "no_such_module_xyz:Attack"]) == 64
    assert "cannot import attack class 'no_such_module_xyz:Attack'" in capsys.readouterr().err
    assert main([*args, "--attacks", f"{__name__}:NoSuchClass"]) == 64
    assert "cannot import attack class" in capsys.readouterr().err
    assert main([*args, "--attacks", "gecscope.meta_eval.attacks:AttackContext"]) == 64
    assert "is not a subclass of gecscope.meta_eval.attacks.Attack" in capsys.readouterr().err
