"""Resampling statistics: bootstrap confidence intervals and paired significance tests.

Needs numpy (``pip install 'gecscope[stats]'``); imported only when used.
"""
