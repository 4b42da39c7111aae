"""Readers and writers of the file formats gecscope understands. Parsing only; no scoring."""
