"""The workers' start-up data travels through a file (``execution.pool._payload``), pickled
once, so that the launch does not wait for each worker's interpreter in turn. Attacked here:

- the file holds exactly the arguments, is private (0600) and is gone after the pool, also
  when the workers fail;
- a file truncated, changed by one byte, extended, removed or swapped for another run's
  before a worker reads it is refused by the worker, naming the file: the pool breaks and the
  run is done in one process with the same numbers (real processes, the CLI on CoNLL-2014);
- small arguments still travel inline (no file).
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from gecscope.execution.pool import INLINE_INITARGS, WorkerStartError, _payload, _read_payload

ROOT = Path(__file__).resolve().parents[2]

BIG = (list(range(INLINE_INITARGS)), {"text": "x" * INLINE_INITARGS})


def test_big_arguments_go_through_a_private_file_small_ones_inline() -> None:
    assert _payload((1, "small")) is None
    found = _payload(BIG)
    assert found is not None
    path, size, _ = found
    try:
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        assert os.path.getsize(path) == size > INLINE_INITARGS
        assert _read_payload(*found) == BIG
    finally:
        os.unlink(path)


@pytest.mark.parametrize("attack", ["truncate", "flip", "extend", "remove", "swap"])
def test_a_changed_file_is_refused_naming_it(attack: str) -> None:
    found = _payload(BIG)
    other = _payload((BIG[0][::-1], BIG[1]))  # the same size, other bytes
    assert found is not None and other is not None
    path = found[0]
    try:
        blob = Path(path).read_bytes()
        if attack == "truncate":
            Path(path).write_bytes(blob[:-1])
        elif attack == "flip":
            Path(path).write_bytes(blob[:50] + bytes([blob[50] ^ 1]) + blob[51:])
        elif attack == "extend":
            Path(path).write_bytes(blob + b"\0")
        elif attack == "remove":
            os.unlink(path)
        else:  # another run's start-up data of the same size in its place
            assert other[1] == found[1]
            os.replace(other[0], path)
        with pytest.raises(WorkerStartError, match=path):
            _read_payload(*found)
    finally:
        for p in (path, other[0]):
            if os.path.exists(p):
                os.unlink(p)


#: The start of both driver scripts: with ``flip`` (their first argument) the start-up file
#: is changed after the driver wrote it, before the workers read it.
_TAMPER = """\
import sys
import gecscope.execution.pool as pool


def tamper():
    made = pool._payload

    def tampered(initargs):
        found = made(initargs)
        if sys.argv[1] == "flip":
            blob = open(found[0], "rb").read()
            open(found[0], "wb").write(blob[:9] + bytes([blob[9] ^ 1]) + blob[10:])
        return found

    pool._payload = tampered
"""

#: A driver with a real ``process_pool`` whose initializer keeps big arguments.
_DRIVER = _TAMPER + """
STATE = {}


def keep(numbers, extra):
    STATE["numbers"] = numbers


def total(k):
    return sum(STATE["numbers"]) + k


if __name__ == "__main__":
    tamper()
    numbers = list(range(50_000))
    with pool.process_pool(2, 4, keep, (numbers, "x" * 40_000)) as workers:
        print("result", list(workers.map(total, range(4))), flush=True)
    print("expected", [sum(numbers) + k for k in range(4)])
"""

#: The CLI with its arguments after the mode, workers started for any work.
_CLI = _TAMPER + """
if __name__ == "__main__":
    tamper()
    import gecscope.execution.executors as executors
    executors.PARALLEL_MIN = 1  # these three systems go to workers
    from gecscope.cli.main import main
    sys.exit(main(sys.argv[2:]))
"""


def _env(**extra: str) -> dict[str, str]:
    """This environment with ``extra`` and this checkout's sources first on the path."""
    return dict(os.environ, **extra, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]))


def _run_driver(mode: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "driver.py"
    script.write_text(_DRIVER, encoding="utf-8")
    temp = tmp_path / "tmp"
    temp.mkdir()
    proc = subprocess.run([sys.executable, str(script), mode], cwd=tmp_path,
                          env=_env(TMPDIR=str(temp)),
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert list(temp.iterdir()) == []  # the start-up file is removed after the pool
    return proc


def test_workers_start_from_the_file(tmp_path: Path) -> None:
    proc = _run_driver("keep", tmp_path)
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines())
    assert lines["result"] == lines["expected"]
    assert "warning" not in proc.stderr


def test_workers_refuse_a_changed_file_and_the_pool_ends(tmp_path: Path) -> None:
    proc = _run_driver("flip", tmp_path)
    assert "result" not in proc.stdout  # the pool broke: nothing came from the workers
    assert "is not what the driver wrote" in proc.stderr
    assert "worker processes failed" in proc.stderr


@pytest.mark.requires_data
@pytest.mark.slow
def test_a_run_with_its_start_up_file_changed_gives_the_one_process_numbers(
        conll14: Path, tmp_path: Path) -> None:
    # The CLI on CoNLL-2014 (three systems, m2 and gleu; the driver lowers the work that
    # starts workers): the file changed before the workers read it, the run warns and scores
    # in one process, and prints what --jobs 1 prints.
    script = tmp_path / "cli.py"
    script.write_text(_CLI, encoding="utf-8")
    env = _env(GECSCOPE_CACHE=str(tmp_path / "cache"))
    argv = ["evaluate", "-r", str(conll14 / "official-2014.combined.m2"), "--hyp",
            *(str(conll14 / "submissions" / name) for name in ("AMU", "CAMB", "UFC")),
            "-m", "m2", "-m", "gleu", "-q", "--format", "tsv"]
    runs = {}
    for mode, jobs in (("flip", "2"), ("keep", "1")):
        runs[mode] = subprocess.run([sys.executable, str(script), mode, *argv, "--jobs", jobs],
                                    env=env, capture_output=True, text=True, timeout=600,
                                    check=False)
        assert runs[mode].returncode == 0, runs[mode].stderr
    assert "is not what the driver wrote" in runs["flip"].stderr
    assert "worker processes failed" in runs["flip"].stderr
    assert runs["flip"].stdout == runs["keep"].stdout and runs["keep"].stdout.count("\n") > 3
