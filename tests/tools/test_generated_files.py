"""tools/generated_files.py: only what differs is written; a check writes nothing."""

import os

from tools.generated_files import update


def test_only_what_differs_is_written_and_a_check_writes_nothing(tmp_path):
    same, changed, new = tmp_path / "same.txt", tmp_path / "changed.txt", tmp_path / "d" / "new.txt"
    same.write_text("a", encoding="utf-8")
    changed.write_text("old", encoding="utf-8")
    os.utime(same, (1, 1))
    files = {same: "a", changed: "new", new: "created"}
    assert update(files, check=True) == [changed, new]
    assert changed.read_text(encoding="utf-8") == "old" and not new.exists()
    assert update(files) == [changed, new]
    assert changed.read_text(encoding="utf-8") == "new"
    assert new.read_text(encoding="utf-8") == "created"
    assert same.stat().st_mtime == 1  # not rewritten
    assert update(files) == []
