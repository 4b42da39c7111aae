"""Edit extraction: turn (source, corrected) sentence pairs into :class:`~gecscope.types.Edit` lists."""
