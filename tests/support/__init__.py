"""Plain functions, classes and constants that tests in several folders share; nothing here sets
anything up. What needs set-up or clean-up is a fixture, in the ``conftest.py`` of the narrowest
folder that uses it (see tests/README.md)."""
