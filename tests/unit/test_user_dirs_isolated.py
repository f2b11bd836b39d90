"""The test suite's own harness: no test reaches the user's Parley directories (tests/conftest.py)."""

from __future__ import annotations

import platformdirs
import pytest

from app.assistant import reminders_dir
from genx.agentkit.store import default_root as conversations_dir
from genx.memory.db import default_path as memory_path


def test_the_reminders_conversations_memory_settings_and_logs_a_test_sees_are_its_own(tmp_path_factory: pytest.TempPathFactory) -> None:
    base = tmp_path_factory.getbasetemp()
    paths = [
        reminders_dir(),
        conversations_dir(),
        memory_path(),
        platformdirs.user_config_path("parley"),
        platformdirs.user_log_path("parley"),
    ]
    assert all(p.is_relative_to(base) for p in paths), paths
