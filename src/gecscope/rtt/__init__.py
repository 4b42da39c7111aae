"""Round-trip-translation (RTT) grammatical error correction (Madnani et al., 2012).

Translate a sentence into several pivot languages and back (:mod:`.translator`), align every
round trip to the original with a TERp-style aligner (:mod:`.terp`), merge the alignments into a
lattice whose backbone is the original (:mod:`.lattice`) and read a whole-sentence correction off
the lattice with one of six methods (:mod:`.methods`, language models in :mod:`.lm`).
:mod:`.correct` ties the steps together; :mod:`.evaluation` scores the methods.

Only the standard library is imported here; translators and language models import their
backends (Apertium binary, pocketsphinx, transformers, ctranslate2...) when used.
"""
