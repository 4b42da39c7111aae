"""The Ray backend (``--backend ray``): annotation and scoring on a Ray cluster.

Work goes to a pool of stateful actors: each actor loads spaCy (and any metric's model) once,
keeps it for every task it is given, and takes the next task as soon as it has finished one.
Tasks are the same as those of the local process pool (:mod:`gecscope.execution.plan`): shards of
sentence pairs for annotation, (metric, system) pairs or sentence ranges of them for scoring
(the corpus score aggregated on the driver from the ranges' statistics); results come back in
input order, so the output is identical to a single process's. The driver streams the input
shard by shard and keeps at most a few tasks per actor in flight, so its memory does not grow
with the corpus.

``address`` is ``None`` (start a local Ray instance with one CPU per core this process may
use), ``"auto"`` (the cluster this machine belongs to, e.g. after ``ray start --head``) or
``HOST:PORT``, checked before Ray is given it (:func:`check_address`: fails in seconds where
Ray would retry for minutes). Never more actors than the cluster's CPUs, nor than the tasks
given them. On an existing cluster every node needs gecscope and its spaCy model installed,
or a runtime environment that installs them (see docs/scale.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from gecscope._optional import require
from gecscope.errors import ConfigError, GecscopeError

if TYPE_CHECKING:
    from gecscope.execution.resume import PartCheck


class ClusterUnavailable(GecscopeError):
    """No Ray cluster answers at ``--address`` (exit 69, sysexits' EX_UNAVAILABLE: the same
    command may work once the cluster is up); a malformed address is a ConfigError (64)."""

    exit_code = 69


#: Seconds to wait for the cluster's address to accept a connection, then to answer it.
PROBE_TIMEOUT = 3.0
#: What a client sends first on an HTTP/2 connection (RFC 9113 3.4), then an empty SETTINGS
#: frame; a gRPC server (Ray's GCS, or its client server for ``ray://``) answers with a
#: SETTINGS frame (type 4).
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])


def check_address(address: str) -> None:
    """Refuse within seconds an ``--address`` where no Ray cluster answers: given one, Ray
    retries for minutes inside C++ code, where SIGTERM is not handled, and then ends the
    process without cleaning up. A malformed address is a :class:`ConfigError`; nothing
    listening there, an unknown host, or a server that does not speak gRPC is
    :class:`ClusterUnavailable`. ``auto`` is checked at the address Ray finds for it; other
    ``scheme://`` addresses than ``ray://``, and clusters using TLS, are left to Ray."""
    import os
    import socket

    target: str | None = address
    if address in ("auto", "local"):
        try:
            from ray._private.services import canonicalize_bootstrap_address

            target = canonicalize_bootstrap_address(address)
        except Exception:  # noqa: BLE001 - private API, or no cluster: ray.init says so
            return
        if target is None:
            return
    assert target is not None
    if target.startswith("ray://"):
        target = target[len("ray://"):]
    elif "://" in target:
        return
    host, sep, port = target.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"--address {address!r} is not a Ray cluster address: expected auto, "
                          "HOST:PORT (the head node's GCS port, 6379 by default) or "
                          "ray://HOST:PORT")
    where = f"--address {address}: no Ray cluster answers there"
    hint = ("; start one with `ray start --head` on that machine, or check the host and port "
            "given to --address")
    try:
        sock = socket.create_connection(_resolved(host, int(port), address),
                                        timeout=PROBE_TIMEOUT)
    except socket.gaierror:
        raise ClusterUnavailable(f"--address {address}: unknown host {host!r}") from None
    except OSError as exc:
        reason = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise ClusterUnavailable(f"{where} ({reason}){hint}") from None
    if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
        sock.close()
        return
    with sock:
        try:
            sock.sendall(_H2_PREFACE)
            head = b""
            while len(head) < 9:
                got = sock.recv(9 - len(head))
                if not got:
                    break
                head += got
        except OSError:
            head = b""
    if len(head) < 9 or head[3] != 4:
        raise ClusterUnavailable(f"{where} (a server accepts connections at that port but it "
                                 f"is not a Ray cluster: it does not speak gRPC){hint}")


def _resolved(host: str, port: int, address: str) -> tuple[str, int]:
    """``(host, port)`` with the host's first address, looked up under :data:`PROBE_TIMEOUT`
    (a lookup has no time-out of its own, and a slow resolver would hold the check up): on a
    daemon thread, left behind if it hangs."""
    import socket
    import threading

    found: list[Any] = []

    def lookup() -> None:
        try:
            found.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][4][0])
        except OSError as exc:  # gaierror included: raised by the caller's thread
            found.append(exc)

    worker = threading.Thread(target=lookup, daemon=True)
    worker.start()
    worker.join(PROBE_TIMEOUT)
    if not found:
        raise ClusterUnavailable(f"--address {address}: looking up {host!r} took more than "
                                 f"{PROBE_TIMEOUT:.0f} s")
    if isinstance(found[0], OSError):
        raise found[0]
    return str(found[0]), port


def connect(address: str | None, actors: int) -> tuple[Any, int]:
    """``ray``, initialised (joins ``address`` or starts a local instance with one CPU per
    core this process may use), and the number of actors to use: ``actors`` (``0``: one per
    CPU of the cluster) but never more than the cluster's CPUs (with a warning, as for
    processes: :func:`gecscope.execution.pool.capped_jobs`). Ray's SIGTERM handler (which would end
    the process without the callers' clean-up) is replaced again by the one set before, and
    a SIGTERM it received while Ray started is given to that one."""
    import signal
    import threading

    from gecscope.execution.pool import capped_jobs, default_jobs

    ray = require("ray", "ray", "the Ray backend")
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "configure_logging": False}
        if address is None:
            kwargs["num_cpus"] = default_jobs()
        else:
            check_address(address)
            kwargs["address"] = address
        main = threading.current_thread() is threading.main_thread()
        previous = signal.getsignal(signal.SIGTERM) if main else None
        try:
            ray.init(**kwargs)
        except SystemExit as exc:  # SIGTERM met Ray's own handler (sys.exit(signum))
            if exc.code == signal.SIGTERM and callable(previous):
                signal.signal(signal.SIGTERM, previous)
                previous(signal.SIGTERM, None)  # the caller's answer to it (raises)
            raise
        except ValueError as exc:
            raise ConfigError(f"cannot use the Ray cluster at {address or 'local'}: "
                              f"{exc}") from None
        except (ConnectionError, RuntimeError) as exc:
            raise ClusterUnavailable(f"cannot connect to the Ray cluster at "
                                     f"{address or 'local'}: {exc}") from None
        finally:
            if callable(previous):  # a handler of ours (the CLI's, atomic_write's)
                signal.signal(signal.SIGTERM, previous)
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    return ray, capped_jobs(actors, cpus, "actors", "CPUs of the Ray cluster")


class _Worker:
    """A Ray actor: started with ``initializer(*initargs)`` (an evaluation's references,
    metrics and systems; nothing for annotation, whose spaCy is loaded by the first job and
    kept), then runs ``fn(task)`` for every ``(fn, task)`` it is given."""

    def __init__(self, initializer: Callable[..., None] | None, *initargs: Any) -> None:
        if initializer is not None:
            initializer(*initargs)

    def run(self, job: tuple[Callable[[Any], Any], Any]) -> Any:
        fn, task = job
        return fn(task)


def _ordered(ray: Any, make: Callable[[], Any], limit: int, method: str, items: Iterable[Any],
             in_flight: int) -> Iterator[Any]:
    """Results of ``actor.method(item)`` in input order, with at most ``in_flight`` items
    sent but not yet yielded (a streaming input keeps the driver's memory bounded), on at
    most ``limit`` actors made by ``make`` when an item finds none idle (so never more actors,
    each with its models, than there are items to give them).

    An actor takes the next item as soon as it has finished its last one, whatever the order
    results are yielded in (:class:`ray.util.ActorPool` frees an actor only when its result
    is consumed in order, so one long task left the other actors idle behind it). When
    reading the input fails, the results of the items already sent are still delivered
    before the error (so a resumable run keeps their shards; an interrupt is raised at once);
    the actors are released in every case."""
    actors: list[Any] = []
    idle: list[Any] = []
    running: dict[Any, tuple[int, Any]] = {}  # future -> (item index, actor)
    ready: dict[int, Any] = {}
    sent = yielded = 0
    failure: BaseException | None = None
    ended = False
    it = iter(items)

    def dispatch() -> None:
        nonlocal sent, failure, ended
        while not ended and (idle or len(actors) < limit) and sent - yielded < in_flight:
            try:
                item = next(it)
            except StopIteration:
                ended = True
                return
            except Exception as exc:  # noqa: BLE001 - raised after the sent are delivered
                failure, ended = exc, True
                return
            if not idle:  # a new actor, only now that it has an item to work on
                actors.append(make())
                idle.append(actors[-1])
            actor = idle.pop()
            running[getattr(actor, method).remote(item)] = (sent, actor)
            sent += 1

    try:
        while True:
            dispatch()
            if yielded in ready:
                yield ready.pop(yielded)
                yielded += 1
                continue
            if not running:
                break
            done, _ = ray.wait(list(running), num_returns=1)
            finished = []
            for future in done:
                index, actor = running.pop(future)
                idle.append(actor)  # free at once: its result waits in the object store
                finished.append((index, future))
            dispatch()  # so the actors work while this process deserialises the results
            for index, future in finished:
                ready[index] = ray.get(future)
        if failure is not None:
            raise failure
    finally:
        for actor in actors:
            ray.kill(actor)


def run_tasks(fn: Callable[[Any], Any], tasks: Iterable[Any], *, actors: int,
              address: str | None = None, initializer: Callable[..., None] | None = None,
              initargs: tuple[Any, ...] = (), in_flight: int | None = None) -> Iterator[Any]:
    """``fn(task)`` for every task, in order, on at most ``actors`` Ray actors each started
    with ``initializer(*initargs)`` (every argument put in Ray's object store once), with at
    most ``in_flight`` tasks (default: all) sent and not yet yielded
    (:class:`gecscope.execution.executors.Ray`)."""
    ray, actors = connect(address, actors)
    cls = ray.remote(num_cpus=1)(_Worker)
    refs = [ray.put(arg) for arg in initargs]
    if in_flight is None:
        tasks = list(tasks)
        in_flight = max(1, len(tasks))
    yield from _ordered(ray, lambda: cls.remote(initializer, *refs), actors, "run",
                        ((fn, task) for task in tasks), in_flight)


# --------------------------------------------------------------------------- sharded corpora
# A corpus already cut into shard files (as large corpora usually are, often on object
# storage) is annotated with Ray Data: one row per shard, mapped by a pool of stateful actors
# (each loads spaCy once) that read their shard's files and write its M2 themselves, through
# any file system pyarrow supports (local paths, file://, s3://, gs://, hdfs://, ...). The
# driver handles file names only, so it needs neither the data nor the bandwidth.


def _filesystem(uri: str) -> tuple[Any, str]:
    """The pyarrow file system of ``uri`` and the path on it (a plain path is local)."""
    import os

    pafs = require("pyarrow.fs", "ray", "sharded annotation on Ray")
    if "://" not in uri:
        return pafs.LocalFileSystem(), os.path.abspath(uri)
    try:
        return pafs.FileSystem.from_uri(uri)
    except (ValueError, OSError) as exc:
        raise ConfigError(f"{uri}: not a file system Ray can use ({exc})") from None


def _uri(template: str, path: str) -> str:
    """``path`` on the file system of ``template``, written the way ``template`` is."""
    if "://" not in template:
        return path
    scheme = template.split("://", 1)[0]
    return f"{scheme}://{path}" if scheme != "file" else f"file://{path}"


def expand_shards(pattern: str) -> list[str]:
    """The files matching ``pattern`` (wildcards in its last component), sorted by name; a
    pattern without wildcards is one file."""
    import fnmatch
    import glob
    import posixpath

    import pyarrow.fs as pafs

    fs, path = _filesystem(pattern)
    if not glob.has_magic(path):
        return [pattern]
    folder, name = posixpath.split(path)
    if glob.has_magic(folder):
        raise ConfigError(f"{pattern}: wildcards are allowed in the file name only")
    try:
        infos = fs.get_file_info(pafs.FileSelector(folder))
    except (FileNotFoundError, OSError) as exc:
        raise ConfigError(f"{pattern}: cannot list {folder} ({exc})") from None
    return sorted(_uri(pattern, i.path) for i in infos
                  if i.type == pafs.FileType.File
                  and fnmatch.fnmatchcase(posixpath.basename(i.path), name))


def plan_shards(source: str, corrections: Sequence[str], output: str) -> list[dict[str, str]]:
    """One row per source shard: its file, its correction files (the k-th match of every
    ``corrections`` pattern, in name order) and the M2 file it goes to in the folder
    ``output`` (named after the source shard)."""
    import json
    import posixpath

    sources = expand_shards(source)
    if not sources:
        raise ConfigError(f"no file matches {source}")
    cors = [expand_shards(c) for c in corrections]
    for pattern, files in zip(corrections, cors, strict=True):
        if len(files) != len(sources):
            raise ConfigError(f"{pattern} matches {len(files)} file(s) but {source} matches "
                              f"{len(sources)}: give one correction shard per source shard")
    rows, names = [], set()
    for k, src in enumerate(sources):
        stem = posixpath.basename(_filesystem(src)[1]).rsplit(".", 1)[0]
        if stem in names:
            raise ConfigError(f"two source shards are named {stem}: their M2 would clash")
        names.add(stem)
        rows.append({"source": src, "corrections": json.dumps([c[k] for c in cors]),
                     "output": posixpath.join(output, f"{stem}.m2")})
    return rows


class RemoteInputError(GecscopeError):
    """An error an actor met in a shard, re-raised by the driver with its exit code."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def _write_atomic(fs: Any, path: str, data: bytes) -> None:
    """``data`` written to ``path`` on ``fs`` under a temporary name, then renamed: the file
    exists only once it is complete."""
    import uuid

    tmp = f"{path}.tmp-{uuid.uuid4().hex}"
    try:
        with fs.open_output_stream(tmp) as fh:
            fh.write(data)
        fs.move(tmp, path)
    except BaseException:
        try:
            fs.delete_file(tmp)
        except OSError:
            pass
        raise


def _read_bytes(fs: Any, path: str) -> bytes | None:
    """The bytes of the file ``path`` on ``fs``, or ``None`` when there is none."""
    import pyarrow.fs as pafs

    if fs.get_file_info(path).type != pafs.FileType.File:
        return None
    with fs.open_input_stream(path) as fh:
        return bytes(fh.read())


class _ShardAnnotator:
    """A Ray Data actor: annotates whole shard files and writes their M2 (atomically: a
    temporary name, then a rename), so a shard's output exists only once it is complete.

    With ``parts`` (``--resume``: the folder ``OUTPUT.parts``) each M2 gets a check record
    there (:class:`~gecscope.execution.resume.PartCheck`: the digest of the shard's input
    lines and options, and of the M2 text); an existing M2 is kept only when it matches its
    record, otherwise it is annotated again with a note saying why."""

    def __init__(self, lev: bool, merge: str, parts: str | None) -> None:
        from gecscope.alignment.errant import ErrantAnnotator

        self.annotator = ErrantAnnotator(lev=lev, merge=merge)
        self.parts = parts
        self.lev, self.merge = lev, merge

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {"output": [], "sentences": [], "kept": [], "error": [],
                                     "code": [], "note": []}
        for src, cors, dest in zip(batch["source"], batch["corrections"], batch["output"],
                                   strict=True):
            n, kept, error, code, note = 0, False, "", 0, ""
            try:
                n, kept, note = self._one(str(src), str(cors), str(dest))
            except GecscopeError as exc:
                error, code = str(exc), exc.exit_code
            except OSError as exc:
                error, code = f"{dest}: {exc}", 73
            for key, value in zip(out, (str(dest), n, kept, error, code, note), strict=True):
                out[key].append(value)
        return out

    def _read(self, uri: str) -> list[tuple[str, ...]]:
        from gecscope.errors import FormatError
        from gecscope.formats.base import decode_text, split_lines

        fs, path = _filesystem(uri)
        try:
            with fs.open_input_stream(path) as fh:
                data = fh.read()
        except FileNotFoundError:
            raise FormatError("file not found", uri) from None
        return [tuple(line.split()) for line in split_lines(decode_text(data, uri))]

    def _one(self, src: str, cors: str, dest: str) -> tuple[int, bool, str]:
        """Annotate one shard (or keep its M2): (sentences, kept, note)."""
        import json
        import posixpath

        from gecscope.errors import LengthMismatchError
        from gecscope.execution.resume import PartCheck, annotation_options, shard_digest
        from gecscope.formats.m2 import format_sentence

        fs, path = _filesystem(dest)
        sources = self._read(src)
        corrections = []
        for cor in json.loads(cors):
            lines = self._read(cor)
            if len(lines) != len(sources):
                raise LengthMismatchError(len(sources), len(lines), cor, "lines", src)
            corrections.append(lines)
        note = ""
        if self.parts is not None:
            name = posixpath.basename(path)
            digest = shard_digest([sources, *corrections],
                                  annotation_options(self.lev, self.merge, 1 + len(corrections)))
            check = PartCheck(name.removesuffix(".m2"), 1, len(sources), digest)
            record_fs, record = _filesystem(posixpath.join(self.parts, f"{name}.check"))
            why = self._kept(fs, path, record_fs, record, check)
            if why is None:
                return len(sources), True, ""
            if why:
                note = f"{dest}: discarded, {why}; annotating {src} again"
        corpus = self.annotator.annotate_corpus(sources, corrections)
        text = "".join(format_sentence(s) for s in corpus).encode("utf-8")
        _write_atomic(fs, path, text)
        if self.parts is not None:
            _write_atomic(record_fs, record, check.record(text))
        return len(sources), False, note

    def _kept(self, fs: Any, path: str, record_fs: Any, record: str,
              check: PartCheck) -> str | None:
        """``None`` when the M2 at ``path`` passes its check record, ``""`` when there is no
        M2, otherwise why it is not kept."""
        m2 = _read_bytes(fs, path)
        if m2 is None:
            return ""
        line = _read_bytes(record_fs, record)
        if line is None:
            return (f"it has no check record {record} (not written by a --resume run of "
                    "this gecscope)")
        return check.problem(line.partition(b"\n")[0], m2)


def _parts_folder(output: str) -> str:
    """``OUTPUT.parts`` beside the output folder (created): the M2 files' check records."""
    import pyarrow.fs as pafs

    from gecscope.errors import OutputError

    parts = f"{output.rstrip('/')}.parts"
    fs, folder = _filesystem(parts)
    try:
        if fs.get_file_info(folder).type == pafs.FileType.File:
            raise OutputError("exists but is not a folder; --resume keeps the shards' check "
                              "records in a folder of that name: move or remove it", parts)
        fs.create_dir(folder, recursive=True)
    except OSError as exc:
        raise OutputError(f"cannot create the folder of the shards' check records "
                          f"(--resume): {exc}", parts) from None
    return parts


def annotate_shards(rows: Sequence[dict[str, str]], output: str, *, actors: int,
                    address: str | None = None,
                    lev: bool = False, merge: str = "rules", resume: bool = False,
                    progress: Any = None, note: Any = None) -> tuple[int, int]:
    """Annotate every shard of :func:`plan_shards` on a Ray Data actor pool; returns
    (sentences in every shard, shards kept from an earlier run with ``resume``); ``progress``
    is called once per shard. With ``resume`` the M2 files' check records are kept in the
    folder ``OUTPUT.parts`` and an M2 is kept only when it still matches its shard's input
    and its record (otherwise it is annotated again and ``note``, by default a warning, is
    told why). Every shard is attempted; the first error met is raised afterwards (the
    finished shards stay written)."""
    import logging

    _, actors = connect(address, actors)
    rd = require("ray.data", "ray", "sharded annotation on Ray")

    logging.getLogger("ray.data").setLevel(logging.ERROR)
    ctx = rd.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.execution_options.preserve_order = True
    fs, folder = _filesystem(output)
    try:
        fs.create_dir(folder, recursive=True)
    except OSError as exc:
        from gecscope.errors import OutputError

        raise OutputError(f"cannot create the output folder ({exc})", output) from None
    parts = _parts_folder(output) if resume else None
    ds = rd.from_items(list(rows), override_num_blocks=len(rows))
    results = ds.map_batches(_ShardAnnotator, fn_constructor_args=(lev, merge, parts),
                             batch_size=1, num_cpus=1, batch_format="numpy",
                             compute=rd.ActorPoolStrategy(size=max(1, min(actors, len(rows)))))
    sentences = kept = 0
    first: RemoteInputError | None = None
    for row in results.iter_rows():
        if progress is not None:
            progress(1)
        if row["note"]:
            if note is None:
                from gecscope.execution.resume import note_warning as note
            note(str(row["note"]))
        if row["error"]:
            first = first or RemoteInputError(str(row["error"]), int(row["code"]))
            continue
        kept += bool(row["kept"])
        sentences += int(row["sentences"])
    if first is not None:
        raise first
    return sentences, kept
