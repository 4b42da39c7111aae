"""``gecscope correct``: whole-sentence correction by round-trip translation.

    gecscope correct --input F                                  # Apertium pivots, product
    gecscope correct --input F --pivots spa,cat --method greedy # no language model needed
    gecscope correct --input F --method all --output-dir out/   # one file per method
    gecscope correct --input F --backend http:http://127.0.0.1:5000 --pivots es,fr
    gecscope correct --input F --backend llm:http://127.0.0.1:8080/v1 --llm-model NAME
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gecscope.cli._common import add_output_argument
from gecscope.errors import ConfigError


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "correct",
        help="correct sentences by round-trip translation (Madnani et al. 2012)",
        description="Translate each sentence into pivot languages and back, merge the round "
                    "trips into a TERp lattice over the original and read a correction off it.")
    p.add_argument("--input", "-i", required=True, help="sentences, one per line ('-' = stdin)")
    add_output_argument(p, "output file (one correction per line; default stdout)")
    p.add_argument("--output-dir", help="with several methods: write METHOD.txt files here")
    p.add_argument("--pivots", default=None,
                   help="comma-separated pivot languages (default: every Apertium pivot "
                        "installed among spa,cat,glg,epo,hbs; for llm: the paper's eight, "
                        "ara,zho,spa,fra,ita,deu,swe,rus; for other backends the codes "
                        "their models use)")
    p.add_argument("--method", default=None,
                   help="baseline_lm|greedy|one_best|lm_reranked|product|lm_composition, a "
                        "comma-separated list, or 'all' (default: product, the best of the "
                        "six on JFLEG dev, docs/rtt.md; it needs the language model: greedy "
                        "and one_best need none)")
    p.add_argument("--backend", default="apertium",
                   help="apertium | marian:DIR | ct2:DIR | argos | http:URL | llm:URL "
                        "(default apertium)")
    llm = p.add_argument_group(
        "llm backend", "--backend llm:URL: an OpenAI-compatible chat-completions API (a local "
        "llama.cpp, vLLM or Ollama server...), asked to translate each sentence into the pivot "
        "and back; answers are cached in llm-answers.sqlite beside the round-trip cache")
    llm.add_argument("--llm-model", metavar="NAME", help="model name sent with every request (required)")
    llm.add_argument("--llm-api-key-env", default=None, metavar="VAR",
                     help="environment variable holding the API key, sent as a bearer token "
                          "(default OPENAI_API_KEY; '' sends none)")
    llm.add_argument("--llm-timeout", type=float, default=None, metavar="S",
                     help="seconds per request, retries included (default 120)")
    llm.add_argument("--llm-retries", type=int, default=None, metavar="N",
                     help="extra attempts after a transient HTTP failure, and times an "
                          "unusable answer is asked again (default 2)")
    llm.add_argument("--llm-concurrency", type=int, default=None, metavar="N",
                     help="requests in flight at once (default 1)")
    p.add_argument("--cache-dir", help="round-trip cache directory (default ~/.cache/gecscope)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    p.add_argument("--lm", default=None,
                   help="language model for the LM methods: an ARPA file (default: the CMU "
                        "English trigram model of the pocketsphinx package)")
    p.add_argument("--n-best", type=int, default=20, help="n-best size for L and P (20)")
    p.add_argument("--paraphrases", help="TSV paraphrase table (phrase<TAB>paraphrase)")
    p.add_argument("--no-synonyms", action="store_true", help="no WordNet synonym matches")
    p.add_argument("--detokenize", action="store_true",
                   help="write running text instead of space-separated tokens")
    p.add_argument("--lattice-dir", help="write each sentence's lattice as Graphviz DOT here")
    p.add_argument("--show", action="store_true",
                   help="print round trips, alignments and lattices to stderr")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from gecscope.errors import MissingDependencyError
    from gecscope.formats.plain import read_lines, write_lines
    from gecscope.rtt.correct import (
        DEFAULT_METHOD,
        DEFAULT_PIVOTS,
        CorrectorConfig,
        RoundTripCorrector,
    )
    from gecscope.rtt.lm import load_lm
    from gecscope.rtt.methods import LM_METHODS, METHODS
    from gecscope.rtt.terp import ParaphraseTable, TerpConfig
    from gecscope.rtt.tokenize import detokenize, tokenize
    from gecscope.rtt.translator import CachedTranslator, RoundTripCache, make_translator

    method = DEFAULT_METHOD if args.method is None else args.method
    methods = METHODS if method.strip().lower() == "all" else tuple(
        m for m in method.split(",") if m.strip())
    CorrectorConfig(methods=methods)  # unknown method names: exit 64 before anything is read
    llm_options = _llm_options(args)
    lines = read_lines(args.input)  # '-' is stdin: split on newlines only, strict UTF-8
    translator = make_translator(args.backend, **llm_options)
    if args.pivots:
        pivots = tuple(p.strip() for p in args.pivots.split(",") if p.strip())
    else:
        available = translator.available_pivots()
        preferred = getattr(translator, "default_pivots", DEFAULT_PIVOTS)
        pivots = tuple(p for p in preferred if p in available) or available
        if not pivots:
            raise ConfigError(f"backend {translator.name} offers no pivot language")
    pivots = tuple(dict.fromkeys(translator.check_pivot(p) for p in pivots))
    if not args.no_cache:
        translator = CachedTranslator(translator, RoundTripCache(args.cache_dir))  # type: ignore[assignment]
    config = CorrectorConfig(pivots=pivots, methods=methods, n_best=args.n_best,
                             terp=TerpConfig(use_synonyms=not args.no_synonyms))
    lm = None
    if set(config.methods) & LM_METHODS:
        try:
            lm = load_lm(args.lm)
        except MissingDependencyError as exc:
            hint = " (or choose a method that needs no language model: --method greedy or " \
                   "--method one_best)"
            exc.msg = f"{exc}{hint}"  # an ImportError too: its text is ``msg``
            exc.args = (exc.msg,)
            raise
    paraphrases = ParaphraseTable.from_file(args.paraphrases) if args.paraphrases else None
    corrector = RoundTripCorrector(translator, lm, config, paraphrases)
    from gecscope.cli._common import Progress
    from gecscope.progress import reporting

    progress = Progress(len(lines), "correcting", unit="sentences")  # on a terminal only
    with reporting(progress):
        results = corrector.correct([tokenize(ln) for ln in lines])
    progress.close()

    def fmt(toks: tuple[str, ...]) -> str:
        return detokenize(toks) if args.detokenize else " ".join(toks)

    if args.lattice_dir:
        d = Path(args.lattice_dir)
        d.mkdir(parents=True, exist_ok=True)
        for k, r in enumerate(results, 1):
            (d / f"sentence-{k:05d}.dot").write_text(r.lattice.to_dot(f"sentence {k}"),
                                                     encoding="utf-8")
    if args.show:
        for k, r in enumerate(results, 1):
            print(f"# sentence {k}: {' '.join(r.original)}", file=sys.stderr)
            for label, al in r.alignments.items():
                print(f"## {label}: {' '.join(al.hypothesis)}  (TER {al.ter:.3f})",
                      file=sys.stderr)
                print(al.table(), file=sys.stderr)
            print(r.lattice.to_text(), file=sys.stderr)
            for m, c in r.corrections.items():
                print(f"{m}: {' '.join(c)}", file=sys.stderr)
    methods_out = config.methods
    if len(methods_out) == 1:
        outs = [fmt(r.corrections[methods_out[0]]) for r in results]
        if args.output:
            write_lines(args.output, outs)
        else:
            sys.stdout.write("".join(o + "\n" for o in outs))
        return 0
    if args.output_dir:
        d = Path(args.output_dir)
        d.mkdir(parents=True, exist_ok=True)
        for m in methods_out:
            write_lines(d / f"{m}.txt", [fmt(r.corrections[m]) for r in results])
        return 0
    rows = ["sentence\tmethod\tcorrection"]
    rows += [f"{k}\t{m}\t{fmt(r.corrections[m])}" for k, r in enumerate(results, 1)
             for m in methods_out]
    text = "".join(row + "\n" for row in rows)
    if args.output:
        write_lines(args.output, rows)
    else:
        sys.stdout.write(text)
    return 0


def _llm_options(args: argparse.Namespace) -> dict[str, object]:
    """The ``--llm-*`` options given, as keyword arguments of the llm backend (the
    answer cache follows ``--cache-dir`` / ``--no-cache``)."""
    given = {"--llm-model": ("model", args.llm_model),
             "--llm-api-key-env": ("api_key_env", args.llm_api_key_env),
             "--llm-timeout": ("timeout", args.llm_timeout),
             "--llm-retries": ("max_retries", args.llm_retries),
             "--llm-concurrency": ("concurrency", args.llm_concurrency)}
    options: dict[str, object] = {k: v for k, v in given.values() if v is not None}
    if not args.backend.strip().startswith("llm:"):
        flags = [flag for flag, (_, v) in given.items() if v is not None]
        if flags:
            raise ConfigError(f"{', '.join(flags)}: only for --backend llm:URL, not "
                              f"{args.backend!r}")
        return {}
    options["cache"] = not args.no_cache
    options["cache_dir"] = args.cache_dir
    return options
