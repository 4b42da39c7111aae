"""``annotate --resume`` checks the shards an interrupted run kept before reusing them (issue #31
items 1, 3 and 9): a part cut short, cut mid-block, saved under another shard's name, edited,
not UTF-8 or without a check record is annotated again (with a note naming it and saying why),
never copied into the output; the same on Ray, sharded or not. The parts are real ones, written
by a real run that failed on its last shard, then tampered with."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gecscope.cli.main import main

DEMO = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"

pytestmark = pytest.mark.requires_spacy


def _corpus(folder: Path) -> tuple[Path, Path, Path]:
    """24 sentence pairs (the demo's twice), two annotators: source, careful, rewriter."""
    src, cor1, cor2 = folder / "src.txt", folder / "cor1.txt", folder / "cor2.txt"
    careful = (DEMO / "careful.txt").read_bytes()
    rewriter = (DEMO / "rewriter.txt").read_bytes()
    src.write_bytes((DEMO / "source.txt").read_bytes() * 2)
    cor1.write_bytes(careful + rewriter)
    cor2.write_bytes(rewriter + careful)
    return src, cor1, cor2


def _split(part: Path) -> tuple[bytes, bytes]:
    """A part file's first line when it is a check record (else ``b""``), and its M2 text."""
    data = part.read_bytes()
    if data.startswith(b"#"):
        head, _, body = data.partition(b"\n")
        return head + b"\n", body
    return b"", data


def _cut_blocks(part: Path) -> None:
    """Keep the first of its two M2 blocks (a shard cut to 1 of 2 sentences)."""
    head, body = _split(part)
    blocks = body.split(b"\n\n")
    assert len(blocks) == 3 and blocks[2] == b""  # two sentences
    part.write_bytes(head + blocks[0] + b"\n\n")


def _cut_mid_block(part: Path) -> None:
    """Cut in the middle of the second sentence's first A line."""
    head, body = _split(part)
    second = body.index(b"\n\nS ") + 2
    a_line = body.index(b"\nA ", second) + 1
    part.write_bytes(head + body[:a_line + 9])


def _edit_a_line(part: Path) -> None:
    """Another correction in the first A line (the M2 still well formed)."""
    head, body = _split(part)
    lines = body.split(b"\n")
    k = next(i for i, line in enumerate(lines) if line.startswith(b"A ") and b"|||noop|||" not in line)
    fields = lines[k].split(b"|||")
    fields[2] = b"tampered"
    lines[k] = b"|||".join(fields)
    part.write_bytes(head + b"\n".join(lines))


def _not_utf8(part: Path) -> None:
    """One byte of the first S line replaced by one that is not UTF-8."""
    head, body = _split(part)
    part.write_bytes(head + body[:4] + b"\xff" + body[5:])


def _no_record(part: Path) -> None:
    """The M2 text alone, without a check record (as written before the check existed)."""
    part.write_bytes(_split(part)[1])


def _interrupted_run(folder: Path, jobs: str) -> tuple[list[str], Path, Path]:
    """A run with ``--shard-size 2`` that failed on its last shard (line 24 not UTF-8),
    leaving 11 parts in ``run.m2.parts``, then the input fixed: the command line to rerun,
    the parts and the M2 of the whole corpus annotated in one process."""
    src, cor1, cor2 = _corpus(folder)
    whole = folder / "whole.m2"
    assert main(["annotate", "-s", str(src), "-c", str(cor1), str(cor2), "--output", str(whole),
                 "--jobs", "1", "-q"]) == 0
    good = cor1.read_bytes()
    cor1.write_bytes(good.rstrip(b"\n").rpartition(b"\n")[0] + b"\ncaf\xe9\n")  # line 24
    out = folder / "run.m2"
    argv = ["annotate", "-s", str(src), "-c", str(cor1), str(cor2), "--output", str(out),
            "--shard-size", "2", "--resume", "--jobs", jobs]
    assert main(argv) == 65
    assert not out.exists()
    parts = folder / "run.m2.parts"
    kept = [p.name[:12] for p in sorted(parts.glob("shard-*.m2"))]
    first_eleven = [f"shard-{i:06d}" for i in range(11)]
    assert kept == first_eleven
    cor1.write_bytes(good)
    return argv, parts, whole


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], Path, Path]:
    """:func:`_interrupted_run` once, in one process; every test works on a copy of its parts."""
    pytest.importorskip("errant")
    folder = tmp_path_factory.mktemp("interrupted")
    argv, parts, whole = _interrupted_run(folder, "1")
    pristine = folder / "pristine"
    shutil.copytree(parts, pristine)
    return argv, pristine, whole


DIGEST = "its M2 text does not match its digest (cut short or edited)"
TAMPER: dict[str, tuple[Callable[[list[Path]], None], str]] = {
    "cut to 1 of 2 blocks": (lambda parts: _cut_blocks(parts[0]), DIGEST),
    "cut mid-block": (lambda parts: _cut_mid_block(parts[0]), DIGEST),
    "shard 1's part under shard 0's name": (
        lambda parts: parts[0].write_bytes(parts[1].read_bytes()),
        "it holds the M2 of shard 1 (lines 3-4), not of shard 0 (lines 1-2)"),
    "an edited A line": (lambda parts: _edit_a_line(parts[0]), DIGEST),
    "not UTF-8": (lambda parts: _not_utf8(parts[0]), DIGEST),
    "no check record": (lambda parts: _no_record(parts[0]),
                        "it has no valid check record (damaged, or written by an older gecscope)"),
}


@pytest.mark.parametrize("case", list(TAMPER))
def test_a_damaged_part_is_annotated_again(case: str, kept: tuple[list[str], Path, Path],
                                           capsys) -> None:
    """Shard 0's part damaged: annotated again with a note naming it; the 10 others reused."""
    argv, pristine, whole = kept
    parts = Path(f"{argv[argv.index('--output') + 1]}.parts")
    if parts.exists():
        shutil.rmtree(parts)
    shutil.copytree(pristine, parts)
    files = sorted(parts.glob("shard-*.m2"))
    before = files[0].read_bytes()
    tamper, why = TAMPER[case]
    tamper(files)
    assert files[0].read_bytes() != before
    capsys.readouterr()
    assert main(argv) == 0
    err = capsys.readouterr().err
    out = Path(argv[argv.index("--output") + 1])
    assert out.read_bytes() == whole.read_bytes()
    assert "24 sentences" in err and "10 shard(s) reused" in err
    assert f"gecscope: note: {files[0]}: discarded, {why}; annotating shard 0 (lines 1-2) " \
        "again" in err
    assert err.count("discarded") == 1
    assert not parts.exists()
    out.unlink()


def test_parts_of_other_errant_or_spacy_versions_are_annotated_again(
        kept: tuple[list[str], Path, Path], capsys, monkeypatch) -> None:
    """Parts written before an upgrade of ERRANT, spaCy or the spaCy model are not reused: the
    output would mix two annotators' edits. (The installed versions cannot change inside a
    test, so the version lookup reports an upgraded spaCy.)"""
    from gecscope._versions import package_versions
    from gecscope.execution import resume

    argv, pristine, whole = kept
    parts = Path(f"{argv[argv.index('--output') + 1]}.parts")
    if parts.exists():
        shutil.rmtree(parts)
    shutil.copytree(pristine, parts)

    def upgraded(*names: str) -> dict[str, str]:
        return {k: v + ".1" if k == "spacy" else v for k, v in package_versions(*names).items()}

    monkeypatch.setattr(resume, "package_versions", upgraded)
    capsys.readouterr()
    assert main(argv) == 0
    err = capsys.readouterr().err
    out = Path(argv[argv.index("--output") + 1])
    assert out.read_bytes() == whole.read_bytes()
    assert "24 sentences" in err and "reused" not in err  # unchanged versions: 11 reused
    assert not parts.exists()
    out.unlink()


@pytest.mark.slow
def test_damaged_parts_through_the_workers(tmp_path: Path, capsys, monkeypatch) -> None:
    """Every kind of damage at once, with --jobs 2 (the workers' pipeline, jobs of 2 pairs):
    each damaged part annotated again, the intact ones reused."""
    pytest.importorskip("errant")
    from gecscope.execution import chunks as chunks_module

    monkeypatch.setattr("gecscope.execution.executors.PARALLEL_MIN", 1)
    monkeypatch.setattr(chunks_module, "CHUNK", 2)
    argv, folder, whole = _interrupted_run(tmp_path, "2")
    parts = sorted(folder.glob("shard-*.m2"))
    capsys.readouterr()
    _cut_blocks(parts[0])
    _cut_mid_block(parts[1])
    parts[2].write_bytes(parts[3].read_bytes())  # shard 3's text under shard 2's name
    _edit_a_line(parts[4])
    _not_utf8(parts[5])
    _no_record(parts[6])
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert Path(argv[argv.index("--output") + 1]).read_bytes() == whole.read_bytes()
    assert "24 sentences" in err and "5 shard(s) reused" in err  # shards 3 and 7-10
    expected = {0: DIGEST, 1: DIGEST, 4: DIGEST, 5: DIGEST,
                2: "it holds the M2 of shard 3 (lines 7-8), not of shard 2 (lines 5-6)",
                6: "it has no valid check record"}
    assert err.count("discarded") == len(expected)
    for k, why in expected.items():
        assert f"gecscope: note: {parts[k]}: discarded, {why}" in err, k
    assert not folder.exists()


def test_resume_folder_that_is_a_file_is_refused(tmp_path: Path, capsys) -> None:
    pytest.importorskip("errant")
    out = tmp_path / "run.m2"
    blocker = tmp_path / "run.m2.parts"
    blocker.write_text("not a folder\n", encoding="utf-8")
    assert main(["annotate", "-s", str(DEMO / "source.txt"), "-c", str(DEMO / "careful.txt"),
                 "--output", str(out), "--jobs", "1", "--resume"]) == 73
    err = capsys.readouterr().err
    assert f"{blocker}: exists but is not a folder" in err and "Traceback" not in err
    assert not out.exists() and blocker.read_text(encoding="utf-8") == "not a folder\n"


# ------------------------------------------------------------------------------------ Ray


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    ray = pytest.importorskip("ray", reason="the Ray backend needs the ray extra")
    pytest.importorskip("errant")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def _shard_files(folder: Path, size: int) -> None:
    """The demo's source and two corrections cut into shard files of ``size`` lines."""
    for name in ("source", "careful", "rewriter"):
        lines = (DEMO / f"{name}.txt").read_text(encoding="utf-8").splitlines(keepends=True)
        for k in range(0, len(lines), size):
            (folder / f"{name}-{k // size:02d}.txt").write_text("".join(lines[k:k + size]),
                                                                encoding="utf-8")


@pytest.mark.slow
def test_sharded_ray_resume_checks_input_and_m2(cluster: None, tmp_path: Path, capsys) -> None:
    """Shard 00's input changes after its M2 was written, shard 01's M2 is cut short, shard 02
    is untouched, shard 03 failed (a line that is not UTF-8) and is then fixed: --resume keeps
    only shard 02 and the M2 files are those of the corpus as it is now."""
    _shard_files(tmp_path, 3)
    good = (tmp_path / "careful-03.txt").read_bytes()
    (tmp_path / "careful-03.txt").write_bytes(b"\xe9" + good[1:])  # line 1: Latin-1
    out = tmp_path / "out"
    argv = ["annotate", "--backend", "ray", "--jobs", "2", "--sharded", "--resume",
            "-s", str(tmp_path / "source-*.txt"), "-c", str(tmp_path / "careful-*.txt"),
            str(tmp_path / "rewriter-*.txt"), "--output", f"file://{out}"]  # a URI, as Ray Data
    assert main(argv) == 65
    assert sorted(p.name for p in out.iterdir()) == [f"source-0{k}.m2" for k in range(3)]
    first = (out / "source-00.m2").read_bytes()
    capsys.readouterr()

    (tmp_path / "careful-03.txt").write_bytes(good)
    changed = (tmp_path / "careful-00.txt").read_bytes().replace(b"two apples", b"three apples")
    assert changed != (tmp_path / "careful-00.txt").read_bytes()
    (tmp_path / "careful-00.txt").write_bytes(changed)  # same line count, other text
    _cut_blocks_of(out / "source-01.m2")
    assert main(argv) == 0
    err = capsys.readouterr().err

    # the corpus as it is now, annotated in one process, cut at the same lines
    src, cor1, cor2 = tmp_path / "src.txt", tmp_path / "cor1.txt", tmp_path / "cor2.txt"
    for name, whole in (("source", src), ("careful", cor1), ("rewriter", cor2)):
        whole.write_bytes(b"".join(p.read_bytes() for p in sorted(tmp_path.glob(f"{name}-*"))))
    expected = tmp_path / "whole.m2"
    assert main(["annotate", "-s", str(src), "-c", str(cor1), str(cor2), "--output",
                 str(expected), "--jobs", "1", "-q"]) == 0
    assert b"".join(p.read_bytes() for p in sorted(out.iterdir())) == expected.read_bytes()
    assert (out / "source-00.m2").read_bytes() != first  # the changed input matters
    assert "12 sentences" in err and "1 shard(s) kept from an earlier run" in err
    assert (f"gecscope: note: file://{out / 'source-00.m2'}: discarded, it was annotated from other "
            "input lines or options") in err
    assert (f"gecscope: note: file://{out / 'source-01.m2'}: discarded, its M2 text does not match "
            "its digest") in err
    assert err.count("discarded") == 2
    parts = tmp_path / "out.parts"  # the check records, beside the output folder
    assert sorted(p.name for p in parts.iterdir()) == [f"source-0{k}.m2.check" for k in range(4)]

    # the folder of check records taken by a file: refused, naming it
    parts_file = tmp_path / "other.parts"
    parts_file.write_text("x\n", encoding="utf-8")
    argv[argv.index(f"file://{out}")] = f"file://{tmp_path / 'other'}"
    assert main(argv) == 73
    err = capsys.readouterr().err
    assert f"{parts_file}: exists but is not a folder" in err and "Traceback" not in err


def _cut_blocks_of(m2: Path) -> None:
    """Keep the first block of a shard's M2 file (it has no check record inside)."""
    blocks = m2.read_bytes().split(b"\n\n")
    assert len(blocks) == 4 and blocks[3] == b""  # three sentences
    m2.write_bytes(blocks[0] + b"\n\n")
