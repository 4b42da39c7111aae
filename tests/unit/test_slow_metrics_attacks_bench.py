"""benchmarks/slow_metrics_attacks.py (the slow metrics' CPU on the attack audit's systems):
its inputs tampered with, through its command line and its Python function.

Usage errors exit 64, missing shared data 69, a bad attack output 65 naming the file, an
unwritable JSON 73 before any scoring; a tiny real run writes the figures and the digest.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gecscope.errors import FormatError

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))
try:
    import slow_metrics_attacks as bench
finally:  # the benchmarks' folder (put first by the script too) off the path of later tests
    while str(BENCH) in sys.path:
        sys.path.remove(str(BENCH))


@pytest.fixture(scope="module")
def sources(shared_data: Path) -> list[str]:
    path = shared_data / "conll14" / "official-2014.combined.m2"
    out = [line[2:] for line in path.read_text(encoding="utf-8").splitlines()
           if line.startswith("S ")]
    assert len(out) == 1312
    return out


def _attack_dir(tmp_path: Path, text: str | bytes) -> Path:
    d = tmp_path / "attacks"
    d.mkdir()
    path = d / "conll14-some.txt"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return d


@pytest.mark.parametrize("argv, message", [
    (["--sentences", "-1"], "--sentences must be 0 (all) or positive"),
    (["--test-sets", "gjg15,wmt"], "expected gjg15 and/or seeda"),
    (["--test-sets", ","], "expected gjg15 and/or seeda"),
    (["--no-such-flag"], "unrecognized arguments"),
])
def test_usage_errors_exit_64(argv: list[str], message: str,
                              capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        bench.main(argv)
    assert exc.value.code == 64
    assert message in capsys.readouterr().err


def test_usage_error_through_the_script() -> None:
    done = subprocess.run([sys.executable, str(BENCH / "slow_metrics_attacks.py"),
                           "--sentences", "-3"], check=False, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 64
    assert "--sentences must be 0 (all) or positive, not -3" in done.stderr


def test_missing_shared_data_exits_69(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--data", str(tmp_path / "nowhere")]) == 69
    assert "nowhere/conll14" in capsys.readouterr().err


def test_unknown_metric_and_unwritable_json_fail_before_scoring(
        shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--data", str(shared_data), "--metrics", "usim,no-such-metric"]) == 64
    assert "no-such-metric" in capsys.readouterr().err
    out = tmp_path / "missing" / "figures.json"
    assert bench.main(["--data", str(shared_data), "--metrics", "ptm2",
                       "--json", str(out)]) == 73
    assert str(out) in capsys.readouterr().err


@pytest.mark.parametrize("content, message", [
    ("", "file is empty, expected at least one sentence"),
    ("truncated", "has 100 lines, expected 1312 lines"),
    (b"He went .\n\xff\xfe broken\n", r"some\.txt:2: byte 0xff is not valid UTF-8"),
])
def test_bad_attack_outputs_are_format_errors(content: str | bytes, message: str,
                                              shared_data: Path, sources: list[str],
                                              tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Empty, truncated (100 of the 1,312 lines) and corrupt (not UTF-8) attack files: a
    FormatError naming the file from the function, exit 65 with the file named from main."""
    text = "\n".join(sources[:100]) + "\n" if content == "truncated" else content
    d = _attack_dir(tmp_path, text)
    with pytest.raises(FormatError, match=message) as exc:
        bench.audit_systems(shared_data, "seeda", d, 0)
    assert "conll14-some.txt" in str(exc.value)
    assert bench.main(["--data", str(shared_data), "--test-sets", "seeda", "--metrics",
                       "ptm2", "--attack-dir", str(d)]) == 65
    assert "conll14-some.txt" in capsys.readouterr().err


def test_wrong_attack_directories(shared_data: Path, tmp_path: Path) -> None:
    """A directory that is not there, and one without conll14-*.txt files."""
    with pytest.raises(FormatError, match="attack directory not found"):
        bench.audit_systems(shared_data, "seeda", tmp_path / "absent", 0)
    other = tmp_path / "other"
    other.mkdir()
    (other / "bea19-dev-some.txt").write_text("x\n", encoding="utf-8")
    with pytest.raises(FormatError, match="no attack output matches"):
        bench.audit_systems(shared_data, "seeda", other, 0)


@pytest.mark.slow
def test_a_tiny_run_writes_its_figures(shared_data: Path, sources: list[str],
                                       tmp_path: Path) -> None:
    """The source copied as a published attack output, SEEDA's first 3 rows, PT-M2: every
    audit system scored (12 base systems, INPUT, 8 built-in attacks and the file) and the
    figures written."""
    d = _attack_dir(tmp_path, "\n".join(sources) + "\n")
    out = tmp_path / "figures.json"
    assert bench.main(["--data", str(shared_data), "--test-sets", "seeda", "--metrics",
                       "ptm2", "--sentences", "3", "--attack-dir", str(d),
                       "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text(encoding="utf-8"))
    assert (row["test_set"], row["metric"], row["systems"], row["sentences"]) == \
        ("seeda", "ptm2", 22, 3)
    assert len(row["digest"]) == 64 and row["cpu"] > 0
