"""The ``llm:`` translation backend of ``gecscope correct`` against a real chat-completions
server on 127.0.0.1 (``tests/loopback.py``), through the Python API and the command line.

The server is a toy translator, deterministic and checkable by hand: into a pivot it writes
the pivot's tag and every word reversed; back into English it reverses the words again and
fixes "he go"/"she like" (every pivot), while the Chinese pivot also turns "home" into
"house". So a round trip corrects the agreement errors, the Chinese quirk is outvoted in the
lattice, and the back translation can only be right if the pivot text really went through.
Then the server is made to fail in every way a real one can, and the caches are tampered with.
"""

from __future__ import annotations

import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from loopback import JSONHandler, serving

from gecscope.cli.main import main
from gecscope.errors import ConfigError, OutputError
from gecscope.llm_client import CACHE_FILE
from gecscope.rtt.correct import DEFAULT_METHOD, CorrectorConfig, RoundTripCorrector
from gecscope.rtt.llm_translator import (
    PAPER_PIVOTS,
    LLMTranslationError,
    LLMTranslator,
    clean_answer,
)
from gecscope.rtt.translator import (
    CachedTranslator,
    RoundTripCache,
    TranslationError,
    make_translator,
)

TAGS = {"Spanish": "[es]", "French": "[fr]", "Chinese": "[zh]", "Arabic": "[ar]",
        "Italian": "[it]", "German": "[de]", "Swedish": "[sv]", "Russian": "[ru]"}
FIXES = (("He go ", "He goes "), ("he go ", "he goes "), ("She like ", "She likes "),
         ("she like ", "she likes "))
PROMPT = re.compile(r"from (\S+) into (\S+?)\. ")
RTT_FILE = "rtt-round-trips.sqlite"


def toy_translate(text: str, source: str, target: str) -> str:
    """The toy server's translation of ``text``."""
    if source == "English":
        return f"{TAGS[target]} " + " ".join(w[::-1] for w in text.split())
    tag, _, rest = text.partition(" ")
    assert tag == TAGS[source], f"{text!r} is not {source} of the toy server"
    out = " ".join(w[::-1] for w in rest.split()) + " "
    for bad, good in FIXES:
        out = out.replace(bad, good)
    if source == "Chinese":
        out = out.replace("home", "house")
    return out.strip()


class ToyServer(JSONHandler):
    """``/v1/chat/completions``; ``mode`` makes it misbehave; ``log`` holds (source, target,
    text) of every request."""

    mode: ClassVar[str] = "ok"
    log: ClassVar[list[tuple[str, str, str]]] = []
    bodies: ClassVar[list[dict[str, Any]]] = []
    auth: ClassVar[list[str | None]] = []

    def do_POST(self) -> None:
        body = self.read_json()
        type(self).bodies.append(body)
        type(self).auth.append(self.headers.get("Authorization"))
        system, user = body["messages"][0]["content"], body["messages"][1]["content"]
        m = PROMPT.search(system)
        assert m and self.path == "/v1/chat/completions", (self.path, system)
        source, target = m.groups()
        type(self).log.append((source, target, user))
        mode = type(self).mode
        content = toy_translate(user, source, target)
        if mode == "500":
            self.send_json(500, {"error": "the model crashed"})
            return
        if mode == "notjson":
            data = b'{"choices": [{"message": '
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        if mode == "slow":
            time.sleep(3)  # the client has given up: nothing to answer
            return
        choice = {"index": 0, "message": {"role": "assistant", "content": content}}
        if mode == "empty":
            choice["message"]["content"] = "  \n"
        elif mode == "refusal":
            choice["message"]["content"] = "I'm sorry, but I cannot translate this text."
        elif mode == "refusal_field":
            choice["message"] = {"role": "assistant", "content": None,
                                 "refusal": "I can't help with that."}
        elif mode == "lines":
            choice["message"]["content"] = content + "\n\n(Literal translation.)"
        elif mode == "long":
            choice["message"]["content"] = content + " " + "note " * 80
        elif mode == "think":
            choice["message"]["content"] = f"<think>\nThe user wants it.\n</think>\n\"{content}\""
        choices = {"two_choices": [choice, {**choice, "index": 1}], "no_choices": []}.get(
            mode, [choice])
        self.send_json(200, {"object": "chat.completion", "model": body["model"],
                             "choices": choices})


@pytest.fixture()
def toy() -> Iterator[tuple[str, type[ToyServer]]]:
    """A fresh toy server: its API base URL and its handler class (mode, log)."""
    handler = type("Toy", (ToyServer,), {"mode": "ok", "log": [], "bodies": [],
                                      "auth": []})
    with serving(handler) as url:
        yield url, handler


def closed_port_url() -> str:
    """The API URL of a port on 127.0.0.1 that nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


SENTS = ["He go home.", "", "she like it .", "He go home."]


# -- Python API ------------------------------------------------------------------------------
def test_round_trip_two_requests_per_sentence_through_the_pivot(toy, tmp_path) -> None:
    url, server = toy
    tr = make_translator(f"llm:{url}", model="toy-mt", cache=False)
    assert isinstance(tr, LLMTranslator)
    out = tr.round_trip(SENTS, "es")
    assert out == ["He goes home.", "", "she likes it .", "He goes home."]
    # one request per distinct non-empty sentence and direction; the back translation was
    # asked for the pivot text the forward one produced
    assert server.log == [("English", "Spanish", "He go home."),
                          ("English", "Spanish", "she like it ."),
                          ("Spanish", "English", "[es] eH og .emoh"),
                          ("Spanish", "English", "[es] ehs ekil ti .")]
    body = server.bodies[0]
    assert (body["model"], body["temperature"], body["n"], body["stream"]) == (
        "toy-mt", 0, 1, False)
    assert tr.check_pivot("es") == tr.check_pivot("spa") == "spa"
    assert tr.default_pivots == PAPER_PIVOTS
    with pytest.raises(ConfigError, match="unknown pivot language 'klingon'"):
        tr.round_trip(["x"], "klingon")
    # requests in flight at once: the same answers, in the same places, asked once each
    par = LLMTranslator(url, "toy-mt", cache=False, concurrency=3)
    assert par.round_trip(SENTS * 3, "es") == out * 3
    assert len(server.log) == 8


def test_corrector_merges_llm_round_trips_in_the_lattice(toy, tmp_path) -> None:
    url, server = toy
    tr = CachedTranslator(LLMTranslator(url, "toy-mt", cache_dir=tmp_path),
                          RoundTripCache(tmp_path))
    corr = RoundTripCorrector(tr, None, CorrectorConfig(pivots=("spa", "fra", "zho"),
                                                        methods=("greedy", "one_best")))
    res = corr.correct(["He go home .", "She like it ."])
    assert res[0].round_trips == {"spa": ("He", "goes", "home", "."),
                                  "fra": ("He", "goes", "home", "."),
                                  "zho": ("He", "goes", "house", ".")}
    # the Chinese "house" is in the lattice, outvoted 2 to 1 (plus the original's vote)
    assert "house" in {n.word for n in res[0].lattice.nodes}
    for r, want in zip(res, (("He", "goes", "home", "."), ("She", "likes", "it", "."))):
        assert r.corrections == {"greedy": want, "one_best": want}
    assert len(server.log) == 2 * 2 * 3  # 2 sentences x 2 directions x 3 pivots


def test_the_python_api_default_method_is_product(toy, tmp_path) -> None:
    pytest.importorskip("pocketsphinx")
    url, _ = toy
    assert CorrectorConfig().methods == (DEFAULT_METHOD,) == ("product",)
    corr = RoundTripCorrector(LLMTranslator(url, "toy-mt", cache=False),
                              config=CorrectorConfig(pivots=("spa", "fra", "zho")))
    assert corr.lm is not None  # loaded for the default method
    (res,) = corr.correct(["He go home ."])
    assert res.corrections == {"product": ("He", "goes", "home", ".")}


def test_a_second_run_is_served_from_the_caches(toy, tmp_path) -> None:
    url, server = toy

    def run(round_trip_cache: bool) -> list[str]:
        tr = LLMTranslator(url, "toy-mt", cache_dir=tmp_path)
        if round_trip_cache:
            return CachedTranslator(tr, RoundTripCache(tmp_path)).round_trip(SENTS, "fr")
        return tr.round_trip(SENTS, "fr")

    want = ["He goes home.", "", "she likes it .", "He goes home."]
    assert run(True) == want
    assert len(server.log) == 4
    assert run(True) == want  # round-trip cache
    assert run(False) == want  # answer cache alone
    assert len(server.log) == 4
    # another model, or no answer cache, asks again
    assert LLMTranslator(url, "toy-mt-2", cache_dir=tmp_path).round_trip(SENTS, "fr") == want
    assert LLMTranslator(url, "toy-mt", cache=False).round_trip(SENTS, "fr") == want
    assert len(server.log) == 12
    # the cache key names the endpoint, the model and the prompt, never a key
    names = {r[0] for r in sqlite3.connect(tmp_path / RTT_FILE).execute(
        "SELECT backend FROM round_trip")}
    assert len(names) == 1
    (name,) = names
    assert name.startswith(f"llm:{url}/chat/completions:model=toy-mt:prompt=")


@pytest.mark.parametrize("mode, expected, requests", [
    ("500", r"HTTP 500.*the model crashed.*after 2 attempt", 2),
    ("notjson", r"the answer is not JSON", 1),
    ("empty", r"no usable answer in 2 attempt\(s\): the answer is empty", 2),
    ("refusal", r"reads like a refusal.*last answer was \"I'm sorry", 2),
    ("refusal_field", r"the model refused: \"I can't help with that", 2),
    ("lines", r"the answer has 2 lines for one sentence", 2),
    ("long", r"characters, more than the 93 a translation", 2),
    ("no_choices", r"no choices\[0\]\.message", 2),
    ("two_choices", r"answered 2 choices to a request for one", 1),
])
def test_a_misbehaving_server_stops_the_run_with_a_clear_error(toy, tmp_path, mode, expected,
                                                               requests) -> None:
    url, server = toy
    server.mode = mode
    tr = CachedTranslator(LLMTranslator(url, "toy-mt", cache_dir=tmp_path, max_retries=1),
                          RoundTripCache(tmp_path))
    with pytest.raises(LLMTranslationError, match=expected) as info:
        tr.round_trip(["He go home."], "es")
    assert isinstance(info.value, TranslationError) and info.value.exit_code == 69
    assert "toy-mt" in str(info.value)
    if requests == 2 and mode != "500":  # an unusable answer: the sentence is named
        assert "translation of 'He go home.'" in str(info.value)
    assert len(server.log) == requests
    # nothing was stored: once the server behaves, the right answer comes
    assert len(RoundTripCache(tmp_path)) == 0
    server.mode = "ok"
    assert tr.round_trip(["He go home."], "es") == ["He goes home."]


def test_reasoning_blocks_and_wrapping_quotes_are_removed(toy) -> None:
    url, server = toy
    server.mode = "think"
    assert LLMTranslator(url, "toy-mt", cache=False).round_trip(["He go home."], "es") == [
        "He goes home."]
    assert server.log[1] == ("Spanish", "English", "[es] eH og .emoh")


def test_answer_checks_compare_with_the_original() -> None:
    # a sentence that itself says "cannot translate" may be translated so
    assert clean_answer("I cannot translate this word.", "I can not translate this word .") \
        == "I cannot translate this word."
    assert clean_answer("\u201cEl va.\u201d", "He go.") == "El va."
    assert clean_answer('"He said so."', '"He say so."') == '"He said so."'
    assert clean_answer("Spanish: Él va.", "He go.", "Spanish") == "Él va."
    assert clean_answer("English: it is.", "English: it are.", "English") == "English: it is."


def test_each_answer_is_checked_against_its_own_original(toy) -> None:
    # two sentences whose pivot texts are the same: the back translation of the first is
    # checked against the first's original (it used to be checked against the last one's)
    url, _ = toy
    tr = LLMTranslator(url, "toy-mt", cache=False)
    pivot = ["[es] I tonnac etalsnart siht .", "[es] I tonnac etalsnart siht ."]
    meta = "I cannot translate this ."
    assert tr._translate(pivot, "spa", "en", [meta, meta]) == [meta, meta]
    with pytest.raises(LLMTranslationError, match="refusal or a comment"):
        tr._translate(pivot, "spa", "en", ["He go home .", meta])


def test_server_down_and_time_out(toy) -> None:
    with pytest.raises(LLMTranslationError, match="cannot connect.*start the OpenAI-compatible "
                       "server or fix the --backend llm:URL option"):
        LLMTranslator(closed_port_url(), "toy-mt", cache=False, max_retries=0).round_trip(
            ["He go home."], "es")
    url, server = toy
    server.mode = "slow"
    with pytest.raises(LLMTranslationError, match="no answer within the time limit|no "
                       "complete answer within"):
        LLMTranslator(url, "toy-mt", cache=False, timeout=0.5, max_retries=0).round_trip(
            ["He go home."], "es")


def test_bad_options_are_config_errors(toy) -> None:
    url, _ = toy
    for kwargs, expected in (({}, "needs a model name"),
                             ({"model": ""}, "needs a model name"),
                             ({"model": "m", "timeout": 0}, "timeout must be > 0"),
                             ({"model": "m", "concurrency": 0}, "concurrency must be >= 1"),
                             ({"model": "m", "max_retries": -1}, "max_retries must be >= 0"),
                             ({"model": "m", "api_key_env": "sk-123"}, "not the key itself")):
        with pytest.raises(ConfigError, match=expected):
            make_translator(f"llm:{url}", cache=False, **kwargs)
    with pytest.raises(ConfigError, match="must be an http:// or https:// URL"):
        make_translator("llm:ftp://127.0.0.1/v1", model="m", cache=False)
    with pytest.raises(ConfigError, match="needs the URL"):
        make_translator("llm:", model="m")
    with pytest.raises(ConfigError, match="only the llm backend"):
        make_translator("apertium", model="m")


def test_tampered_cache_rows_are_never_used(toy, tmp_path) -> None:
    url, server = toy

    def run() -> list[str]:
        return CachedTranslator(LLMTranslator(url, "toy-mt", cache_dir=tmp_path),
                                RoundTripCache(tmp_path)).round_trip(SENTS, "es")

    want = ["He goes home.", "", "she likes it .", "He goes home."]
    assert run() == want and len(server.log) == 4
    with sqlite3.connect(tmp_path / RTT_FILE) as db:
        db.execute("UPDATE round_trip SET output = 'He went away.'")
    with pytest.warns(RuntimeWarning, match="round-trip cache .* do not match their digest"):
        assert run() == want
    assert len(server.log) == 4  # rebuilt from the verified answers
    with sqlite3.connect(tmp_path / RTT_FILE) as db:
        db.execute("UPDATE round_trip SET output = 'He went away.'")
    with sqlite3.connect(tmp_path / CACHE_FILE) as db:
        db.execute("UPDATE answer SET answer = 'He went away.'")
    with pytest.warns(RuntimeWarning) as caught:
        assert run() == want
    messages = " | ".join(str(w.message) for w in caught)
    assert "round-trip cache" in messages and "LLM answer cache" in messages
    assert len(server.log) == 8  # every answer asked again
    assert run() == want and len(server.log) == 8  # and the rows are good again


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_damaged_cache_files_are_set_aside_or_refused(toy, tmp_path, damage) -> None:
    url, server = toy

    def run() -> list[str]:
        return CachedTranslator(LLMTranslator(url, "toy-mt", cache_dir=tmp_path),
                                RoundTripCache(tmp_path)).round_trip(SENTS, "es")

    want = ["He goes home.", "", "she likes it .", "He goes home."]
    assert run() == want
    for name in (RTT_FILE, CACHE_FILE):
        path = tmp_path / name
        data = path.read_bytes()
        path.write_bytes(b"not a database " * 300 if damage == "garbage"
                         else data[:len(data) // 2])
    try:
        with pytest.warns(RuntimeWarning, match="was unreadable; moved it"):
            got = run()
    except OutputError as exc:  # SQLite found the damage only when reading: refused
        assert "is damaged" in str(exc) and "only a cache" in str(exc)
        assert exc.exit_code == 73
    else:
        assert got == want
        assert len(server.log) == 8  # translated again, nothing wrong reused
        assert len(list(tmp_path.glob("*.corrupt-*"))) == 2


# -- command line ----------------------------------------------------------------------------
def _input(tmp_path: Path) -> Path:
    inp = tmp_path / "in.txt"
    inp.write_text("He go home .\n\nShe like it .\n", encoding="utf-8")
    return inp


def test_cli_round_trips_through_the_lattice_and_the_cache(toy, tmp_path, capsys) -> None:
    url, server = toy
    args = ["correct", "-i", str(_input(tmp_path)), "--backend", f"llm:{url}", "--llm-model",
            "toy-mt", "--pivots", "es,fr,zh", "--method", "greedy,one_best",
            "--cache-dir", str(tmp_path / "cache"), "--show"]
    assert main(args) == 0
    out = capsys.readouterr()
    assert out.out.splitlines() == ["sentence\tmethod\tcorrection",
                                    "1\tgreedy\tHe goes home .", "1\tone_best\tHe goes home .",
                                    "2\tgreedy\t", "2\tone_best\t",
                                    "3\tgreedy\tShe likes it .", "3\tone_best\tShe likes it ."]
    assert "## zho: He goes house ." in out.err  # the quirk, shown and outvoted
    assert len(server.log) == 2 * 2 * 3
    assert main(args) == 0
    assert len(server.log) == 12  # second run: no request
    assert capsys.readouterr().out == out.out
    # both cache files overwritten with garbage: set aside with a warning, translated again
    for name in (CACHE_FILE, RTT_FILE):
        (tmp_path / "cache" / name).write_bytes(b"garbage " * 500)
    assert main(args) == 0
    again = capsys.readouterr()
    assert again.out == out.out
    assert again.err.count("was unreadable; moved it to") == 2
    assert len(server.log) == 24


def test_cli_default_method_and_pivots(toy, tmp_path, capsys) -> None:
    pytest.importorskip("pocketsphinx")
    url, server = toy
    assert main(["correct", "-i", str(_input(tmp_path)), "--backend", f"llm:{url}",
                 "--llm-model", "toy-mt", "--no-cache"]) == 0
    assert capsys.readouterr().out.splitlines() == ["He goes home .", "", "She likes it ."]
    # the paper's eight pivots, two requests per sentence and pivot
    assert len(server.log) == 2 * 2 * 8
    assert {t for s, t, _ in server.log if s == "English"} == {
        "Arabic", "Chinese", "Spanish", "French", "Italian", "German", "Swedish", "Russian"}


@pytest.mark.parametrize("mode, code, expected", [
    ("500", 69, "HTTP 500"), ("notjson", 69, "not JSON"), ("empty", 69, "answer is empty"),
    ("two_choices", 69, "answered 2 choices"), ("refusal", 69, "reads like a refusal"),
])
def test_cli_server_failures_exit_69_with_the_reason(toy, tmp_path, capsys, mode, code,
                                                     expected) -> None:
    url, server = toy
    server.mode = mode
    out = tmp_path / "out.txt"
    assert main(["correct", "-i", str(_input(tmp_path)), "--backend", f"llm:{url}",
                 "--llm-model", "toy-mt", "--pivots", "es", "--method", "greedy",
                 "--llm-retries", "1", "--cache-dir", str(tmp_path / "cache"),
                 "--output", str(out)]) == code
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err
    assert not out.exists()  # no partial or silent output


def test_cli_server_down_and_bad_options(toy, tmp_path, capsys) -> None:
    inp = str(_input(tmp_path))
    base = ["correct", "-i", inp, "--pivots", "es", "--method", "greedy", "--no-cache"]
    assert main([*base, "--backend", f"llm:{closed_port_url()}", "--llm-model", "m",
                 "--llm-retries", "0"]) == 69
    err = capsys.readouterr().err
    assert "cannot connect" in err and "--backend llm:URL" in err
    url, server = toy
    for extra, expected in (([], "needs a model name"),
                            (["--llm-model", "m", "--llm-timeout", "0"], "timeout must be > 0"),
                            (["--llm-model", "m", "--pivots", "tlh"], "unknown pivot language")):
        assert main([*base, "--backend", f"llm:{url}", *extra]) == 64
        assert expected in capsys.readouterr().err
    assert main([*base, "--llm-model", "m"]) == 64
    assert "--llm-model: only for --backend llm:URL" in capsys.readouterr().err
    assert server.log == []


def test_cli_installed_command_sends_the_key_and_never_stores_it(toy, tmp_path) -> None:
    url, server = toy
    cache = tmp_path / "cache"
    proc = subprocess.run(
        [sys.executable, "-m", "gecscope", "correct", "-i", str(_input(tmp_path)), "--backend",
         f"llm:{url}", "--llm-model", "toy-mt", "--llm-api-key-env", "RTT_TEST_KEY",
         "--pivots", "es,fr", "--method", "greedy", "--cache-dir", str(cache), "--detokenize"],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "RTT_TEST_KEY": "sk-rtt-123"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["He goes home.", "", "She likes it."]
    for f in (CACHE_FILE, RTT_FILE):
        assert b"sk-rtt" not in (cache / f).read_bytes()
    assert "sk-rtt" not in proc.stdout + proc.stderr
    assert json.dumps(server.bodies).count("sk-rtt") == 0
    assert server.auth == ["Bearer sk-rtt-123"] * 8
