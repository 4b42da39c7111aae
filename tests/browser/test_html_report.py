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


#: [card index, system, what the line reads] of every hypothesis line shown: the line's text
#: without the words its edits struck out, spaces collapsed
READS = ("Array.prototype.map.call(document.querySelectorAll('#sentences-list .line.hyp'),"
         "function(l){var t=l.querySelector('.txt').cloneNode(true);"
         "Array.prototype.forEach.call(t.querySelectorAll('del'),function(d){d.remove();});"
         "return [+l.closest('.card').dataset.index, l.dataset.system,"
         "t.textContent.replace(/\\s+/g,' ').trim()];})")


@pytest.fixture(scope="module")
def toy_page(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> Iterator[tuple]:
    toy = _load_toy_metrics()
    data, hyps = toy.toy_corpus()
    hyps = hyps[::-1]  # handed in worst first (copy, over, good): the page orders by score
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
                     "function(e){return [e.dataset.outcome, e.textContent, e.title,"
                     "getComputedStyle(e, '::after').content];})")
    # sentence 2 "She like apple ." : over proposes like -> liked; the best reference
    # (annotator 0: like -> likes, apple -> apples) makes it FP necessary, plus two FN:
    # numbered marks without text, the correction in the tooltip
    assert got == [
        ["fp_ne", "like liked", "FP necessary · R:VERB:TENSE: like → liked", "none"],
        ["fn", "", "FN (missed) · R:VERB:SVA: like → likes", '"1"'],
        ["fn", "", "FN (missed) · R:NOUN:NUM: apple → apples", '"2"']]
    # the word the system should have changed is underlined (it changed "like" itself)
    assert browser.js("Array.prototype.map.call(document.querySelectorAll("
                      "'.card[data-index=\"1\"] .line.hyp[data-system=\"over\"] .fn-span'),"
                      "function(e){return e.textContent+'|'+e.title;})") == [
        "apple|FN (missed) · R:NOUN:NUM: apple → apples"]
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


def test_lines_read_as_the_systems_output(toy_page: tuple) -> None:
    browser, report = toy_page
    browser.js(SELECT + "('f-system', 'all systems')")
    lines = browser.js(READS)
    assert len(lines) == 15
    for i, system, text in lines:
        assert text == report.sentences[i].systems[system].hypothesis, (i, system)
    # copy changes nothing: its lines are the source with numbered marks, no text added
    marks = browser.js("Array.prototype.map.call(document.querySelectorAll("
                       "'.card[data-index=\"4\"] .line.hyp[data-system=\"copy\"] .e.fn'),"
                       "function(e){return [e.dataset.n, e.textContent, e.title];})")
    assert marks == [["1", "", "FN (missed) · R:VERB:SVA: was → were"],
                     ["2", "", "FN (missed) · U:PREP: in → ∅"]]


def test_systems_in_score_order(toy_page: tuple) -> None:
    browser, report = toy_page
    assert report.systems == ["copy", "over", "good"]  # as handed in
    best_first = ["good", "over", "copy"]
    assert browser.js("Array.prototype.slice.call(document.getElementById('f-system').options,1)"
                      ".map(function(o){return o.textContent;})") == best_first
    assert browser.js("Array.prototype.map.call(document.querySelectorAll("
                      "'.card[data-index=\"0\"] .line.hyp'),function(l){"
                      "return l.dataset.system;})") == best_first
    for m in report.metrics:
        ranked = [s.system for s in sorted((s for s in report.scores if s.metric == m.name),
                                           key=lambda s: (-s.value, s.system))]
        assert browser.js(f"Array.prototype.map.call(document.querySelectorAll("
                          f"'#metric-{m.name} tbody th'),function(t){{return t.textContent;}})"
                          ) == ranked
        assert browser.js(f"Array.prototype.map.call(document.querySelectorAll("
                          f"'table.sigmatrix[data-metric=\"{m.name}\"] thead th'),"
                          "function(t){return t.textContent;})")[1:] == ranked
    assert browser.js("Array.prototype.map.call(document.querySelectorAll("
                      "'section.types[data-table=\"edit-outcomes\"] table.sortable thead th'),"
                      "function(t){return t.textContent;})") == ["type", "edits", *best_first]


def test_p_values_are_unsigned(toy_page: tuple) -> None:
    browser, report = toy_page
    cells = browser.js("Array.prototype.map.call(document.querySelectorAll("
                       "'table.sigmatrix tbody td:not(.empty)'),function(td){"
                       "return [td.textContent, td.dataset.better, td.title];})")
    assert len(cells) == 2 * len(report.pairwise)
    for text, better, title in cells:
        p = float(title.split("p = ")[1].split(" ")[0])
        mark = {"row": "▲", "column": "▼", "neither": "="}[better]
        assert text == ("<0.001" if p < 0.001 else f"{p:.3f}") + " " + mark, title
        delta = float(title.split(" = ")[1].split(",")[0].replace("−", "-"))
        assert (delta > 0) == (better == "row") and (delta < 0) == (better == "column")
    legend = browser.js("document.querySelector('.sig-legend').textContent")
    assert "▲ where the row system scored higher" in legend


def test_types_no_system_edited_are_behind_a_toggle(toy_page: tuple) -> None:
    browser, report = toy_page
    sel = "section.types[data-table=\"edit-outcomes\"]"
    shown = browser.js(f"Array.prototype.map.call(document.querySelectorAll('{sel} "
                       "table.sortable tbody tr'),function(r){return [r.cells[0].textContent,"
                       "r.cells[1].textContent, r.cells[2].textContent];})")
    good = {r.type: r for r in report.per_type["edit-outcomes"]["good"]}
    # counts on the page, most edits first
    sva = good["R:VERB:SVA"]
    assert shown[0] == ["R:VERB:SVA", "12", f"{sva.f:.3f}{sva.tp}/{sva.fp}/{sva.fn}"]
    assert [int(r[1]) for r in shown] == sorted((int(r[1]) for r in shown), reverse=True)
    hidden = f"{sel} details.zero-types tbody tr"
    assert browser.js(f"document.querySelector('{sel} details.zero-types').open") is False
    assert browser.js(f"document.querySelector('{hidden}').checkVisibility()") is False
    assert browser.js(f"document.querySelector('{hidden}').cells[0].textContent") == "U:PREP"
    browser.js(f"document.querySelector('{sel} details.zero-types summary').click()")
    assert browser.js(f"document.querySelector('{sel} details.zero-types').open") is True
    assert browser.js(f"document.querySelector('{hidden}').checkVisibility()") is True
    browser.js(f"document.querySelector('{sel} details.zero-types summary').click()")
    assert browser.js(f"document.querySelector('{sel} details.zero-types').open") is False


def _downloaded(folder: Path, name: str, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    path = folder / name
    while time.monotonic() < deadline:
        if path.is_file() and not (folder / (name + ".crdownload")).exists():
            text = path.read_bytes().decode("utf-8")  # as saved: CSV lines end in CR LF
            if text:
                return text
        time.sleep(0.05)
    raise TimeoutError(f"no download {name} in {folder}: {sorted(os.listdir(folder))}")


def test_downloads_give_valid_svg_latex_and_csv(toy_page: tuple, tmp_path: Path) -> None:
    import csv
    import io
    import xml.etree.ElementTree as ET

    browser, report = toy_page
    browser.call("Browser.setDownloadBehavior", behavior="allow", downloadPath=str(tmp_path))
    browser.js("window.cspViolations=[];document.addEventListener('securitypolicyviolation',"
               "function(e){window.cspViolations.push(e.violatedDirective);})")
    keys = browser.js("window.gecscopeReport.exports()")
    assert set(keys) == {"scores", "types-edit-outcomes", *(f"{k}-{m.name}" for m in
                         report.metrics for k in ("metric", "significance"))}
    # a real click on each kind of button: the file the browser saves
    browser.js("document.querySelector('button.dl[data-export=\"scores\"][data-format=\"csv\"]')"
               ".click()")
    browser.js("document.querySelector('button.dl[data-export=\"types-edit-outcomes\"]"
               "[data-format=\"latex\"]').click()")
    browser.js("document.querySelector('button.dl[data-svg=\"fig-ci-toy-editf\"]').click()")
    scores = list(csv.reader(io.StringIO(_downloaded(tmp_path, "gecscope-scores.csv"),
                                         newline="")))
    assert scores[0][:2] == ["system", "toy-editf F0.5"]
    assert [r[0] for r in scores[1:]] == ["good", "over", "copy"]
    for row in scores[1:]:
        entry = report.score(row[0], "toy-editf")
        assert float(row[1]) == entry.value and float(row[3]) == entry.interval["high"]
    latex = _downloaded(tmp_path, "gecscope-types-edit-outcomes.tex")
    assert latex.startswith("% edit outcomes") and "\\begin{tabular}{lr" in latex
    assert "R:VERB:SVA & 12 & " in latex and "U:PREP" not in latex  # folded: CSV only
    assert latex.count("\\toprule") == 1 and latex.rstrip().endswith("\\end{tabular}")
    svg = _downloaded(tmp_path, "gecscope-fig-ci-toy-editf.svg")
    assert svg.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    root = ET.fromstring(svg.split("?>", 1)[1])
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg" and root.find(f"{ns}style") is not None
    titles = [c.find(f"{ns}title").text for c in root.iter(f"{ns}circle")]
    assert [t.split(":")[0] for t in titles] == ["good", "over", "copy"]
    # the downloads are what the page embedded; every figure serialises to SVG the browser
    # itself parses as an image
    assert browser.js("window.gecscopeReport.exportText('scores','csv')") == \
        _downloaded(tmp_path, "gecscope-scores.csv")
    for fid in browser.js("Array.prototype.map.call(document.querySelectorAll('svg.chart'),"
                          "function(s){return s.id;})"):
        ok = browser.js(f"(function(){{var t=window.gecscopeReport.svgText('{fid}');"
                        "var d=new DOMParser().parseFromString(t,'image/svg+xml');"
                        "return d.getElementsByTagName('parsererror').length===0&&"
                        "d.documentElement.localName==='svg';})()")
        assert ok, fid
    for key in keys:
        text = browser.js(f"window.gecscopeReport.exportText('{key}','csv')")
        rows = list(csv.reader(io.StringIO(text, newline="")))
        assert len({len(r) for r in rows}) == 1 and len(rows) > 1, key
        assert "\\end{tabular}" in browser.js(f"window.gecscopeReport.exportText('{key}','latex')")
    assert browser.js("window.cspViolations") == []
    assert browser.js("performance.getEntriesByType('resource').length") == 0


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
        # the per-type table of the metric's own counts is there: type, edits and one
        # column per system, best first
        head = browser.js("Array.prototype.map.call(document.querySelectorAll("
                          "'section.types[data-table=\"errant\"] table.sortable thead th'),"
                          "function(th){return th.textContent;})")
        ranked = sorted(report.scores, key=lambda s: (-s.value, s.system))
        assert head == ["type", "edits", *(s.system for s in ranked)]
        # every line of the first page reads as the system's output: the struck-out words
        # it replaced aside, nothing but its text (FN marks add none)
        for entry in browser.js(READS):
            i, system, text = entry
            assert text == report.sentences[i].systems[system].hypothesis, (i, system)


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
            (cls,) = [k for k, title in cells if title.startswith(label + " (")]
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
                       "function(r){var k=Array.prototype.findIndex.call("
                       "r.closest('table').tHead.rows[0].cells,function(c){"
                       "return c.textContent==='over';});"
                       "return [r.cells[0].textContent, r.cells[k].dataset.v];})")
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


# -- the corpus view: evaluate --html --top N and explain --top N --html ---------------------


CSP_WATCH = ("window.cspViolations=[];document.addEventListener('securitypolicyviolation',"
             "function(e){window.cspViolations.push(e.violatedDirective);})")
COST_TABLES = ("Array.prototype.map.call(document.querySelectorAll('section.costs'),"
               "function(s){return [s.dataset.system,s.dataset.metric,"
               "s.querySelectorAll('table.costs-table').length,"
               "s.querySelectorAll('button.dl').length];})")


def _check_cost_downloads(browser: Browser, costs: list[Any], tmp_path: Path) -> None:
    """Every costs table registered with CSV and LaTeX; a clicked CSV is the ranking."""
    import csv
    import io

    browser.call("Browser.setDownloadBehavior", behavior="allow", downloadPath=str(tmp_path))
    keys = set(browser.js("window.gecscopeReport.exports()"))
    c = costs[0]
    key = f"costs-{c.system}-{c.metric}-sentences-gain"
    assert key in keys and {k for k in keys if k.startswith("costs-")} == {
        f"costs-{x.system}-{x.metric}-{what}-{sign}" for x in costs
        for what, sign, items in (("sentences", "cost", x.sentence_cost),
                                  ("sentences", "gain", x.sentence_gain),
                                  ("edits", "cost", x.edit_cost), ("edits", "gain", x.edit_gain),
                                  ("types", "cost", x.type_cost), ("types", "gain", x.type_gain))
        if items}
    browser.js(f"document.querySelector('button.dl[data-export=\"{key}\"]"
               "[data-format=\"csv\"]').click()")
    browser.js(f"document.querySelector('button.dl[data-export=\"{key}\"]"
               "[data-format=\"latex\"]').click()")
    rows = list(csv.reader(io.StringIO(_downloaded(tmp_path, f"gecscope-{key}.csv"),
                                       newline="")))
    assert rows[1:] and len(rows[1:]) == len(c.sentence_gain)  # not an empty table
    assert [int(r[1]) for r in rows[1:]] == [s.index + 1 for s in c.sentence_gain]
    change = rows[0].index("corpus change")
    assert [float(r[change]) for r in rows[1:]] == [s.change for s in c.sentence_gain]
    latex = _downloaded(tmp_path, f"gecscope-{key}.tex")
    assert "\\begin{tabular}" in latex and latex.rstrip().endswith("\\end{tabular}")
    assert browser.js("window.cspViolations") == []
    assert browser.js("performance.getEntriesByType('resource').length") == 0


def test_the_costs_section_of_the_report(chromium: str, tmp_path: Path) -> None:
    from gecscope.explain import corpus_costs

    toy = _load_toy_metrics()
    data, hyps = toy.toy_corpus()
    metrics = [toy.ExactMatch()]
    results = [m.evaluate(data, h) for m in metrics for h in hyps]
    report = build_report(data, hyps, results, metrics)
    report.costs = [corpus_costs(m, data, h, 3) for m in metrics for h in hyps]
    assert any(c.sentence_gain for c in report.costs)
    path = tmp_path / "costs.html"
    write_report_html(path, report)
    for browser in _open(chromium, path):
        browser.js(CSP_WATCH)
        assert browser.js("document.querySelector('nav a[href=\"#costs\"]') !== null")
        assert browser.js("document.querySelector('#costs h2').textContent") == \
            "What cost each system most"
        shown = browser.js(COST_TABLES)
        # one block per system, in score order (best first), each with its tables' buttons
        order = [s.system for s in sorted(report.scores, key=lambda s: -s.value)]
        assert [s[0] for s in shown] == order
        for (system, metric, tables, buttons), c in zip(
                shown, sorted(report.costs, key=lambda c: order.index(c.system)), strict=True):
            lists = [c.sentence_cost, c.sentence_gain, c.edit_cost, c.edit_gain, c.type_cost,
                     c.type_gain]
            assert (system, metric) == (c.system, c.metric)
            assert tables == sum(1 for x in lists if x) and buttons == 2 * tables
        # the numbers are the exact values, costs red and gains green
        colours = browser.js("Array.prototype.map.call(document.querySelectorAll("
                             "'section.costs td.num.gain'),function(t){"
                             "return getComputedStyle(t).color;})")
        assert colours and set(colours) == {"rgb(0, 100, 0)"}
        _check_cost_downloads(browser, report.costs, tmp_path)


def test_explain_top_writes_a_page(chromium: str, tmp_path: Path) -> None:
    from gecscope.cli.main import main
    from gecscope.explain import CorpusCosts

    files = {}
    for name, lines in (("src", ["the cat sit on mat", "she have two apple"]),
                        ("ref", ["the cat sits on the mat", "she has two apples"]),
                        ("hyp", ["the cat sits on mat .", "she has two apple"])):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    page, out = tmp_path / "view.html", tmp_path / "view.json"
    argv = ["explain", "--ref", str(files["ref"]), "--source", str(files["src"]), "--hyp",
            str(files["hyp"]), "--lang", "fr", "-j", "1", "--top", "3", "-m", "gleu",
            "--format", "json", "--html", str(page)]
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(argv) == 0
    out.write_text(buf.getvalue(), encoding="utf-8")
    costs = CorpusCosts.from_dict(json.loads(buf.getvalue()))
    browser = Browser(chromium, page.resolve().as_uri())
    try:
        browser.wait_for("document.readyState === 'complete' && "
                         "document.querySelector('section.costs') !== null")
        browser.js(CSP_WATCH)
        assert browser.js(COST_TABLES)[0][:2] == ["hyp", "gleu"]
        assert browser.js("document.querySelectorAll('section.costs tr[data-sentence]')"
                          ".length") == len(costs.sentence_gain) + len(costs.sentence_cost) + \
            len(costs.edit_cost) + len(costs.edit_gain)
        _check_cost_downloads(browser, [costs], tmp_path)
    finally:
        browser.close()
