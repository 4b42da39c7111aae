"""Statistics: precision/recall/F (:mod:`~.prf`), bootstrap confidence intervals and paired
significance tests.

Resampling needs numpy (``pip install 'gecscope[stats]'``); imported only when used.
"""
