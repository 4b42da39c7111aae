"""``gecscope correct`` end to end: through real Apertium, and through a local HTTP service."""

from __future__ import annotations

import json
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from gecscope.cli.main import main

APERTIUM_PIVOTS = ("spa", "epo")


def _apertium_or_skip() -> None:
    if shutil.which("apertium") is None:
        pytest.skip("apertium is not installed (apt-get install apertium apertium-eng-spa "
                    "apertium-eo-en)")
    from gecscope.rtt.translator import ApertiumTranslator

    missing = set(APERTIUM_PIVOTS) - set(ApertiumTranslator().available_pivots())
    if missing:
        pytest.skip(f"apertium pairs for {sorted(missing)} are not installed")


@pytest.mark.slow
def test_correct_through_apertium(tmp_path, capsys):
    _apertium_or_skip()
    pytest.importorskip("pocketsphinx")
    inp = tmp_path / "in.txt"
    inp.write_text("He go to school yesterday .\n\nShe have two cat .\n", encoding="utf-8")
    out_dir = tmp_path / "out"
    code = main(["correct", "--input", str(inp), "--pivots", ",".join(APERTIUM_PIVOTS),
                 "--method", "all", "--cache-dir", str(tmp_path / "cache"),
                 "--output-dir", str(out_dir), "--lattice-dir", str(tmp_path / "dot")])
    assert code == 0
    files = sorted(p.name for p in out_dir.iterdir())
    assert files == ["baseline_lm.txt", "greedy.txt", "lm_composition.txt", "lm_reranked.txt",
                     "one_best.txt", "product.txt"]
    got = {p.stem: p.read_text(encoding="utf-8").splitlines() for p in out_dir.iterdir()}
    # apertium 3.8.3, apertium-eng-spa 0.8.1, apertium-eo-en 1.0.2 (Debian 12):
    #   spa: "It goes to pupil yesterday."  epo: "He goes to school yesterday."
    #   spa: "Has two cat."                 epo: "She has two cat."
    # Greedy meets a tie after "He"/"She" (original "go"/"have" 1, "goes"/"has" 1) and keeps
    # the original; the longest path collects both votes for "goes"/"has".
    assert got["greedy"] == ["He go to school yesterday .", "", "She have two cat ."]
    for m in ("one_best", "lm_composition", "baseline_lm"):
        assert got[m] == ["He goes to school yesterday .", "", "She has two cat ."], m
    assert (tmp_path / "dot" / "sentence-00001.dot").read_text().startswith("digraph")
    # second run: single method to stdout, served from the cache
    capsys.readouterr()
    assert main(["correct", "--input", str(inp), "--pivots", ",".join(APERTIUM_PIVOTS),
                 "--cache-dir", str(tmp_path / "cache"), "--detokenize",
                 "--method", "1-best"]) == 0
    assert capsys.readouterr().out.splitlines() == ["He goes to school yesterday.", "",
                                                    "She has two cat."]
    # no --method: product (P), the best of the six on JFLEG dev (docs/rtt.md)
    assert main(["correct", "--input", str(inp), "--pivots", ",".join(APERTIUM_PIVOTS),
                 "--cache-dir", str(tmp_path / "cache")]) == 0
    assert capsys.readouterr().out.splitlines() == got["product"]


class _Echo(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        fix = (lambda s: s.replace("informations", "information")) \
            if payload["target"] == "en" else (lambda s: s)
        body = json.dumps({"translatedText": [fix(q) for q in payload["q"]]}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_correct_through_http_service(tmp_path, capsys):
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        inp = tmp_path / "in.txt"
        inp.write_text("I need some informations .\nAll is well .\n", encoding="utf-8")
        url = f"http://127.0.0.1:{srv.server_address[1]}"
        code = main(["correct", "--input", str(inp), "--backend", f"http:{url}",
                     "--pivots", "es,fr", "--method", "greedy,one_best", "--no-cache",
                     "--no-synonyms"])
        assert code == 0
        out = capsys.readouterr().out.splitlines()
        assert out == ["sentence\tmethod\tcorrection",
                       "1\tgreedy\tI need some information .",
                       "1\tone_best\tI need some information .",
                       "2\tgreedy\tAll is well .",
                       "2\tone_best\tAll is well ."]
    finally:
        srv.shutdown()
        srv.server_close()


def test_correct_bad_options(tmp_path, capsys):
    inp = tmp_path / "in.txt"
    inp.write_text("x\n", encoding="utf-8")
    assert main(["correct", "--input", str(inp), "--backend", "nope"]) == 64
    assert "unknown translation backend" in capsys.readouterr().err
    assert main(["correct", "--input", str(tmp_path / "missing.txt")]) == 65
    # an unknown method is refused before the input is read or a translator is asked
    assert main(["correct", "--input", str(tmp_path / "missing.txt"), "--method", "G,zz"]) == 64
    assert "unknown correction method 'zz'" in capsys.readouterr().err


def test_default_method_needs_the_lm_and_says_what_needs_none(tmp_path, capsys, monkeypatch):
    """Without pocketsphinx the default method (product) stops with exit 69, the install
    command and the methods that need no language model."""
    import sys

    monkeypatch.setitem(sys.modules, "pocketsphinx", None)  # as if it were not installed
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        inp = tmp_path / "in.txt"
        inp.write_text("All is well .\n", encoding="utf-8")
        base = ["correct", "--input", str(inp), "--backend",
                f"http:http://127.0.0.1:{srv.server_address[1]}", "--pivots", "es",
                "--no-cache", "--no-synonyms"]
        assert main(base) == 69
        err = capsys.readouterr().err
        assert "pip install 'gecscope[rtt]'" in err and "--method greedy" in err
        assert main([*base, "--method", "greedy"]) == 0
        assert capsys.readouterr().out == "All is well .\n"
    finally:
        srv.shutdown()
        srv.server_close()


def test_correct_reads_stdin_as_lines_split_on_newlines_only(monkeypatch, capsys):
    # stdin used to be split on form feed, U+2028 and U+0085 too (3 lines in, 6 out), and
    # invalid UTF-8 there ended in a traceback
    import io
    import sys

    from gecscope.formats import base

    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{srv.server_address[1]}"
        text = "All is well .\fStill one line .\nA\u2028B .\nLast\u0085one .\n"
        for data, want in ((text.encode(), 0), (b"caf\xe9 .\n", 65)):
            base._STREAMS.clear()
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
            code = main(["correct", "--input", "-", "--backend", f"http:{url}", "--pivots",
                         "es", "--method", "greedy", "--no-cache", "--no-synonyms"])
            captured = capsys.readouterr()
            assert code == want, captured.err
            if want == 0:
                rows = captured.out.rstrip("\n").split("\n")
                assert len(rows) == 3  # three input lines, three corrections
            else:
                assert "is not valid UTF-8" in captured.err
    finally:
        srv.shutdown()
        srv.server_close()
        base._STREAMS.clear()
