"""nbval settings for the notebooks, loaded by `make test` with `-p tests.nbval_plugin`.

Cells tagged `nbval-check-output` are compared with their committed output;
stderr (TensorFlow's log lines, with their timings) and HTML renderings (the
text/plain rendering of the same object is compared) are not.

nbval ends each notebook's kernel with `shutdown_kernel(now=True)`, a kill: the
kernel's exit handlers never run, and AutoGraph's generated files
(`__autograph_generated_file*.py`, deleted at exit) stayed behind. Here the
kernel is asked to shut down, and killed only if it does not within
jupyter_client's wait (`shutdown_wait_time`, 5 s).
"""

from nbval.kernel import RunningKernel


def _stop_gracefully(self):
    self.kc.stop_channels()
    self.km.shutdown_kernel(now=False)
    del self.km


RunningKernel.stop = _stop_gracefully


def pytest_collectstart(collector):
    path = getattr(collector, "path", None)
    if path is not None and path.suffix == ".ipynb":
        collector.skip_compare += ("stderr", "text/html", "application/javascript")
