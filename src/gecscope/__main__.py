"""Run the command-line interface with ``python -m gecscope``."""

from gecscope.cli.main import main

raise SystemExit(main())
