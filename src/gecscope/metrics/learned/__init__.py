"""Learned reference-free metrics (SOME, IMPARA, Scribendi): each scores a system with neural
models the user provides as local Hugging Face directories (nothing is downloaded).

:mod:`gecscope.metrics.learned.models` loads those checkpoints (offline, on CPU by default,
with limited torch threads) for every metric of this package. Importing this package imports
neither torch nor transformers.
"""
