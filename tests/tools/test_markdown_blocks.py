"""tools/markdown_blocks.py: the blocks a translator translates, and what must come back."""

from __future__ import annotations

import nbformat
import pytest

from tests import ROOT
from tools.catalogues import sources
from tools.markdown_blocks import has_words, protected, split, structure

SAMPLE = """# Title with `code`

A paragraph
on two lines.

- item one
  continued
- item two

  with a second paragraph
- `only_code()`

| name | value |
|---|---|
| steps | 3,000 |
| 1 | 2 |

```python
# not a heading
x = 1
```
> a quote
"""


def _markdown_of(path):
    if path.suffix == ".ipynb":
        notebook = nbformat.read(path, as_version=4)
        return [cell.source for cell in notebook.cells if cell.cell_type == "markdown"]
    return [path.read_text(encoding="utf-8")]


@pytest.mark.parametrize("path", sources(), ids=lambda p: p.name)
def test_the_pieces_of_every_source_join_to_it_exactly(path):
    for text in _markdown_of(path):
        assert "".join(piece.text for piece in split(text)) == text


def test_blocks_by_kind():
    pieces = split(SAMPLE)
    assert "".join(piece.text for piece in pieces) == SAMPLE
    translated = [(piece.kind, piece.text) for piece in pieces if piece.translatable]
    assert translated == [
        ("heading", "# Title with `code`"),
        ("paragraph", "A paragraph\non two lines."),
        ("list item", "- item one\n  continued"),
        ("list item", "- item two\n\n  with a second paragraph"),
        ("table row", "| name | value |"),
        ("table row", "| steps | 3,000 |"),
        ("quote", "> a quote"),
    ]
    kept = "".join(piece.text for piece in pieces if not piece.translatable)
    assert "|---|---|" in kept and "# not a heading" in kept and "`only_code()`" in kept
    assert "| 1 | 2 |" in kept  # no word to translate


def test_what_a_translation_must_give_back():
    text = (
        "Call `train()` as in [the guide](https://x.org/a_(b)) or <https://y.org>, "
        "see https://z.org/p and $x^2$ and <br/>."
    )
    assert sorted(protected(text)) == sorted(
        [
            ("code", "`train()`"),
            ("link target", "](https://x.org/a_(b))"),
            ("URL", "<https://y.org>"),
            ("URL", "https://z.org/p"),
            ("math", "$x^2$"),
            ("tag", "<br/>"),
        ]
    )
    assert not has_words("`a` [`b`](c.md) 3,000 $x$")
    assert has_words("the `a`")


def test_the_markdown_frame():
    assert structure("## Setup") == ("heading", "##")
    assert structure("1. first") == ("list", "1.")
    assert structure("- first") == ("list", "-")
    assert structure("> said") == ("quote", ">")
    assert structure("| a | `b|c` | d |") == ("table row", 4)
    assert structure("plain") == ("paragraph",)


def test_every_source_has_blocks_to_translate():
    assert all(
        any(piece.translatable for text in _markdown_of(path) for piece in split(text))
        for path in sources()
    )
    assert len(sources()) == len(list((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))) + 3
