"""Every Python snippet of the API docs runs (in order, one namespace per page); every shell
example of the README and the quick start parses and names files that exist."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = ["python-api.md", "adding-a-metric.md"]


def snippets(page: str) -> list[str]:
    text = (DOCS / page).read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


@pytest.mark.parametrize("page", PAGES)
def test_docs_snippets_run(page: str, capsys: pytest.CaptureFixture[str],
                           monkeypatch: pytest.MonkeyPatch) -> None:
    from gecscope import registry

    # adding-a-metric.md registers a metric: undone afterwards, so no other test of this
    # process sees it (test_metric_columns_doc checks every registered metric)
    monkeypatch.setattr(registry, "_METRICS", dict(registry._METRICS))
    pytest.importorskip("numpy", reason="the snippets use the stats extra")
    pytest.importorskip("spacy", reason="the snippets use the spacy extra")
    blocks = snippets(page)
    assert len(blocks) >= 5
    # a real module, so that dataclasses and pickling find the snippets' classes
    module = types.ModuleType(f"docs_{page.replace('-', '_').removesuffix('.md')}")
    sys.modules[module.__name__] = module
    try:
        for i, block in enumerate(blocks, 1):
            try:
                exec(compile(block, f"{page}#snippet{i}", "exec"), module.__dict__)  # noqa: S102
            except Exception as exc:  # noqa: BLE001 - reported with the snippet
                pytest.fail(f"{page} snippet {i} failed: {exc!r}\n{block}")
    finally:
        sys.modules.pop(module.__name__, None)
    out = capsys.readouterr().out
    assert "Traceback" not in out and out.strip()


def test_every_metric_has_its_paper_and_gecscope_a_citation() -> None:
    # there was no citation file and no table of the metrics with their papers
    from gecscope.registry import get_metric, list_metrics

    shipped = [m for m in list_metrics()  # not the plug-ins other tests register
               if get_metric(m).__module__.startswith("gecscope.metrics")]
    root = Path(__file__).resolve().parents[2]
    # the metrics table comes before the per-metric column tables
    table = (root / "docs" / "metrics.md").read_text(encoding="utf-8").split("\n## ")[0]
    listed = re.findall(r"^\| `([a-z0-9_]+)` \|", table, flags=re.MULTILINE)
    assert sorted(listed) == sorted(shipped)
    for row in (ln for ln in table.splitlines() if re.match(r"\| `[a-z0-9_]+` \|", ln)):
        assert re.search(r"\(\d{4}\)", row), row  # a paper with its year
    cff = (root / "CITATION.cff").read_text(encoding="utf-8")
    assert cff.startswith("cff-version: 1.2.0") and "\ntitle: " in cff and "\nauthors:" in cff
    version = re.search(r'^version = "(.+)"', (root / "pyproject.toml").read_text(),
                        flags=re.MULTILINE)
    assert version and f"\nversion: {version.group(1)}\n" in cff


# The shell examples of the README and the quick start name real files: every gecscope command
# parses, and every input it names exists in ../shared/data, is written by an earlier command
# of the page, or is one of the reader's own files below (the quick start's `--hyp AMU` named
# no file: the system outputs are in conll14/submissions/).
ROOT = DOCS.parent
#: page -> the folder its relative paths start from (the quick start's are "as in
#: ../shared/data"; the README's are relative to the repository root)
SHELL_PAGES = {"README.md": None, "docs/quickstart.md": "data"}
#: options naming an input file or folder (argparse dests)
INPUT_DESTS = ("ref", "source", "hyp", "cor", "retype", "para", "gold_dir", "data_dir", "m2",
               "submissions", "seeda", "gjg15", "input")
OUTPUT_DESTS = ("output", "html", "json_out", "output_dir")
#: the reader's own files in the examples
READERS_FILES = {"source.txt", "system.txt", "ref0.txt", "ref1.txt", "essay.txt", "-"}


def shell_commands(page: str, data: Path) -> list[list[str]]:
    """The gecscope command lines of a page's bash blocks, words expanded as a shell would
    ($VAR, {a,b}, *), with ``../shared/data`` standing for ``data``."""
    import glob
    import shlex

    text = (ROOT / page).read_text(encoding="utf-8")
    env: dict[str, str] = {}
    commands: list[list[str]] = []

    def expand(word: str) -> list[str]:
        word = re.sub(r"\$(\w+)", lambda m: env[m.group(1)], word)
        if word.startswith("../shared/data"):
            word = str(data) + word[len("../shared/data"):]
        braces = re.search(r"\{([^{}]*,[^{}]*)\}", word)
        if braces:
            return [w for alt in braces.group(1).split(",")
                    for w in expand(word[:braces.start()] + alt + word[braces.end():])]
        return sorted(glob.glob(word)) or [word] if "*" in word else [word]

    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.DOTALL):
        for line in block.replace("\\\n", " ").splitlines():
            command: list[str] = []
            for word in [*shlex.split(line, comments=True), "&&"]:
                if word in ("&&", "|", ";"):
                    if len(command) == 1 and re.match(r"^\w+=", command[0]):
                        name, value = command[0].split("=", 1)
                        env[name] = value
                    elif command[:1] == ["gecscope"]:
                        commands.append(command)
                    command = []
                else:
                    command.extend(expand(word) if command[:1] == ["gecscope"] else [word])
    return commands


@pytest.mark.parametrize("page", sorted(SHELL_PAGES))
def test_shell_examples_parse_and_name_existing_files(page: str, shared_data: Path) -> None:
    from gecscope.cli.main import build_parser

    base = shared_data if SHELL_PAGES[page] == "data" else ROOT
    commands = shell_commands(page, shared_data)
    assert len(commands) >= 5
    written: set[Path] = set()
    for argv in commands:
        shown = " ".join(argv)
        try:
            args = build_parser().parse_args(argv[1:])
        except SystemExit:
            pytest.fail(f"{page}: the command line does not parse: {shown}")
        for dest in INPUT_DESTS:
            value = getattr(args, dest, None)
            for path in value if isinstance(value, list) else [value]:
                if not isinstance(path, str) or path in READERS_FILES:
                    continue
                full = (base / path).resolve()
                assert full.exists() or full in written, f"{page}: no {path}: {shown}"
        for pair in getattr(args, "pair", None) or []:
            for passage in pair.split(":"):
                assert (base / args.gold_dir / f"{passage}.xml").is_file(), shown
        for dest in OUTPUT_DESTS:
            if isinstance(getattr(args, dest, None), str):
                written.add((base / getattr(args, dest)).resolve())
