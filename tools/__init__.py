"""The authors' and teachers' tools, a package so that tests and tools share modules such as
``tools/notebook_code.py`` (the one reader of notebook code) as ``tools.<module>``.

pytest puts the checkout's folder on ``sys.path``; a script run as ``python tools/<script>.py``
inserts it first (``sys.path.insert(0, str(ROOT))``) and then imports ``from tools import …``.
"""
