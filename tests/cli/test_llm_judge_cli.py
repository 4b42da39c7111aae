"""``gecscope evaluate -m llm_sent / llm_edit`` end to end, against a real chat-completions
server started on 127.0.0.1 by the test.

The server reads the prompt it receives and scores each target line by a rule simple enough
to derive the expected scores by hand: an empty target (no edit) or one equal to the source
gets 1; any other gets ``2 + the number of arrows`` (one per edit, so a corrected sentence
gets 2), at most 5. tests/unit/test_llm_judge.py covers the Python API, the cache, retries,
time-outs and the comparison with gec-metrics 0.1.1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from loopback import JSONHandler, serving

from gecscope.cli.main import main
from gecscope.llm_client import CACHE_FILE
from gecscope.metrics.llm_judge import LLMSentMetric

SOURCES = ["He go home .", "She like it .", "I saw cat yesterday .", "They is happy ."]
HYPS = ["He goes home .", "She likes it .", "I saw a cat yesterday .", "They is happy ."]
SENT_SCORES = [2.0, 2.0, 2.0, 1.0]  # three corrected sentences, one left as it was

EDIT_SOURCES = ["He go home .", "I saw the the cat .", "They are happy ."]
HYP_M2 = """S He go home .
A 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0
A 2 2|||M:PREP|||to|||REQUIRED|||-NONE-|||0

S I saw the the cat .
A 3 4|||U:DET|||-NONE-|||REQUIRED|||-NONE-|||0

S They are happy .
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0
"""
EDIT_SCORES = [4.0, 3.0, 1.0]  # "go→goes →to": 2 edits; "the→": 1 edit; no edit


Server = tuple[str, list[dict[str, Any]], list[str | None]]


def rule(source: str, target: str) -> int:
    return 1 if target in ("", source) else min(5, 2 + target.count("\u2192"))


class _Handler(JSONHandler):
    bodies: ClassVar[list[dict[str, Any]]] = []
    keys: ClassVar[list[str | None]] = []

    def do_POST(self) -> None:
        body = self.read_json()
        type(self).bodies.append(body)
        type(self).keys.append(self.headers.get("Authorization"))
        prompt = body["messages"][-1]["content"]
        head, rest = prompt.split("\n# targets\n", 1)
        source = head.rstrip("\n").rsplit("\n", 1)[-1]  # the line under '# source'/'# context'
        targets = rest.split("\n\n# output format\n", 1)[0].split("\n")
        content = json.dumps({f"target_score{k + 1}": rule(source, t)
                              for k, t in enumerate(targets)})
        self.send_json(200, {"object": "chat.completion", "model": body["model"],
                             "choices": [{"index": 0, "finish_reason": "stop", "message": {
                                 "role": "assistant", "content": content}}]})


@pytest.fixture()
def server() -> Iterator[Server]:
    """The API base URL of a fresh server, and the request bodies it receives."""
    handler = type("Handler", (_Handler,), {"bodies": [], "keys": []})
    with serving(handler) as url:
        yield url, handler.bodies, handler.keys


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, str]:
    paths = {"src": tmp_path / "src.txt", "hyp": tmp_path / "hyp.txt",
             "esrc": tmp_path / "edit_src.txt", "m2": tmp_path / "hyp.m2"}
    paths["src"].write_text("\n".join(SOURCES) + "\n", encoding="utf-8")
    paths["hyp"].write_text("\n".join(HYPS) + "\n", encoding="utf-8")
    paths["esrc"].write_text("\n".join(EDIT_SOURCES) + "\n", encoding="utf-8")
    paths["m2"].write_text(HYP_M2, encoding="utf-8")
    return {k: str(v) for k, v in paths.items()}


def test_hand_derived_rule() -> None:
    sent = [rule(s, h) for s, h in zip(SOURCES, HYPS, strict=True)]
    assert sent == SENT_SCORES
    edit = [rule(s, t) for s, t in zip(EDIT_SOURCES, ["go\u2192goes \u2192to", "the\u2192", ""],
                                       strict=True)]
    assert edit == EDIT_SCORES


def test_llm_sent_scores_signature_cache_and_bootstrap(
        server: Server, cache_dir: Path, files: dict[str, str],
        capsys: pytest.CaptureFixture[str]) -> None:
    url, bodies, _ = server
    argv = ["evaluate", "-m", "llm_sent", "-s", files["src"], "--hyp", files["hyp"],
            "-o", f"base_url={url}", "-o", "model=judge-cli", "-o", "temperature=0",
            "--format", "json", "--sentences", "-q", "--jobs", "1"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scores"][0]["value"] == pytest.approx(sum(SENT_SCORES) / len(SENT_SCORES))
    per_sentence = [s["systems"]["hyp"]["scores"]["llm_sent"] for s in out["sentences"]]
    assert per_sentence == SENT_SCORES
    sig = out["metrics"][0]["signature"]
    digest = LLMSentMetric(base_url=url, model="judge-cli").prompt_digest()
    assert "model:judge-cli" in sig and f"prompt:{digest}" in sig
    # one request per sentence, with the options given on the command line
    assert len(bodies) == len(SOURCES)
    assert {(b["model"], b["temperature"], b["seed"]) for b in bodies} == {("judge-cli", 0.0,
                                                                            777)}
    assert (cache_dir / CACHE_FILE).is_file()
    # again with a bootstrap: every answer from the disk cache, the interval within the
    # sentence scores' range, the bootstrap's seed in the signature (not hidden by llm_seed)
    assert main([*argv, "--bootstrap", "200", "--seed", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(bodies) == len(SOURCES)
    interval = out["scores"][0]["interval"]
    assert interval is not None
    assert min(SENT_SCORES) <= interval["low"] <= interval["high"] <= max(SENT_SCORES)
    assert "|s:1|" in out["metrics"][0]["signature"]
    # an option of the request changes the request (and misses the cache)
    assert main([*argv, "-o", "llm_seed=none", "-o", "criteria=fluency"]) == 0
    capsys.readouterr()
    assert len(bodies) == 2 * len(SOURCES)
    assert all("seed" not in b and "fluency" in b["messages"][1]["content"]
               for b in bodies[len(SOURCES):])


def test_llm_edit_reads_the_hypothesis_edits(
        server: Server, cache_dir: Path, files: dict[str, str],
        capsys: pytest.CaptureFixture[str]) -> None:
    url, bodies, _ = server
    assert main(["evaluate", "-m", "llm_edit", "-s", files["esrc"], "--hyp", files["m2"],
                 "-o", f"base_url={url}", "-o", "model=judge-cli", "--format", "json",
                 "--sentences", "-q", "--jobs", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    per_sentence = [s["systems"]["hyp"]["scores"]["llm_edit"] for s in out["sentences"]]
    assert per_sentence == EDIT_SCORES
    assert out["scores"][0]["value"] == pytest.approx(sum(EDIT_SCORES) / len(EDIT_SCORES))
    assert len(bodies) == len(EDIT_SOURCES)


def test_errors_exit_codes_and_messages(server: Server,
                                        cache_dir: Path, files: dict[str, str],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    url, bodies, _ = server
    base = ["evaluate", "-m", "llm_sent", "-s", files["src"], "--hyp", files["hyp"], "-q",
            "--jobs", "1"]
    assert main(base) == 64
    assert "needs an OpenAI-compatible endpoint" in capsys.readouterr().err
    assert main([*base, "-o", f"base_url={url}", "-o", "model=m", "-o", "criteria=impact"]) == 64
    assert "criteria must be one of grammaticality" in capsys.readouterr().err
    assert main([*base, "-o", f"base_url={url}", "-o", "model=m", "-o", "max_retry=1"]) == 64
    assert "max_retries" in capsys.readouterr().err  # did you mean
    assert main([*base, "-o", "base_url=http://127.0.0.1:9/v1", "-o", "model=m", "-o",
                 "max_retries=0"]) == 69
    err = capsys.readouterr().err
    assert "cannot connect" in err and "base_url" in err and "Traceback" not in err
    assert bodies == []


def test_installed_command(server: Server, cache_dir: Path,
                           files: dict[str, str]) -> None:
    """The real command line in a new process, with an API key from the environment."""
    url, bodies, keys = server
    env = {**os.environ, "JUDGE_TEST_KEY": "sk-test-123", "GECSCOPE_CACHE": str(cache_dir)}
    proc = subprocess.run(
        [sys.executable, "-m", "gecscope", "evaluate", "-m", "llm_sent", "-s", files["src"],
         "--hyp", files["hyp"], "-o", f"base_url={url}", "-o", "model=judge-cli", "-o",
         "api_key_env=JUDGE_TEST_KEY", "--format", "tsv", "-q", "--jobs", "1"],
        check=False, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "1.75" in proc.stdout  # mean of 2, 2, 2, 1
    assert len(bodies) == len(SOURCES) and set(keys) == {"Bearer sk-test-123"}
    assert "sk-test" not in proc.stdout + proc.stderr
    assert b"sk-test" not in (cache_dir / CACHE_FILE).read_bytes()
