"""Workers and signals on real processes (issue #31 items 7, 8, 9): ``python -m gecscope``
run as a child, signalled as a terminal or a supervisor would, its workers found in ``/proc``.

- worker processes die with their driver, even a SIGKILLed one, and leave no temporary file;
- Ctrl-C (SIGINT to the whole process group) gives one line and exit 130, no traceback from
  any worker; SIGTERM ends the run at once with exit 143, its temporary file removed;
- ``--jobs`` above the cores starts no more workers than cores (with a warning), absurd values
  are refused with exit 64;
- ``--backend ray --address`` where no Ray cluster answers fails within seconds (69), a
  malformed address at once (64), and SIGTERM ends it meanwhile.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from gecscope.execution.pool import default_jobs

DEMO = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"
ROOT = Path(__file__).resolve().parents[2]

linux_only = pytest.mark.skipif(not Path("/proc/self/task").is_dir(),
                                reason="finds worker processes in /proc (Linux)")
two_cores = pytest.mark.skipif(default_jobs() < 2, reason="runs two workers: needs two cores")


@contextmanager
def _sigint_as_in_a_terminal(ignore: bool = False) -> Iterator[None]:
    """Children started in this block get SIGINT's disposition of a terminal's foreground
    job (default), whatever this test process inherited. A job started in the background by
    a shell without job control (``pytest ... &``, nohup-like CI runners) inherits SIGINT
    *ignored*, and the gecscope it starts rightly keeps ignoring Ctrl-C; without this the
    Ctrl-C tests failed in such a run (issue #42: "result 140" and exit 0), which looked like
    a race under load. A handler set here becomes SIG_DFL in a child at exec (an ignored
    signal stays ignored). ``ignore``: start them with SIGINT ignored instead, as such a job."""
    previous = signal.signal(signal.SIGINT,
                             signal.SIG_IGN if ignore else signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _gecscope(*args: str, cwd: Path) -> subprocess.Popen[str]:
    """``python -m gecscope ARGS`` in its own session (so a signal to its group reaches its
    workers too, as Ctrl-C in a terminal does), SIGINT at its default."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]))
    with _sigint_as_in_a_terminal():
        return subprocess.Popen([sys.executable, "-m", "gecscope", *args], cwd=cwd, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _workers(pid: int) -> list[int]:
    """The driver's worker processes (its children running multiprocessing's spawn entry,
    the resource tracker excepted)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    out = []
    for child in map(int, children):
        try:
            cmd = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if b"spawn_main" in cmd and b"resource_tracker" not in cmd:
            out.append(child)
    return out


def _wait_workers(proc: subprocess.Popen[str], n: int, settle: float = 1.5) -> list[int]:
    """The pids of ``proc``'s workers once ``n`` are running, after ``settle`` more seconds
    (the most seen; a driver that spawns lazily may start more meanwhile)."""
    seen: set[int] = set()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and len(seen) < n:
        seen.update(_workers(proc.pid))
        time.sleep(0.02)
    assert len(seen) >= n, f"the driver did not start {n} workers: {proc.communicate()}"
    end = time.monotonic() + settle
    while time.monotonic() < end and proc.poll() is None:
        seen.update(_workers(proc.pid))
        time.sleep(0.05)
    return sorted(seen)


def _gone(pids: list[int], within: float) -> list[int]:
    """The processes of ``pids`` still alive after ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


@pytest.fixture
def big(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """The demo 250 times (3,000 sentence pairs: above the 2,000 that start workers), each
    pair made unique by a number, so that no cache of repeated sentences lets the run end
    before a test has signalled it (on an idle machine the repeated demo finished within the
    0.3 s a test waits after the workers start)."""
    src, cor = tmp_path / "src.txt", tmp_path / "cor.txt"
    lines = [((DEMO / "source.txt").read_text(encoding="utf-8").splitlines()),
             ((DEMO / "careful.txt").read_text(encoding="utf-8").splitlines())]
    for path, text in zip((src, cor), lines, strict=True):
        path.write_text("".join(f"{line} ( {k} {i} )\n" for k in range(250)
                                for i, line in enumerate(text)), encoding="utf-8")
    yield src, cor


@pytest.fixture
def reaper() -> Iterator[list[int]]:
    """Pids to SIGKILL after the test if still alive (workers the old code left behind)."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        if _alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _annotate(src: Path, cor: Path, out: Path, *extra: str) -> subprocess.Popen[str]:
    return _gecscope("annotate", "-s", str(src), "-c", str(cor), "--output", str(out), *extra,
                     cwd=out.parent)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@linux_only
@two_cores
@pytest.mark.requires_spacy
def test_workers_die_with_a_killed_driver_and_no_temp_file(big, tmp_path: Path,
                                                            reaper: list[int]) -> None:
    out = tmp_path / "out.m2"
    proc = _annotate(*big, out, "-j", "2")
    workers = _wait_workers(proc, 2)
    reaper.extend(workers)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=10)
    assert _gone(workers, 5) == []
    assert not out.exists()
    assert _leftovers(tmp_path) == []  # the temporary M2 had no name yet


@linux_only
@two_cores
@pytest.mark.requires_spacy
def test_ctrl_c_gives_one_line_and_exit_130(big, tmp_path: Path, reaper: list[int]) -> None:
    out = tmp_path / "out.m2"
    proc = _annotate(*big, out, "-j", "2")
    # sent the moment both workers exist: often while the driver still launches them (the
    # window where a SIGINT used to be lost, the run then ending with exit 0), else while
    # they import spaCy (SIGINT blocked until their initializer ignores it)
    workers = _wait_workers(proc, 2, settle=0.0)
    reaper.extend(workers)
    os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal: the driver and its workers
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130
    assert err == "gecscope annotate: interrupted\n"
    assert _gone(workers, 5) == []
    assert not out.exists() and _leftovers(tmp_path) == []


#: A driver that runs a real ``process_pool`` and sends SIGINT at a chosen moment of its
#: launch: right after the first worker process is started, before the launch returns (the
#: window where the driver used to ignore SIGINT). ``group``: to the whole process group, as
#: Ctrl-C does; ``worker``: to that starting worker only. Prints the workers' pids, then the
#: pool's result.
_LAUNCH_DRIVER = """\
import os, signal, sys
from concurrent.futures import ProcessPoolExecutor

from gecscope.execution.pool import process_pool


def square(x):
    return x * x


if __name__ == "__main__":
    target = sys.argv[1]
    spawn = ProcessPoolExecutor._spawn_process

    def spawn_then_signal(self):
        spawn(self)
        print(*self._processes, flush=True)
        if len(self._processes) == 1:
            if target == "group":
                os.killpg(0, signal.SIGINT)
            else:
                os.kill(next(iter(self._processes)), signal.SIGINT)

    ProcessPoolExecutor._spawn_process = spawn_then_signal
    try:
        with process_pool(2, 8) as pool:
            print("result", sum(pool.map(square, range(8))), flush=True)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
"""


def _launch_driver(target: str, tmp_path: Path, ignore_sigint: bool = False
                   ) -> tuple[int, str, str, list[int]]:
    script = tmp_path / "driver.py"
    script.write_text(_LAUNCH_DRIVER, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]))
    with _sigint_as_in_a_terminal(ignore_sigint):
        proc = subprocess.run([sys.executable, str(script), target], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=60,
                              start_new_session=True, check=False)
    pids = sorted({int(w) for line in proc.stdout.splitlines()
                   if not line.startswith("result") for w in line.split()})
    return proc.returncode, proc.stdout, proc.stderr, pids


@linux_only
def test_ctrl_c_while_the_pool_launches_its_workers_interrupts(tmp_path: Path) -> None:
    """Deterministic form of the race the test above meets by chance: a SIGINT to the group
    between two worker starts is answered once the launch is over (it was ignored, and the
    pool ran to its end with exit 0); no worker prints a traceback or outlives the driver."""
    code, out, err, workers = _launch_driver("group", tmp_path)
    assert (code, err) == (130, "interrupted\n"), out
    assert "result" not in out
    assert workers and _gone(workers, 5) == []


@linux_only
def test_a_driver_started_with_sigint_ignored_keeps_ignoring_it(tmp_path: Path) -> None:
    """A run started as a background job (SIGINT inherited ignored: ``cmd &`` in a script,
    nohup) is not interrupted by a Ctrl-C to its group, during the launch or after: the pool
    does not turn an ignored SIGINT into an interrupt (the held one is answered by the
    previous disposition, here "ignore"), and the result is complete."""
    code, out, err, workers = _launch_driver("group", tmp_path, ignore_sigint=True)
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == f"result {sum(x * x for x in range(8))}"
    assert workers and _gone(workers, 5) == []


@linux_only
def test_a_worker_signalled_while_it_starts_ignores_it(tmp_path: Path) -> None:
    """A worker that receives SIGINT before its initializer ran (still starting Python) keeps
    it pending and then ignores it: it neither dies (a broken pool) nor prints a traceback."""
    code, out, err, workers = _launch_driver("worker", tmp_path)
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == f"result {sum(x * x for x in range(8))}"
    assert workers and _gone(workers, 5) == []


@linux_only
@two_cores
@pytest.mark.requires_spacy
def test_sigterm_ends_a_parallel_run_at_once(big, tmp_path: Path, reaper: list[int]) -> None:
    out = tmp_path / "out.m2"
    proc = _annotate(*big, out, "-j", "2")
    workers = _wait_workers(proc, 2)
    reaper.extend(workers)
    start = time.monotonic()
    proc.terminate()
    _, err = proc.communicate(timeout=20)
    assert time.monotonic() - start < 3, "the driver waited for its workers' tasks"
    assert proc.returncode == 143
    assert err == "gecscope annotate: terminated\n"
    assert _gone(workers, 5) == []
    assert not out.exists() and _leftovers(tmp_path) == []


@linux_only
@pytest.mark.requires_spacy
def test_jobs_above_the_cores_start_no_more_workers(big, tmp_path: Path,
                                                    reaper: list[int]) -> None:
    cores = default_jobs()  # the child inherits this process's CPU affinity
    asked = cores + 2
    proc = _annotate(*big, tmp_path / "out.m2", "-j", str(asked))
    workers = _wait_workers(proc, min(2, cores), settle=2.0)
    reaper.extend(workers)
    proc.terminate()
    _, err = proc.communicate(timeout=20)
    assert len(workers) == cores, workers
    assert (f"gecscope: warning: --jobs {asked} is more than the {cores} cores this process "
            f"may use; using {cores} worker processes") in err


@pytest.mark.parametrize("jobs", ["99999999999999999999", "10001"])
def test_absurd_jobs_are_refused(jobs: str, tmp_path: Path) -> None:
    proc = _gecscope("annotate", "-s", str(DEMO / "source.txt"), "-c", str(DEMO / "careful.txt"),
                     "--output", str(tmp_path / "out.m2"), f"--jobs={jobs}", cwd=tmp_path)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 64
    assert f"argument --jobs/-j: must be at most 10000 (0 = every core; more than the cores is " \
           f"capped at them), got {jobs[:27]}" in err
    assert "Traceback" not in err and not (tmp_path / "out.m2").exists()


def test_absurd_jobs_are_refused_by_the_api() -> None:
    from gecscope import EvalData, Hypothesis, evaluate
    from gecscope.errors import ConfigError

    data = EvalData.from_m2(DEMO / "references.m2")
    hyp = Hypothesis.from_file(DEMO / "careful.txt")
    with pytest.raises(ConfigError, match="from 0 .* to 10000"):
        evaluate("gleu", data, hyp, jobs=10**20)
    # not whole numbers, for either backend (False and 0.0 were taken as 0 for Ray, 1.0 as
    # one process); the Ray backend refuses them before starting anything
    for backend in ("local", "ray"):
        for jobs in (False, 0.0, 1.0, -1):
            with pytest.raises(ConfigError, match="whole number"):
                evaluate("gleu", data, hyp, jobs=jobs, backend=backend)  # type: ignore[arg-type]


# ------------------------------------------------------------------------- Ray --address


@pytest.fixture
def silent_server() -> Iterator[tuple[int, threading.Event]]:
    """A TCP port that accepts connections and never answers (a firewall's tarpit, a wrong
    service); the event is set once something connected. On every interface: Ray itself
    replaces 127.0.0.1 by this machine's address."""
    server = socket.create_server(("", 0))
    connected = threading.Event()
    held: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            held.append(conn)
            connected.set()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], connected
    finally:
        stop.set()
        thread.join(2)
        for conn in held:
            conn.close()
        server.close()


def _free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as s:
        return int(s.getsockname()[1])


def _ray_annotate(address: str, out: Path) -> subprocess.Popen[str]:
    pytest.importorskip("ray", reason="the Ray backend needs the ray extra")
    return _annotate(DEMO / "source.txt", DEMO / "careful.txt", out, "--backend", "ray",
                     "--address", address)


def test_ray_address_where_nothing_listens_fails_within_seconds(tmp_path: Path) -> None:
    address = f"127.0.0.1:{_free_port()}"
    out = tmp_path / "out.m2"
    start = time.monotonic()
    proc = _ray_annotate(address, out)
    try:
        _, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert time.monotonic() - start < 10
    assert proc.returncode == 69
    assert f"--address {address}: no Ray cluster answers there (Connection refused)" in err
    assert "Traceback" not in err
    assert not out.exists() and _leftovers(tmp_path) == []


def test_ray_address_of_another_service_fails_within_seconds(silent_server, tmp_path: Path
                                                             ) -> None:
    port, _ = silent_server
    out = tmp_path / "out.m2"
    start = time.monotonic()
    proc = _ray_annotate(f"127.0.0.1:{port}", out)
    try:
        _, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert time.monotonic() - start < 10
    assert proc.returncode == 69
    assert "is not a Ray cluster" in err and "Traceback" not in err
    assert not out.exists() and _leftovers(tmp_path) == []


def test_sigterm_while_joining_a_ray_cluster(silent_server, tmp_path: Path) -> None:
    port, connected = silent_server
    out = tmp_path / "out.m2"
    proc = _ray_annotate(f"127.0.0.1:{port}", out)
    try:
        assert connected.wait(15), "gecscope never tried the address"
        start = time.monotonic()
        proc.terminate()
        _, err = proc.communicate(timeout=5)
        assert time.monotonic() - start < 3
    finally:
        proc.kill()
    assert proc.returncode == 143
    assert err == "gecscope annotate: terminated\n"
    assert not out.exists() and _leftovers(tmp_path) == []


def test_malformed_ray_address_is_a_usage_error(tmp_path: Path) -> None:
    out = tmp_path / "out.m2"
    proc = _ray_annotate("127.0.0.1:99999", out)
    try:
        _, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert proc.returncode == 64
    assert err == ("gecscope annotate: error: --address '127.0.0.1:99999' is not a Ray cluster "
                   "address: expected auto, HOST:PORT (the head node's GCS port, 6379 by "
                   "default) or ray://HOST:PORT\n")
    assert not out.exists() and _leftovers(tmp_path) == []


@pytest.mark.parametrize("address", ["127.0.0.1", ":6379", "host:port", "ray://host"])
def test_malformed_ray_addresses(address: str) -> None:
    pytest.importorskip("ray", reason="the Ray backend needs the ray extra")
    from gecscope.errors import ConfigError
    from gecscope.execution.ray import check_address

    with pytest.raises(ConfigError, match=f"--address '{address}' is not a Ray cluster address"):
        check_address(address)


def test_a_host_lookup_that_hangs_fails_within_seconds(monkeypatch) -> None:
    """A resolver that does not answer (no time-out of its own) must not hold the address
    check past its deadline. No resolver here hangs, so the lookup is made to sleep."""
    import socket
    import time

    from gecscope.execution import ray as ray_module

    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: time.sleep(30))
    monkeypatch.setattr(ray_module, "PROBE_TIMEOUT", 0.5)
    start = time.monotonic()
    with pytest.raises(ray_module.ClusterUnavailable, match="looking up 'head.example' took"):
        ray_module.check_address("head.example:6379")
    assert time.monotonic() - start < 3


# ------------------------------------------------------------------- Ray actors (a real cluster)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A local Ray instance of two CPUs, as tests/unit/test_ray_backend.py starts."""
    ray = pytest.importorskip("ray", reason="the Ray backend needs the ray extra")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.mark.slow
def test_the_address_check_accepts_a_real_ray_cluster(cluster) -> None:
    from gecscope.execution.ray import check_address

    check_address(cluster.get_runtime_context().gcs_address)


@pytest.mark.slow
@pytest.mark.requires_spacy
def test_ray_actors_no_more_than_the_cluster_cpus(cluster, capsys) -> None:
    from gecscope.execution import ray as ray_backend

    _, actors = ray_backend.connect(None, 12)
    assert actors == 2
    assert ("gecscope: warning: --jobs 12 is more than the 2 CPUs of the Ray cluster; using 2 "
            "actors") in capsys.readouterr().err
    assert ray_backend.connect(None, 0)[1] == 2  # 0: one per CPU
    assert capsys.readouterr().err == ""


@pytest.mark.slow
@pytest.mark.requires_spacy
def test_ray_actors_no_more_than_the_tasks(cluster) -> None:
    from gecscope.execution.chunks import pool_job
    from gecscope.execution.executors import Ray

    # one job for up to two actors: one actor, holding one of the two CPUs
    results = Ray(2).map(pool_job, iter([(False, "rules", ("echo", "one job"))]), in_flight=8)
    assert next(results) == "one job"
    free = []
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:  # Ray's view of the resources lags a little
        free.append(cluster.available_resources().get("CPU", 0.0))
        time.sleep(0.1)
    assert min(free) == 1.0, free
    assert list(results) == []


def test_an_interrupt_while_reading_ends_ordered_map_at_once() -> None:
    """An input error waits for the submitted items' results (a resumable run keeps them); an
    interrupt met while reading the input does not."""
    from concurrent.futures import ThreadPoolExecutor

    from gecscope.execution.pool import ordered_map

    def items(error: BaseException) -> Iterator[int]:
        yield 1
        yield 2
        raise error

    with ThreadPoolExecutor(2) as pool:
        got: list[int] = []
        with pytest.raises(ValueError, match="line 3"):
            got.extend(ordered_map(pool, abs, items(ValueError("line 3")), in_flight=4))
        assert got == [1, 2]
        for interrupt in (KeyboardInterrupt(), SystemExit(143)):
            results = ordered_map(pool, abs, items(interrupt), in_flight=4)
            with pytest.raises(type(interrupt)):
                next(results)
