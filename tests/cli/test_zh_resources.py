"""ChERRANT's resource files for ``--lang zh`` on raw text: missing ones exit 69 with a message
naming the files, where to get them and how to point at them; a bad ``--zh-data`` value exits
64; empty, corrupt or truncated files exit 65 naming the file (and line). Through the command
line (``evaluate``, ``annotate``) and the Python API (``language("zh")``, ``CherrantAnnotator``,
``gecscope.evaluate``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscope.alignment.cherrant import (
    DATA_ENV,
    RESOURCE_FILES,
    CherrantAnnotator,
    MissingResourceError,
    load_resources,
)
from gecscope.cli.main import main
from gecscope.errors import ConfigError, FormatError

pytest.importorskip("pypinyin", reason="the zh extra (pypinyin, opencc) is not installed")
pytest.importorskip("opencc", reason="the zh extra (pypinyin, opencc) is not installed")

SOURCE = "他去了学校\n她喜欢猫\n"
TARGET = "他去了学校。\n她喜欢猫。\n"
#: a two-class Cilin (GBK) and a one-line confusion set: enough for the sentences above
CILIN = "Aa01A01= 人 士 人物\nBa01A02= 学校 学堂\n"
CONFUSION = "一 倚 社\n"


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATA_ENV, raising=False)


@pytest.fixture()
def texts(tmp_path: Path) -> dict[str, str]:
    out = {}
    for name, text in (("src", SOURCE), ("ref", TARGET), ("hyp", TARGET)):
        p = tmp_path / f"{name}.txt"
        p.write_text(text, encoding="utf-8")
        out[name] = str(p)
    return out


def resources(folder: Path, cilin: bytes | None = CILIN.encode("gbk"),
              confusion: bytes | None = CONFUSION.encode("utf-8")) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if cilin is not None:
        (folder / "cilin.txt").write_bytes(cilin)
    if confusion is not None:
        (folder / "confusion_dict.txt").write_bytes(confusion)
    return folder


def evaluate(capsys: pytest.CaptureFixture[str], texts: dict[str, str],
             *extra: str) -> tuple[int, str, str]:
    rc = main(["evaluate", "--lang", "zh", "-s", texts["src"], "-r", texts["ref"],
               "--hyp", texts["hyp"], "-q", *extra])
    out, err = capsys.readouterr()
    return rc, out, err


def says_where_to_get_them(message: str) -> None:
    for what in (*RESOURCE_FILES, "HillZhang1999/MuCGEC", "scorers/ChERRANT", "--zh-data",
                 DATA_ENV):
        assert what in message, (what, message)


# --------------------------------------------------------------------------- missing: 69

def test_no_folder_given_exits_69_and_says_what_where_and_how(
        capsys: pytest.CaptureFixture[str], texts: dict[str, str]) -> None:
    rc, out, err = evaluate(capsys, texts)
    assert rc == 69 and out == ""
    says_where_to_get_them(err)
    assert "does not ship or download" in err


def test_folder_without_the_files_exits_69_naming_the_missing_one(
        capsys: pytest.CaptureFixture[str], texts: dict[str, str], tmp_path: Path) -> None:
    empty = resources(tmp_path / "empty", cilin=None, confusion=None)
    rc, _, err = evaluate(capsys, texts, "--zh-data", str(empty))
    assert rc == 69 and "no cilin.txt or confusion_dict.txt here" in err
    says_where_to_get_them(err)
    half = resources(tmp_path / "half", confusion=None)
    rc, _, err = evaluate(capsys, texts, "--zh-data", str(half))
    assert rc == 69 and "no confusion_dict.txt here" in err and "no cilin.txt" not in err


def test_env_folder_without_the_files_exits_69(capsys: pytest.CaptureFixture[str],
                                               texts: dict[str, str], tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_ENV, str(resources(tmp_path / "d", cilin=None)))
    rc, _, err = evaluate(capsys, texts)
    assert rc == 69 and "no cilin.txt here" in err
    monkeypatch.setenv(DATA_ENV, "")  # set but empty: as if unset
    rc, _, err = evaluate(capsys, texts)
    assert rc == 69 and "does not ship or download" in err


def test_annotate_exits_69_too(capsys: pytest.CaptureFixture[str], texts: dict[str, str],
                               tmp_path: Path) -> None:
    out = tmp_path / "out.m2"
    rc = main(["annotate", "--lang", "zh", "-s", texts["src"], "-c", texts["ref"],
               "--output", str(out), "-q"])
    err = capsys.readouterr().err
    assert rc == 69 and not out.exists()
    says_where_to_get_them(err)


def test_python_api_raises_missing_resource_error(texts: dict[str, str],
                                                  tmp_path: Path) -> None:
    import gecscope
    from gecscope.data import EvalData, Hypothesis
    from gecscope.languages import language

    with pytest.raises(MissingResourceError) as caught:
        language("zh").annotator()
    assert caught.value.exit_code == 69 and isinstance(caught.value, ConfigError)
    says_where_to_get_them(str(caught.value))
    with pytest.raises(MissingResourceError, match="no confusion_dict.txt here"):
        CherrantAnnotator(resources(tmp_path / "d", confusion=None))
    lang = language("zh")
    data = EvalData((texts["ref"],), texts["src"], lang)
    with pytest.raises(MissingResourceError, match="cilin.txt and confusion_dict.txt"):
        gecscope.evaluate("errant", data, Hypothesis.from_file(texts["hyp"], "h", lang=lang))


# --------------------------------------------------------------------------- bad value: 64

@pytest.mark.parametrize("kind", ["absent", "file", "blank"])
def test_a_bad_zh_data_value_exits_64(kind: str, capsys: pytest.CaptureFixture[str],
                                      texts: dict[str, str], tmp_path: Path) -> None:
    value = {"absent": str(tmp_path / "no-such-dir"), "file": texts["src"], "blank": " "}[kind]
    rc, _, err = evaluate(capsys, texts, "--zh-data", value)
    assert rc == 64
    expected = {"absent": "no such folder", "file": "not a folder", "blank": "is empty"}[kind]
    assert expected in err and "--zh-data" in err
    with pytest.raises(ConfigError, match=expected) as caught:
        CherrantAnnotator(value)
    assert not isinstance(caught.value, MissingResourceError)


def test_env_naming_no_folder_exits_64_naming_the_variable(
        capsys: pytest.CaptureFixture[str], texts: dict[str, str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "nowhere"))
    rc, _, err = evaluate(capsys, texts)
    assert rc == 64 and f"{DATA_ENV} {tmp_path / 'nowhere'}: no such folder" in err


# --------------------------------------------------------------------------- bad files: 65

@pytest.mark.parametrize(("cilin", "confusion", "where"), [
    (b"", CONFUSION.encode(), "cilin.txt: empty"),
    ("Aa01A01= 人 士".encode("utf-16"), CONFUSION.encode(), "cilin.txt: not GBK"),
    (CILIN.encode("gbk") + b"Ba01\n", CONFUSION.encode(), "cilin.txt:3: expected a Cilin"),
    (CILIN.encode("gbk"), b"", "confusion_dict.txt: empty"),
    (CILIN.encode("gbk"), "一 倚\n社\n".encode(), "confusion_dict.txt:2: expected a character"),
    (CILIN.encode("gbk"), "一 倚".encode("gbk"), "confusion_dict.txt: not UTF-8"),
], ids=["cilin-empty", "cilin-not-gbk", "cilin-cut-line", "confusion-empty",
        "confusion-cut-line", "confusion-not-utf8"])
def test_empty_or_corrupt_resource_files_exit_65_naming_the_file(
        cilin: bytes, confusion: bytes, where: str, capsys: pytest.CaptureFixture[str],
        texts: dict[str, str], tmp_path: Path) -> None:
    folder = resources(tmp_path / "res", cilin, confusion)
    rc, _, err = evaluate(capsys, texts, "--zh-data", str(folder))
    assert rc == 65 and f"{folder}/{where}" in err
    with pytest.raises(FormatError, match=where.split(": ", 1)[1]):
        load_resources(folder)


@pytest.mark.parametrize("name", RESOURCE_FILES)
def test_an_unreadable_resource_exits_69_naming_it(name: str, capsys: pytest.CaptureFixture[str],
                                                   texts: dict[str, str],
                                                   tmp_path: Path) -> None:
    """A resource file that cannot be read (here a real I/O error: a link to /proc/self/mem,
    whose first page is not mapped, so reading it fails even for root) is named, with the
    system's reason, not an unwrapped OSError."""
    mem = Path("/proc/self/mem")
    try:
        mem.read_bytes()
        pytest.skip("reading /proc/self/mem does not fail here (not Linux?)")
    except OSError:
        pass
    folder = resources(tmp_path / "res")
    (folder / name).unlink()
    (folder / name).symlink_to(mem)
    rc, _, err = evaluate(capsys, texts, "--zh-data", str(folder))
    assert rc == 69 and f"{folder}/{name}: cannot be read (Input/output error)" in err
    with pytest.raises(MissingResourceError, match="cannot be read"):
        load_resources(folder)


def test_truncated_real_cilin_exits_65(capsys: pytest.CaptureFixture[str], shared_data: Path,
                                       texts: dict[str, str], tmp_path: Path) -> None:
    real = shared_data / "mucgec" / "cherrant-data"
    data = (real / "cilin.txt").read_bytes()
    cut = data[:data.index(b"\n", len(data) // 2) + 4]  # four bytes into a line's class code
    folder = resources(tmp_path / "cut", cut, (real / "confusion_dict.txt").read_bytes())
    rc, _, err = evaluate(capsys, texts, "--zh-data", str(folder))
    line = cut.count(b"\n") + 1
    assert rc == 65 and f"{folder}/cilin.txt:{line}: expected a Cilin" in err


# --------------------------------------------------------------------------- present: 0

def test_given_resources_score(capsys: pytest.CaptureFixture[str], texts: dict[str, str],
                               tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = resources(tmp_path / "ok")
    rc, out, err = evaluate(capsys, texts, "--zh-data", str(folder))
    assert rc == 0, err
    row = next(ln.split() for ln in out.splitlines() if ln.startswith("hyp "))
    assert row[1:4] == ["2", "0", "0"]  # both added full stops found, nothing else
    monkeypatch.setenv(DATA_ENV, str(folder))
    rc, again, _ = evaluate(capsys, texts)
    assert rc == 0 and again == out


def test_the_real_resources_load(shared_data: Path) -> None:
    res = load_resources(shared_data / "mucgec" / "cherrant-data")
    assert len(res.semantic) > 70_000 and len(res.confusion) > 4_900
