"""What the tests (and the fuzzers and browser scripts of scripts/) share, kept out of the wheel:
``dictionaries`` (small dictionaries built from a list of words, the prover's small lexicon),
``kernels`` (the twin fixture: each compiled part's kernels, from the seam), ``strategies``
(hypothesis strategies: random word lists) and
``harness`` (a real ``serve`` in a child process and a headless Chromium) and ``warm``
(commands as processes forked from a warm interpreter: ``run_cli``'s runner).

The suite imports them as ``helpers.*`` (pytest puts ``tests/`` on ``sys.path``); a script adds
``tests/`` to ``sys.path`` itself."""
