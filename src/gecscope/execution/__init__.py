"""Running the work: worker processes and Ray actors, the plan of an evaluation, ERRANT
annotation in chunks and of corpora larger than memory (resumable).

Above the metrics, below evaluation and reports: these modules run metrics and annotators,
and nothing below imports them."""
