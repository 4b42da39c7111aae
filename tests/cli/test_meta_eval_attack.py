"""``gecscope meta-eval attack`` end to end on CoNLL-2014 (GJG15) and SEEDA, with fast metrics;
its new input, ``--attack-dir``, attacked with damaged files (exit 65, file and line named);
and ``meta-eval table --ensemble``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecscope.cli.main import main

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
