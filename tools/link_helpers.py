"""Let the Python that runs this import the course's ``helpers`` package, from any folder.

Writes ``estimator_workbook.pth`` (one line: the course folder) into that
Python's site-packages, so that every kernel of the virtual environment finds
``helpers`` whatever the notebook's folder. ``make`` runs it with the venv's
Python; on Windows without make: ``.venv\\Scripts\\python tools\\link_helpers.py``.
"""

import pathlib
import sys
import sysconfig

COURSE = pathlib.Path(__file__).resolve().parents[1]


def main() -> int:
    site_packages = pathlib.Path(sysconfig.get_paths()["purelib"])
    (site_packages / "estimator_workbook.pth").write_text(f"{COURSE}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
