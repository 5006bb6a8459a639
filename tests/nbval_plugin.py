"""nbval settings for the notebooks, loaded by `make test` with `-p tests.nbval_plugin`.

Cells tagged `nbval-check-output` are compared with their committed output;
stderr (TensorFlow's log lines, with their timings) and HTML renderings (the
text/plain rendering of the same object is compared) are not.
"""


def pytest_collectstart(collector):
    path = getattr(collector, "path", None)
    if path is not None and path.suffix == ".ipynb":
        collector.skip_compare += ("stderr", "text/html", "application/javascript")
