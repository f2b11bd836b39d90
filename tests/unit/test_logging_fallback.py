"""A log directory that cannot be written must not stop Parley: it logs to stderr and says so (bundle bad input)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.logging_setup import setup_logging


@pytest.fixture
def root_handlers() -> Iterator[None]:
    root = logging.getLogger()
    saved, level = list(root.handlers), root.level
    yield
    for h in list(root.handlers):
        if h not in saved:
            root.removeHandler(h)
            h.close()
    root.setLevel(level)


def test_unwritable_log_directory_falls_back_to_stderr_and_names_the_directory_and_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], root_handlers: None
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory", encoding="utf-8")
    target = blocker / "log"
    setup_logging(directory=target, console=False)
    err = capsys.readouterr().err
    assert str(target) in err and "PARLEY_LOG_DIR" in err
    logging.getLogger("parley.test").error("still heard")
    assert "still heard" in capsys.readouterr().err
    assert not target.exists()
