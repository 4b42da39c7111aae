"""The ``gecscope`` command line. The only place that prints and exits."""
