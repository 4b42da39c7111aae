"""LLM-based edit weighting against a real (tiny) chat-completions server started on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.llm_client import MalformedAnswer
from gecscope.metrics.cleme import CLEME2Metric, CLEMEMetric
from gecscope.metrics.cleme.weights import (
    LLM_PROMPT,
    LLMResponseError,
    LLMWeigher,
    format_edit,
    parse_rating,
)

REF_M2 = """S a b c d e f g
A 0 1|||R:X|||A|||REQUIRED|||-NONE-|||0
A 2 3|||R:X|||C|||REQUIRED|||-NONE-|||0
A 6 7|||R:X|||G|||REQUIRED|||-NONE-|||0
A 0 1|||R:X|||A2|||REQUIRED|||-NONE-|||1
A 2 3|||R:X|||X|||REQUIRED|||-NONE-|||1
A 6 7|||R:X|||G|||REQUIRED|||-NONE-|||1

S p q r s
A 1 2|||R:X|||Q|||REQUIRED|||-NONE-|||0
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1
"""
HYP_M2 = """S a b c d e f g
A 0 1|||R:X|||A|||REQUIRED|||-NONE-|||0
A 2 3|||R:X|||X|||REQUIRED|||-NONE-|||0
A 4 5|||R:X|||Y|||REQUIRED|||-NONE-|||0

S p q r s
A 1 2|||R:X|||Q|||REQUIRED|||-NONE-|||0
"""

# how the test server rates an edit: a fixed table, 3 for anything else
RATINGS = {"a \u2192 A": 5, "c \u2192 X": 2, "e \u2192 Y": 1, "g \u2192 G": 4, "q \u2192 Q": 3}


class _Handler(BaseHTTPRequestHandler):
    """``mode`` ok: the RATINGS table; chatty: no number; error: HTTP 500; script: the
    next of ``answers`` (``{prompt}`` in it stands for the prompt received)."""

    mode = "ok"
    requests: ClassVar[list[dict[str, Any]]] = []
    answers: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "body": body})
        if self.mode == "error":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"boom")
            return
        prompt = body["messages"][-1]["content"]
        edit = [ln for ln in prompt.splitlines() if ln.startswith("Edit: ")][-1][len("Edit: "):]
        if self.mode == "script":
            content = type(self).answers.pop(0).replace("{prompt}", prompt)
        else:
            content = (f"{RATINGS.get(edit, 3)}" if self.mode == "ok"
                       else "This edit matters a lot.")
        payload = {"id": "x", "object": "chat.completion",
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                "finish_reason": "stop"}]}
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[tuple[str, type[_Handler]]]:
    handler = type("Handler", (_Handler,), {"mode": "ok", "requests": [], "answers": []})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", handler
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture()
def toy(tmp_path: Path) -> tuple[EvalData, Hypothesis]:
    (tmp_path / "ref.m2").write_text(REF_M2, encoding="utf-8")
    (tmp_path / "hyp.m2").write_text(HYP_M2, encoding="utf-8")
    return EvalData((str(tmp_path / "ref.m2"),)), Hypothesis.from_file(tmp_path / "hyp.m2")


def test_llm_weights_through_a_chat_completions_server(
        server: tuple[str, type[_Handler]], toy: tuple[EvalData, Hypothesis]) -> None:
    url, handler = server
    data, hyp = toy
    metric = CLEME2Metric(weighting="llm", llm_url=url, llm_model="llama-2-7b", level="sentence")
    stats = metric.sentence_stats(data, hyp)
    # S1 vs ref0: TP a->A, FP_ne c->X, FP_un e->Y, FN g->G (the reference's chunk)
    assert stats[0].refs[0].weights == ((5.0,), (2.0,), (1.0,), (4.0,))
    # vs ref1: TP c->X, FP_ne a->A
    assert stats[0].refs[1].weights == ((2.0,), (5.0,), (1.0,), (4.0,))
    assert stats[1].refs[0].weights == ((3.0,), (), (), ())
    assert stats[1].refs[1].weights == ((), (), (3.0,), ())
    # one request per distinct (sentence, edit); the paper's prompt, temperature 0.1
    assert len(handler.requests) == 5
    first = handler.requests[0]
    assert first["path"] == "/v1/chat/completions"
    assert first["body"]["model"] == "llama-2-7b"
    assert first["body"]["temperature"] == pytest.approx(0.1)
    assert first["body"]["messages"][0]["content"] == LLM_PROMPT.format(
        sentence="a b c d e f g", edit="a \u2192 A")
    # eq. 6: counts replaced by summed weights; in S1 ref0 (TP weight 5) beats ref1 (TP 2)
    score = metric.aggregate(stats)
    ne0 = 5 + 2 + 4
    s1 = 0.35 * 5 / ne0 + 0.25 * (1 - 2 / ne0) + 0.20 * (1 - 4 / ne0) + 0.20 * (1 - 1 / 8)
    assert metric.sentence_values(stats) == pytest.approx([s1, 1.0])
    assert score.value == pytest.approx((s1 + 1.0) / 2)
    cleme = CLEMEMetric(weighting="llm", llm_url=url).aggregate(
        CLEMEMetric(weighting="llm", llm_url=url).sentence_stats(data, hyp))
    assert cleme.fields["TN"] == 5  # TN chunks weigh 1


def test_llm_unusable_answers_and_errors(server: tuple[str, type[_Handler]]) -> None:
    url, handler = server
    handler.mode = "chatty"
    weigher = LLMWeigher(url, retries=1)
    with pytest.raises(LLMResponseError, match="expected a number from 1 to 5"):
        weigher.rate(("a", "b"), ("a",), ("A",))
    assert len(handler.requests) == 2  # one retry
    handler.mode = "error"
    with pytest.raises(LLMResponseError, match="HTTP 500"):
        LLMWeigher(url + "/chat/completions").rate(("a",), ("a",), ())
    with pytest.raises(LLMResponseError, match="cannot connect.*llm_url"):
        LLMWeigher("http://127.0.0.1:9/v1", timeout=2).rate(("a",), ("a",), ())


def test_edit_format_and_rating_parser() -> None:
    assert format_edit(("were",), ("have",)) == "were \u2192 have"
    assert format_edit((), ("of",)) == "\u03b5 \u2192 of"
    assert format_edit(("the", "a"), ()) == "the a \u2192 \u03b5"
    accepted = {"4": 4, " 5.": 5, "Score: 2": 2, "**3**": 3, "1\n": 1}
    for answer, rating in accepted.items():
        assert parse_rating(answer) == rating, answer
    prompt = LLM_PROMPT.format(sentence="a b c", edit="a \u2192 A")
    refused = {
        "10/5": "holds 2 \\(10, 5\\): a fraction",  # was read as 5
        "-4": "number -4 is not a whole number from 1 to 5",  # was read as 4
        "I would rate it 0 (scale 1-5)": "holds 3 \\(0, 1, -5\\)",  # was read as 1
        "4 or 5": "holds 2",
        "10": "number 10 is not", "0": "number 0 is not", "3.5": "number 3.5 is not",
        "1" * 5000: "number 11111111111111111111... is not",  # no int() of 5,000 digits
        "none": "holds none", "  ": "empty",
        prompt: "repeats the prompt",  # was read as 1, the "1 to 5" of the prompt
        "Example Output (1-5): 4": "repeats the prompt",
        # signs and numbers the digit pattern alone did not see (each was read as 4)
        "\u20134": "number \u20134 is signed", "\uff0d4": "number \uff0d4 is signed",
        "\ufe634": "is signed", "4\u00bd": "also holds '\u00bd'", "4\u00b2": "also holds"}
    for answer, reason in refused.items():
        with pytest.raises(MalformedAnswer, match=reason):
            parse_rating(answer, prompt)
    # without the prompt, an echo is still several numbers
    with pytest.raises(MalformedAnswer, match="ambiguous"):
        parse_rating(prompt)


@pytest.mark.parametrize("answer", ["10/5", "-4", "I would rate it 0 (scale 1-5)", "{prompt}"])
def test_llm_answers_outside_the_scale_are_errors_naming_them(
        server: tuple[str, type[_Handler]], toy: tuple[EvalData, Hypothesis],
        answer: str) -> None:
    """Each used to become a weight (5, 4, 1, 1) and change the weighted counts, exit 0."""
    url, handler = server
    handler.mode = "script"
    handler.answers = [answer, answer]
    weigher = LLMWeigher(url, retries=1)
    with pytest.raises(LLMResponseError) as info:
        weigher.rate(("a", "b", "c"), ("a",), ("A",))
    sent = LLM_PROMPT.format(sentence="a b c", edit="a \u2192 A")
    assert info.value.answer == answer.replace("{prompt}", sent)
    assert info.value.what == "CLEME LLM weighting, edit 'a \u2192 A' in 'a b c'"
    assert "edit 'a \u2192 A' in 'a b c'" in str(info.value)
    assert f"its last answer was {answer.replace('{prompt}', sent)[:40]!r}"[:-1] in \
        str(info.value)
    assert len(handler.requests) == 2  # asked once more, as for any malformed answer
    # through the metric: an error, never weighted counts
    data, hyp = toy
    handler.answers = [answer] * 4
    with pytest.raises(LLMResponseError, match="CLEME LLM weighting, edit"):
        CLEME2Metric(weighting="llm", llm_url=url, level="sentence").sentence_stats(data, hyp)


def test_a_refused_answer_is_asked_again(server: tuple[str, type[_Handler]]) -> None:
    url, handler = server
    handler.mode = "script"
    handler.answers = ["10/5", "Score: 4"]
    assert LLMWeigher(url, retries=1).rate(("a", "b"), ("a",), ("A",)) == 4
    assert len(handler.requests) == 2
