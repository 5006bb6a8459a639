"""The authors' and teachers' tools, a package so that tests and tools share modules such as
``tools/notebook_code.py`` (the one reader of notebook code) as ``tools.<module>``.

Every tool runs as ``python -m tools.<name>`` from the checkout's folder (the Makefile, the docs
and the tests call them so), which puts that folder on ``sys.path``; pytest does the same. The shell
scripts (``tools/make-venv``, ``tools/lock``, ``tools/find-python``, ``tools/find-uv``) run as they
are, and ``tools/get_uv.py`` with whatever ``python3`` ``tools/make-venv`` finds.
"""
