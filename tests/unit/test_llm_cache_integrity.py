"""The LLM answer cache (and the round-trip cache, which is opened the same way) under
tampering, locking and unwritable places (issue 31 items 5 and 6).

Real SQLite files, a real second process holding ``BEGIN EXCLUSIVE``, a real
chat-completions server on 127.0.0.1, real unwritable places: ``/proc`` (nobody, root
included, can create a file there), and for a read-only directory holding an existing cache
a child process run with ``unshare -U`` when the tests run as root (in a user namespace
without a mapping, root's files are checked against their owner bits like anyone's).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from loopback import JSONHandler, serving

from gecscope import EvalData, Hypothesis
from gecscope._sqlite_cache import row_digest as row_digest_of
from gecscope.cli.main import main
from gecscope.errors import CacheBusyError, OutputError
from gecscope.llm_client import CACHE_FILE, AnswerCache, row_digest
from gecscope.metrics.llm_judge import LLMSentMetric
from gecscope.rtt.translator import ApertiumTranslator, CachedTranslator, RoundTripCache

SOURCES = ["He go home .", "She like it .", "I saw cat yesterday ."]
HYPS = ["He goes home .", "She likes it .", "I saw a cat yesterday ."]
ROOT = Path(__file__).resolve().parents[2]


def score(target: str) -> int:
    """The server's score of a target: 1-5 from its SHA-256 (varied, repeatable)."""
    return 1 + int(hashlib.sha256(target.encode("utf-8")).hexdigest(), 16) % 5


EXPECTED = [float(score(h)) for h in HYPS]


class _Handler(JSONHandler):
    requests: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        body = self.read_json()
        prompt = body["messages"][-1]["content"]
        target = prompt.split("\n# targets\n", 1)[1].split("\n\n# output format\n", 1)[0]
        type(self).requests.append(target)
        content = json.dumps({"target_score1": score(target)})
        self.send_json(200, {"object": "chat.completion", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}}]})


@pytest.fixture()
def server() -> Iterator[tuple[str, list[str]]]:
    """The API base URL of a fresh server and the targets it was asked about."""
    handler = type("Handler", (_Handler,), {"requests": []})
    with serving(handler) as url:
        yield url, handler.requests


def _scores(url: str, model: str = "judge-1") -> list[float]:
    data, hyp = EvalData.from_texts(SOURCES), Hypothesis.from_texts(HYPS, "sys")
    return LLMSentMetric(base_url=url, model=model).evaluate(data, hyp).sentence_scores


def _rows(path: Path) -> dict[str, tuple[str, str, str | None]]:
    with sqlite3.connect(path) as db:
        return {k: (r, a, d) for k, r, a, d in db.execute(
            "SELECT key, request, answer, digest FROM answer")}


# --------------------------------------------------------------------------- item 5


def test_a_changed_cache_row_is_asked_again_not_used(server: tuple[str, list[str]],
                                                     cache_dir: Path) -> None:
    url, asked = server
    assert _scores(url) == EXPECTED and len(asked) == 3
    path = cache_dir / CACHE_FILE
    rows = _rows(path)
    key_of = {json.loads(r)["body"]["messages"][1]["content"].split("\n# targets\n")[1]
              .split("\n")[0]: k for k, (r, _, _) in rows.items()}
    k0, k1, k2 = (key_of[h] for h in HYPS)
    forged = json.dumps({"target_score1": score(HYPS[0]) % 5 + 1})  # another valid score
    with sqlite3.connect(path) as db:
        # sentence 1: the answer changed; sentence 2: holds sentence 3's whole row (its
        # request, answer and their valid digest) under its own key
        db.execute("UPDATE answer SET answer=? WHERE key=?", (forged, k0))
        db.execute("UPDATE answer SET request=?, answer=?, digest=? WHERE key=?",
                   (*rows[k2], k1))
    with pytest.warns(RuntimeWarning, match=r"2 row\(s\) of the LLM answer cache .* do not "
                                            r"match their request or their digest"):
        again = _scores(url)
    assert again == EXPECTED  # not the forged score
    assert asked[3:] == HYPS[:2]  # the two changed rows were asked again ...
    assert _scores(url) == EXPECTED and len(asked) == 5  # ... and replaced by verified rows
    # a row whose request column was changed (same key), or that has no digest (a cache
    # written before rows carried one) is not used either
    with sqlite3.connect(path) as db:
        db.execute("UPDATE answer SET request=replace(request, 'judge-1', 'judge-9') "
                   "WHERE key=?", (k2,))
        db.execute("UPDATE answer SET digest=NULL WHERE key=?", (k0,))
    with pytest.warns(RuntimeWarning, match=r"2 row\(s\)"):
        assert _scores(url) == EXPECTED
    assert sorted(asked[5:]) == sorted([HYPS[0], HYPS[2]])


def test_a_cache_written_before_digests_is_upgraded(server: tuple[str, list[str]],
                                                    cache_dir: Path) -> None:
    """The old table (no digest column): its rows are not trusted, asked again once."""
    url, asked = server
    cache_dir.mkdir()
    with sqlite3.connect(cache_dir / CACHE_FILE) as db:
        db.execute("CREATE TABLE answer (key TEXT PRIMARY KEY, request TEXT NOT NULL, "
                   "answer TEXT NOT NULL)")
    assert _scores(url) == EXPECTED and len(asked) == 3
    with sqlite3.connect(cache_dir / CACHE_FILE) as db:
        db.execute("DELETE FROM answer WHERE rowid = (SELECT MIN(rowid) FROM answer)")
        key, request, answer, digest = db.execute("SELECT * FROM answer LIMIT 1").fetchone()
    assert digest == row_digest(key, request, answer)
    assert _scores(url) == EXPECTED and len(asked) == 4  # only the deleted row asked again


# --------------------------------------------------------------------------- item 6: locks

HOLDER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
db.execute(sys.argv[3])
print("locked", flush=True)
sys.stdin.readline() if sys.argv[2] == "wait" else time.sleep(float(sys.argv[2]))
db.execute("COMMIT")
"""
HELD = "INSERT INTO answer VALUES ('held', 'r', 'a', NULL)"


def _hold(path: Path, release: str, write: str = HELD) -> subprocess.Popen[str]:
    """A second process holding an exclusive lock on ``path`` with ``write`` in progress:
    until :func:`_release` (``release="wait"``) or for ``release`` seconds."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), release, write],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def _release(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.write("\n")
    proc.stdin.flush()
    assert proc.wait(20) == 0


def test_a_locked_cache_is_waited_on_then_an_error_never_moved(cache_dir: Path) -> None:
    AnswerCache(cache_dir).close()
    path = cache_dir / CACHE_FILE
    holder = _hold(path, "wait")
    try:
        start = time.monotonic()
        with pytest.raises(CacheBusyError, match=r"llm-answers.sqlite: the LLM answer cache is "
                                                 r"locked by another process \(waited 0.5 s\)"):
            AnswerCache(cache_dir, timeout=0.5)
        assert time.monotonic() - start >= 0.45
        assert CacheBusyError.exit_code == 75
    finally:
        _release(holder)
    # the file was not "repaired": nothing set aside, the other process's write is there
    assert sorted(p.name for p in cache_dir.iterdir()) == [CACHE_FILE]
    assert "held" in _rows(path)


def test_a_briefly_locked_cache_is_waited_for(cache_dir: Path) -> None:
    cache = AnswerCache(cache_dir)
    holder = _hold(cache.path, "1.0")
    start = time.monotonic()
    cache.put("k", "request", "answer")  # waits for the other writer, then writes
    assert time.monotonic() - start >= 0.5
    assert holder.wait(20) == 0
    assert cache.get("k", "request") == "answer" and set(_rows(cache.path)) == {"k", "held"}
    cache.close()


def test_a_lock_taken_after_opening_is_busy_for_reads_and_writes(cache_dir: Path) -> None:
    cache = AnswerCache(cache_dir, timeout=0.3)
    holder = _hold(cache.path, "wait")
    try:
        with pytest.raises(CacheBusyError):
            cache.get("k", "request")
        with pytest.raises(CacheBusyError):
            cache.put("k", "request", "answer")
    finally:
        _release(holder)
    cache.put("k", "request", "answer")
    assert cache.get("k", "request") == "answer"
    cache.close()


def test_a_locked_round_trip_cache_is_busy_not_moved(cache_dir: Path) -> None:
    RoundTripCache(cache_dir).close()
    digest = row_digest_of(RoundTripCache.ROW_FORMAT, "b", "p", "s", "o")
    holder = _hold(cache_dir / "rtt-round-trips.sqlite", "wait",
                   f"INSERT INTO round_trip VALUES ('b', 'p', 's', 'o', '{digest}')")
    try:
        with pytest.raises(CacheBusyError, match="round-trip cache is locked"):
            RoundTripCache(cache_dir, timeout=0.3)
    finally:
        _release(holder)
    assert RoundTripCache(cache_dir).get_many("b", "p", ["s"]) == {"s": "o"}
    assert sorted(p.name for p in cache_dir.iterdir()) == ["rtt-round-trips.sqlite"]


# --------------------------------------------------------------------------- item 6: places


def test_a_directory_at_the_cache_path_is_an_error_not_moved(cache_dir: Path) -> None:
    for cls, name in ((AnswerCache, CACHE_FILE), (RoundTripCache, "rtt-round-trips.sqlite")):
        inside = cache_dir / name / "keep.txt"
        inside.parent.mkdir(parents=True)
        inside.write_text("mine", encoding="utf-8")
        with pytest.raises(OutputError, match=f"{name}: is not a regular file") as info:
            cls(cache_dir)
        assert info.value.exit_code == 73
        assert inside.read_text(encoding="utf-8") == "mine"
        assert [p.name for p in cache_dir.iterdir() if "corrupt" in p.name] == []


def test_a_damaged_cache_file_is_still_set_aside(cache_dir: Path) -> None:
    cache_dir.mkdir()
    (cache_dir / CACHE_FILE).write_bytes(b"this is not a database" * 100)
    with pytest.warns(RuntimeWarning, match="was unreadable.*moved it to"):
        cache = AnswerCache(cache_dir)
    cache.put("k", "r", "a")
    assert cache.get("k", "r") == "a"
    cache.close()
    assert len(list(cache_dir.glob(f"{CACHE_FILE}.corrupt-*"))) == 1


def test_an_unwritable_cache_directory_fails_before_any_request(
        server: tuple[str, list[str]], cache_dir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """/proc: no file can be created there, whoever runs the test."""
    url, asked = server
    (tmp_path / "src.txt").write_text("\n".join(SOURCES) + "\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("\n".join(HYPS) + "\n", encoding="utf-8")
    code = main(["evaluate", "-m", "llm_sent", "-s", str(tmp_path / "src.txt"), "--hyp",
                 str(tmp_path / "hyp.txt"), "-o", f"base_url={url}", "-o", "model=m", "-o",
                 "cache_dir=/proc", "-q", "--jobs", "1"])
    err = capsys.readouterr().err
    assert code == 73
    assert f"/proc/{CACHE_FILE}" in err and "cache=false" in err and "Traceback" not in err
    assert asked == []
    with pytest.raises(OutputError, match="rtt-round-trips.sqlite: cannot use the round-trip"):
        RoundTripCache("/proc")


def _unprivileged() -> list[str]:
    """The command prefix under which file permissions apply to this test's child process,
    or skip: nothing as a normal user; ``unshare -U`` as root."""
    if os.geteuid() != 0:
        return []
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-U", "true"], capture_output=True,
                                         check=False).returncode != 0:
        pytest.skip("running as root, and `unshare -U` (a user namespace, in which root's "
                    "files obey their permission bits) is not available here")
    return [unshare, "-U"]


def test_a_read_only_cache_fails_before_the_paid_request(
        server: tuple[str, list[str]], cache_dir: Path, tmp_path: Path) -> None:
    """An existing cache in a read-only directory: the run that needs a new answer stops
    with exit 73 before asking (it used to ask, then fail to store the paid answer)."""
    url, asked = server
    prefix = _unprivileged()
    assert _scores(url) == EXPECTED and len(asked) == 3
    (tmp_path / "src.txt").write_text("\n".join(SOURCES) + "\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("\n".join(HYPS) + "\n", encoding="utf-8")
    os.chmod(cache_dir / CACHE_FILE, 0o444)
    os.chmod(cache_dir, 0o555)
    env = {**os.environ, "GECSCOPE_CACHE": str(cache_dir),
           "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    try:
        proc = subprocess.run(
            [*prefix, sys.executable, "-m", "gecscope", "evaluate", "-m", "llm_sent", "-s",
             str(tmp_path / "src.txt"), "--hyp", str(tmp_path / "hyp.txt"), "-o",
             f"base_url={url}", "-o", "model=judge-2", "-q", "--jobs", "1"],
            capture_output=True, text=True, env=env, timeout=120, check=False)
    finally:
        os.chmod(cache_dir, 0o755)
        os.chmod(cache_dir / CACHE_FILE, 0o644)
    assert proc.returncode == 73, proc.stderr
    assert str(cache_dir / CACHE_FILE) in proc.stderr and "Traceback" not in proc.stderr
    assert len(asked) == 3  # no request was made


# --------------------------------------------------------------------------- round-trip rows
RTT_FILE = "rtt-round-trips.sqlite"
RTT_SENTS = ["He go to school every days .", "She have two cat and one dog .",
             "I am agree with your opinion ."]


def _apertium() -> ApertiumTranslator:
    """The real offline backend (Apertium, English-Spanish), or skip."""
    if shutil.which("apertium") is None:
        pytest.skip("apertium is not installed (apt-get install apertium apertium-eng-spa)")
    translator = ApertiumTranslator()
    if "spa" not in translator.available_pivots():
        pytest.skip("apertium-eng-spa is not installed")
    return translator


def _round_trips(translator: ApertiumTranslator, cache_dir: Path
                 ) -> tuple[list[str], int, int]:
    """The round trips of RTT_SENTS through a freshly opened cache: outputs, hits, misses."""
    cached = CachedTranslator(translator, RoundTripCache(cache_dir))
    got = cached.round_trip(RTT_SENTS, "spa")
    cached.cache.close()
    return got, cached.hits, cached.misses


def test_a_changed_round_trip_row_is_translated_again_not_used(cache_dir: Path) -> None:
    translator = _apertium()
    truth = translator.round_trip(RTT_SENTS, "spa")  # no cache
    assert len(set(truth)) == 3
    assert _round_trips(translator, cache_dir) == (truth, 0, 3)
    with sqlite3.connect(cache_dir / RTT_FILE) as db:
        # sentence 1: its output changed; sentence 2: holds sentence 3's output and digest
        db.execute("UPDATE round_trip SET output='He goes to school every day .' "
                   "WHERE sentence=?", (RTT_SENTS[0],))
        db.execute("UPDATE round_trip SET (output, digest) = (SELECT output, digest FROM "
                   "round_trip WHERE sentence=?) WHERE sentence=?", RTT_SENTS[2:0:-1])
    with pytest.warns(RuntimeWarning, match=r"2 row\(s\) of the round-trip cache \S*"
                                            f"{RTT_FILE} do not match their digest"):
        # not the changed outputs: the two changed rows were translated again ...
        assert _round_trips(translator, cache_dir) == (truth, 1, 2)
    assert _round_trips(translator, cache_dir) == (truth, 3, 0)  # ... and replaced
    # a whole row moved to another sentence (its output and digest kept) is not used either
    with sqlite3.connect(cache_dir / RTT_FILE) as db:
        db.execute("DELETE FROM round_trip WHERE sentence=?", (RTT_SENTS[1],))
        db.execute("UPDATE round_trip SET sentence=? WHERE sentence=?", RTT_SENTS[1::-1])
    with pytest.warns(RuntimeWarning, match=r"1 row\(s\) of the round-trip cache"):
        assert _round_trips(translator, cache_dir) == (truth, 1, 2)


def test_a_round_trip_cache_written_before_digests_is_upgraded(cache_dir: Path) -> None:
    """The old table (no digest column): its rows are not trusted, translated again once."""
    translator = _apertium()
    truth = translator.round_trip(RTT_SENTS, "spa")
    cache_dir.mkdir()
    with sqlite3.connect(cache_dir / RTT_FILE) as db:
        db.execute("CREATE TABLE round_trip (backend TEXT, pivot TEXT, sentence TEXT, output "
                   "TEXT, PRIMARY KEY (backend, pivot, sentence))")
        db.execute("INSERT INTO round_trip VALUES ('apertium', 'spa', ?, 'an old output')",
                   (RTT_SENTS[0],))
    with pytest.warns(RuntimeWarning, match=r"1 row\(s\) of the round-trip cache"):
        assert _round_trips(translator, cache_dir) == (truth, 0, 3)
    with sqlite3.connect(cache_dir / RTT_FILE) as db:
        rows = db.execute("SELECT backend, pivot, sentence, output, digest FROM round_trip"
                          ).fetchall()
    assert sorted(r[2] for r in rows) == sorted(RTT_SENTS)
    assert all(r[4] == row_digest_of(RoundTripCache.ROW_FORMAT, *r[:4]) for r in rows)
    assert _round_trips(translator, cache_dir) == (truth, 3, 0)
