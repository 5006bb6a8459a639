"""The anchors a Markdown heading gets: in a notebook (JupyterLab, nbconvert) and on GitHub.

A link ``03_model_fn_and_estimatorspec.ipynb#The-signature:-five-names,-fixed``
opens the notebook at that heading; the edition rewrites such links to the
translated heading's anchor, and the tests check that every link points at a
heading that exists.
"""

from __future__ import annotations

import re

FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^(#{1,6})\s+(?P<text>.+?)\s*#*\s*$", re.MULTILINE)


def rendered_text(heading: str) -> str:
    """A heading's text as a browser shows it: code spans keep their content, emphasis marks
    and link targets go."""
    parts = re.split(r"(`[^`]*`)", heading)
    shown = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) >= 2:
            shown.append(part[1:-1])
        else:
            part = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", part)
            shown.append(re.sub(r"\*+|(?<!\w)_+|_+(?!\w)", "", part))
    return "".join(shown).strip()


def notebook_anchor(heading: str) -> str:
    """The id JupyterLab and nbconvert give a markdown heading (unquoted): its rendered text
    with each space replaced by ``-``, case kept."""
    return rendered_text(heading).replace(" ", "-")


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading of a Markdown file: the rendered text in lower case,
    punctuation out (letters of any script, digits, ``-`` and ``_`` kept), spaces to ``-``."""
    return re.sub(r"[^\w\- ]", "", rendered_text(heading).lower()).replace(" ", "-")


def headings(markdown: str) -> list[str]:
    """The text of each heading in ``markdown``, in order (a ``#`` line in a code fence is code)."""
    return [match["text"] for match in HEADING.finditer(FENCE.sub("", markdown))]
