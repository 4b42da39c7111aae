"""The HTML report in a real browser: headless Chromium driven over the DevTools protocol.

The client below is stdlib only (a minimal WebSocket client, RFC 6455), so the test needs no
extra Python package: only Debian's ``chromium`` (``apt-get install chromium``). It skips
with the reason when no Chromium binary is found (set ``GECSCOPE_CHROMIUM`` to point at one).
"""

from __future__ import annotations

import base64
import importlib.util
import itertools
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gec_metrics_ref import skip_or_fail

from gecscope.data import EvalData, Hypothesis
from gecscope.formats.m2 import read_m2
from gecscope.reports.html import write_html_report, write_report_html
from gecscope.reports.model import build_report

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--disable-default-apps", "--mute-audio",
         "--window-size=1280,1600", "--remote-debugging-port=0"]


def _chromium() -> str | None:
    for cand in (os.environ.get("GECSCOPE_CHROMIUM"), "chromium", "chromium-browser",
                 "google-chrome", "google-chrome-stable"):
        if cand and (path := shutil.which(cand)):
            return path
    return None


def _load_toy_metrics() -> Any:
    path = Path(__file__).resolve().parents[1] / "unit" / "test_stats_metric.py"
    spec = importlib.util.spec_from_file_location("gecscope_toy_metrics", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


class WebSocket:
    """Just enough of RFC 6455 for the DevTools protocol: masked text frames out, text
    (possibly fragmented) frames in, pings answered."""

    def __init__(self, url: str, timeout: float = 30.0) -> None:
        m = re.match(r"ws://([^:/]+):(\d+)(/.*)", url)
        assert m, url
        host, port, path = m.group(1), int(m.group(2)), m.group(3)
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("DevTools closed the connection during the handshake")
            head += chunk
        status = head.split(b"\r\n", 1)[0]
        if b" 101 " not in status:
            raise ConnectionError(f"WebSocket handshake refused: {status!r}")
        self.buf = head.split(b"\r\n\r\n", 1)[1]

    def _read(self, n: int) -> bytes:
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("DevTools connection closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _send_frame(self, opcode: int, payload: bytes) -> None:
        head = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + masked)

    def send(self, text: str) -> None:
        self._send_frame(0x1, text.encode("utf-8"))

    def recv(self) -> str:
        parts: list[bytes] = []
        while True:
            b0, b1 = self._read(2)
            opcode, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            data = self._read(n)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            if opcode == 0x9:
                self._send_frame(0xA, data)
                continue
            if opcode == 0x8:
                raise ConnectionError("DevTools closed the WebSocket")
            if opcode in (0x0, 0x1, 0x2):
                parts.append(data)
                if b0 & 0x80:
                    return b"".join(parts).decode("utf-8")

    def close(self) -> None:
        try:
            self._send_frame(0x8, b"")
        except OSError:
            pass
        self.sock.close()


class Browser:
    """A headless Chromium with one page, driven through ``Runtime.evaluate``."""

    def __init__(self, binary: str, url: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="gecscope-chromium-")
        self.proc = subprocess.Popen([binary, *FLAGS, f"--user-data-dir={self.profile}", url],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True)
        self.ids = itertools.count(1)
        self.ws: WebSocket | None = None
        try:
            port = self._port()
            self.ws = WebSocket(self._page_socket(port))
        except BaseException:
            self.close()
            raise

    def _port(self) -> int:
        assert self.proc.stderr is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"chromium exited with {self.proc.returncode}")
                continue
            m = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if m:
                return int(m.group(1))
        raise TimeoutError("chromium did not report its DevTools port within 60 s")

    def _page_socket(self, port: int) -> str:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
                targets = json.load(r)
            pages = [t for t in targets if t.get("type") == "page"]
            if pages:
                return str(pages[0]["webSocketDebuggerUrl"])
            time.sleep(0.1)
        raise TimeoutError("no page target in chromium")

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        assert self.ws is not None
        msg_id = next(self.ids)
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return dict(msg.get("result", {}))

    def js(self, expression: str) -> Any:
        res = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                        awaitPromise=True)
        if "exceptionDetails" in res:
            raise RuntimeError(f"JavaScript error: {res['exceptionDetails']}")
        return res["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.js(expression):
                return
            time.sleep(0.05)
        raise TimeoutError(f"timed out waiting for {expression}")

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture(scope="module")
def chromium() -> str:
    binary = _chromium()
    if binary is None:
        # setup --dev installs Chromium: under CI's GECSCOPE_REQUIRE_REFERENCES this fails
        skip_or_fail("no Chromium found (bash scripts/setup.sh --dev installs it; or "
                     "apt-get install chromium, or set GECSCOPE_CHROMIUM)")
    return binary


def _open(binary: str, path: Path) -> Iterator[Browser]:
    browser = Browser(binary, path.resolve().as_uri())
    try:
        browser.wait_for("document.readyState === 'complete' && "
                         "document.getElementById('match-count') !== null && "
                         "document.getElementById('match-count').textContent !== ''")
        yield browser
    finally:
        browser.close()


SELECT = ("(function(id, label){var s=document.getElementById(id);"
          "var o=Array.prototype.find.call(s.options,function(o){return o.textContent===label;});"
          "s.value=o?o.value:'';s.dispatchEvent(new Event('change'));return s.value;})")
CARDS = ("Array.prototype.map.call(document.querySelectorAll('#sentences-list .card'),"
         "function(c){return +c.dataset.index;})")


@pytest.fixture(scope="module")
def toy_page(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> Iterator[tuple]:
    toy = _load_toy_metrics()
    data, hyps = toy.toy_corpus()
    metrics = [toy.EditFFast(), toy.Disentangled()]
    results = [m.evaluate(data, h) for m in metrics for h in hyps]
    report = build_report(data, hyps, results, metrics, n_samples=200, seed=1)
    path = tmp_path_factory.mktemp("html") / "toy.html"
    write_report_html(path, report)
    for browser in _open(chromium, path):
        yield browser, report


def _expected(report: Any, outcome: str | None = None, system: str | None = None,
              etype: str | None = None) -> list[int]:
    out = []
    for s in report.sentences:
        for name, ss in s.systems.items():
            if system is not None and name != system:
                continue
            if any((outcome is None or e.outcome == outcome) and (etype is None or e.type == etype)
                   for e in ss.edits):
                out.append(s.index)
                break
    return out


def test_page_opens_offline_and_shows_everything(toy_page: tuple) -> None:
    browser, _report = toy_page
    assert browser.js("document.getElementById('match-count').textContent") == "5 of 5 sentences"
    assert browser.js(CARDS) == [0, 1, 2, 3, 4]
    # three systems per card, two references per card
    assert browser.js("document.querySelectorAll('.card .line.hyp').length") == 15
    assert browser.js("document.querySelectorAll('.card .line.ref').length") == 10
    # nothing was fetched: the page is self-contained
    assert browser.js("performance.getEntriesByType('resource').length") == 0
    # the score table lists each system with its interval
    rows = browser.js("Array.prototype.map.call(document.querySelectorAll('#overview tbody tr'),"
                      "function(r){return r.cells[0].textContent;})")
    assert rows == ["good", "over", "copy"]
    assert browser.js("document.querySelectorAll('#overview .ci').length") == 6
    # the CLEME2.0-style chart: four bars per system for the metric with Hit/Wrong/Under/Over
    assert browser.js("document.querySelectorAll('#disentangled svg rect.bar').length") == 12


def test_edits_are_coloured_by_outcome(toy_page: tuple) -> None:
    browser, _report = toy_page
    browser.js(SELECT + "('f-system', 'all systems')")
    got = browser.js("Array.prototype.map.call(document.querySelectorAll("
                     "'.card[data-index=\"1\"] .line.hyp[data-system=\"over\"] .e'),"
                     "function(e){return e.dataset.outcome+':'+e.textContent;})")
    # sentence 2 "She like apple ." : over proposes like -> liked; the best reference
    # (annotator 0: like -> likes, apple -> apples) makes it FP necessary, plus two FN
    assert got == ["fp_ne:like liked", "fn:like→likes", "fn:apple→apples"]
    colour = browser.js("getComputedStyle(document.querySelector('.e.fp_ne')).borderBottomColor")
    assert colour == "rgb(242, 142, 43)"


def test_filters_by_outcome_system_type_and_search(toy_page: tuple) -> None:
    browser, report = toy_page
    browser.js(SELECT + "('f-outcome', 'FP unnecessary')")
    expected = _expected(report, "fp_un")
    assert expected  # the toy corpus has over-corrections
    assert browser.js(CARDS) == expected
    assert browser.js("document.getElementById('match-count').textContent") == \
        f"{len(expected)} of 5 sentences"
    browser.js(SELECT + "('f-system', 'over')")
    assert browser.js(CARDS) == _expected(report, "fp_un", "over")
    assert browser.js("Array.prototype.every.call(document.querySelectorAll('.line.hyp'),"
                      "function(l){return l.dataset.system==='over';})") is True
    browser.js(SELECT + "('f-system', 'good')")
    assert browser.js(CARDS) == []  # the good system has no FP
    assert browser.js("document.getElementById('match-count').textContent") == "0 of 5 sentences"
    browser.js(SELECT + "('f-outcome', 'any')")
    browser.js(SELECT + "('f-system', 'all systems')")
    browser.js(SELECT + "('f-type', 'R:VERB:SVA')")
    assert browser.js(CARDS) == _expected(report, etype="R:VERB:SVA")
    browser.js(SELECT + "('f-type', 'any')")
    browser.js("(function(){var s=document.getElementById('f-search');s.value='apples';"
               "s.dispatchEvent(new Event('input'));})()")
    assert browser.js(CARDS) == [1]  # only in the references of sentence 2
    browser.js("(function(){var s=document.getElementById('f-search');s.value='';"
               "s.dispatchEvent(new Event('input'));})()")
    assert browser.js(CARDS) == [0, 1, 2, 3, 4]


def test_screenshot(toy_page: tuple, tmp_path: Path) -> None:
    browser, _ = toy_page
    shot = browser.call("Page.captureScreenshot", format="png")
    png = base64.b64decode(shot["data"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    (tmp_path / "toy.png").write_bytes(png)


@pytest.mark.slow
def test_conll_report_pages_and_filters(conll14: Path, chromium: str, tmp_path: Path) -> None:
    from gecscope.metrics.errant import ErrantMetric

    d = conll14 / "errant"
    data = EvalData.from_m2(read_m2(d / "references.m2"))
    hyps = [Hypothesis.from_file(d / f"{n}.m2") for n in ("AMU", "CAMB", "UFC")]
    metric = ErrantMetric()
    results = [metric.evaluate(data, h) for h in hyps]
    path = tmp_path / "conll.html"
    report = write_html_report(path, data, hyps, results, [metric], n_samples=100)
    for browser in _open(chromium, path):
        assert browser.js("document.getElementById('match-count').textContent") == \
            "1312 of 1312 sentences"
        assert browser.js("document.getElementById('page-info').textContent") == "page 1 of 53"
        assert len(browser.js(CARDS)) == 25
        browser.js(SELECT + "('f-system', 'UFC')")
        browser.js(SELECT + "('f-outcome', 'TP')")
        expected = _expected(report, "tp", "UFC")
        assert browser.js("document.getElementById('match-count').textContent") == \
            f"{len(expected)} of 1312 sentences"
        assert browser.js(CARDS) == expected[:25]
        browser.js("document.getElementById('next').click()")
        assert browser.js(CARDS) == expected[25:50]
        # the per-type table of the metric's own counts is there, one column per system
        assert browser.js("document.querySelectorAll('section.types[data-table=\"errant\"] "
                          "thead th').length") == 4


def test_interval_plot_and_significance_matrix(toy_page: tuple) -> None:
    browser, report = toy_page
    for m in report.metrics:
        scores = [s for s in report.scores if s.metric == m.name]
        points = browser.js(
            f"Array.prototype.map.call(document.querySelectorAll('#significance svg[aria-label^="
            f"\"{m.name}:\"] circle.point'), function(c){{return c.querySelector('title')"
            ".textContent;})")
        assert len(points) == len(scores) and all(p.split(":")[0] in report.systems
                                                  for p in points)
        # the plot draws the interval of every system, best first
        ranked = sorted(scores, key=lambda s: (s.rank, -s.value))
        plotted = [p.split(":")[0] for p in points]
        assert plotted == [s.system for s in ranked]
        cells = browser.js(
            f"Array.prototype.map.call(document.querySelectorAll('table.sigmatrix[data-metric="
            f"\"{m.name}\"] tbody td'), function(td){{return [td.className, td.title];}})")
        n = len(scores)
        assert len(cells) == n * n
        alpha = report.resampling["alpha"]
        for c in report.pairwise:
            if c["metric"] != m.name:
                continue
            label = f"{c['system_a']} − {c['system_b']} = {c['delta']:+.4f}, p = {c['p_value']:.4f}"
            (cls,) = [k for k, title in cells if title == label]
            want = "not-sig" if c["p_value"] >= alpha else (
                "sig-better" if c["delta"] > 0 else "sig-worse")
            assert cls == want
    assert browser.js("document.querySelector('nav a[href=\"#significance\"]') !== null")


@pytest.fixture(scope="module")
def attributed_page(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> Iterator[tuple]:
    from gecscope.reports.attribution import AttributionRequest

    toy = _load_toy_metrics()
    data, hyps = toy.toy_corpus()
    metrics = [toy.ExactMatch(), toy.EditF()]
    results = [m.evaluate(data, h) for m in metrics for h in hyps]
    report = build_report(data, hyps, results, metrics,
                          attribution=AttributionRequest("shapley"))
    path = tmp_path_factory.mktemp("html") / "attributed.html"
    write_report_html(path, report)
    for browser in _open(chromium, path):
        yield browser, report


EDITS = ("(function(sel){return Array.prototype.map.call(document.querySelectorAll(sel),"
         "function(e){var c=getComputedStyle(e).backgroundColor.match(/[0-9.]+/g).map(Number);"
         "return {text:e.textContent,cls:e.className,title:e.title,"
         "v:e.dataset.attribution===undefined?null:+e.dataset.attribution,rgba:c};});})")


def test_edits_are_coloured_by_attribution(attributed_page: tuple) -> None:
    browser, report = attributed_page
    # the browser opens coloured by the first attributed metric (toy-editf has no sentence
    # scores, so only toy-exact is offered besides the outcomes)
    options = browser.js("Array.prototype.map.call(document.getElementById('f-colour').options,"
                         "function(o){return o.textContent;})")
    assert options == ["outcome", "toy-exact attribution (shapley)"]
    assert browser.js("document.getElementById('attr-legend').hidden") is False
    shares = report.attributions["toy-exact"].shares
    seen = 0
    for system in report.systems:
        for i, sentence in enumerate(shares[system]):
            got = browser.js(EDITS + f"('.card[data-index=\"{i}\"] "
                             f".line.hyp[data-system=\"{system}\"] .e:not(.fn)')")
            assert len(got) == len(sentence.edits), (system, i)
            for edit, share in zip(got, sentence.edits, strict=True):
                r, g, b, alpha = edit["rgba"]
                assert edit["v"] == share.value, (system, i)
                assert "toy-exact share " in edit["title"] and "(shapley)" in edit["title"]
                if share.value > 0:  # helped: green, hurt: red, nothing: grey
                    assert "helped" in edit["cls"] and g > r and alpha > 0.15
                    assert f"+{share.value:.4f}" in edit["title"]
                elif share.value < 0:
                    assert "hurt" in edit["cls"] and r > g and alpha > 0.15
                    assert f"−{-share.value:.4f}" in edit["title"]
                else:
                    assert "neutral" in edit["cls"] and r == g == b
                seen += 1
    assert seen == 11  # every edit of the three systems (good 5, over 6, copy none)
    # a larger share is a deeper colour: over's -1 (fine -> good) beside its -0.5 (the school)
    strong = browser.js(EDITS + "('.card[data-index=\"3\"] .line.hyp[data-system=\"over\"] .e')")
    weak = browser.js(EDITS + "('.card[data-index=\"0\"] .line.hyp[data-system=\"over\"] "
                      ".e.hurt')")
    assert strong[0]["rgba"][3] > weak[0]["rgba"][3]
    # back to the outcomes: no attribution colour, the outcome classes' colours again
    browser.js(SELECT + "('f-colour', 'outcome')")
    got = browser.js(EDITS + "('.line.hyp .e')")
    assert got and all(e["v"] is None and "attr" not in e["cls"] for e in got)
    assert browser.js("document.getElementById('attr-legend').hidden") is True
    # the per-type attribution table: one column per system, the sums of the report
    cells = browser.js("Array.prototype.map.call(document.querySelectorAll("
                       "'section.attr-types[data-metric=\"toy-exact\"] tbody tr'),"
                       "function(r){return [r.cells[0].textContent, r.cells[2].dataset.v];})")
    over = {r.type: r.value for r in report.attributions["toy-exact"].rows["over"]}
    assert {t: float(v) for t, v in cells if v is not None} == over
    assert "toy-editf scores the corpus only" in browser.js(
        "document.querySelector('.attr-note').textContent")


def test_plain_text_references_and_attributed_edits(chromium: str, tmp_path: Path) -> None:
    # plain-text references: no edit outcomes, so the hypothesis edits shown are the
    # attributed ones (no outcome), and each reference line shows the reference's text
    from gecscope.reports.attribution import AttributionRequest

    toy = _load_toy_metrics()
    gold, hyps = toy.toy_corpus()
    refs = [[" ".join(s.reference(a)) for s in gold.m2] for a in (0, 1)]
    data = EvalData.from_texts([" ".join(s) for s in gold.sources], refs,
                               tokenise="whitespace")
    metric = toy.ExactMatch()
    results = [metric.evaluate(data, h) for h in hyps]
    report = build_report(data, hyps, results, [metric],
                          attribution=AttributionRequest("shapley"))
    path = tmp_path / "plain.html"
    write_report_html(path, report)
    for browser in _open(chromium, path):
        lines = browser.js("Array.prototype.map.call(document.querySelectorAll("
                           "'.card[data-index=\"1\"] .line.ref .txt'),"
                           "function(t){return t.textContent;})")
        assert lines == refs[0][1:2] + refs[1][1:2]  # "She likes apples ." / "She likes apple s ."
        got = browser.js(EDITS + "('.card[data-index=\"0\"] .line.hyp[data-system=\"over\"] "
                         ".e')")
        shares = report.attributions["toy-exact"].shares["over"][0].edits
        drawn = [(e["v"], "edit" in e["cls"]) for e in got]
        assert drawn == [(s.value, True) for s in shares]
        # the reference text is searched too
        browser.js("(function(){var s=document.getElementById('f-search');s.value='apples';"
                   "s.dispatchEvent(new Event('input'));})()")
        assert browser.js(CARDS) == [1]
