"""Plain text: one sentence per line, tokens separated by spaces."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from gecscope.errors import LengthMismatchError
from gecscope.formats.base import PathLike, atomic_write, iter_lines, read_text, split_lines
from gecscope.types import Tokens


def read_lines(path: PathLike, *, expected: int | None = None,
               expected_from: PathLike | None = None) -> list[str]:
    """Lines of a text file with line ends and surrounding whitespace removed.

    Empty lines are kept (they are empty sentences), so line ``i`` is always sentence ``i``.
    With ``expected``, a different number of lines raises :class:`LengthMismatchError`.
    """
    lines = [ln.strip() for ln in split_lines(read_text(path))]
    if expected is not None and len(lines) != expected:
        raise LengthMismatchError(expected, len(lines), path, "lines", expected_from)
    return lines


def read_tokens(path: PathLike, *, expected: int | None = None,
                expected_from: PathLike | None = None,
                tokenise: Callable[[str], Tokens] | None = None) -> list[Tokens]:
    """Sentences of a text file (see :func:`read_lines`), split on whitespace or by
    ``tokenise`` (e.g. a :class:`~gecscope.languages.Language`'s tokeniser)."""
    fn = tokenise or _split
    return [fn(ln) for ln in read_lines(path, expected=expected, expected_from=expected_from)]


def _split(text: str) -> Tokens:
    return tuple(text.split())


def iter_token_shards(paths: Sequence[PathLike], size: int) -> Iterator[list[list[Tokens]]]:
    """Parallel files read together, ``size`` lines at a time: one list of token tuples per
    file in each shard. Memory stays flat however long the files are; files of different
    lengths raise :class:`LengthMismatchError` (naming the shorter one) when it is reached."""
    iters = [iter(iter_lines(p)) for p in paths]
    done = 0
    while True:
        shard: list[list[Tokens]] = [[] for _ in paths]
        for _ in range(size):
            rows = [next(it, None) for it in iters]
            if all(r is None for r in rows):
                break
            if any(r is None for r in rows):
                short = next(i for i, r in enumerate(rows) if r is None)
                longer = next(i for i, r in enumerate(rows) if r is not None)
                more = done + sum(1 for _ in iters[longer]) + 1
                raise LengthMismatchError(more, done, paths[short], "lines", paths[longer])
            for k, r in enumerate(rows):
                shard[k].append(tuple(r.split()))  # type: ignore[union-attr]
            done += 1
        if not shard[0]:
            return
        yield shard


def split_tokens(text: str, path: PathLike | None = None, *, expected: int | None = None,
                 expected_from: PathLike | None = None,
                 tokenise: Callable[[str], Tokens] | None = None) -> list[Tokens]:
    """Whitespace-tokenised sentences of already-read text (as :func:`read_tokens`), so a
    file that was read once to sniff its format is not read again."""
    lines = split_lines(text)
    if expected is not None and len(lines) != expected:
        raise LengthMismatchError(expected, len(lines), path, "lines", expected_from)
    fn = tokenise or _split
    return [fn(ln) for ln in lines]


def write_lines(path: PathLike, sentences: Iterable[str | Sequence[str]]) -> None:
    """Write one sentence per line (token sequences are joined by spaces), atomically."""

    def chunks() -> Iterable[str]:
        for s in sentences:
            yield (s if isinstance(s, str) else " ".join(s)) + "\n"

    atomic_write(path, chunks())
