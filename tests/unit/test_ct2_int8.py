"""genx.local.ct2_int8: CTranslate2 model files read and written exactly, weight matrices quantized per row."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from genx.local.ct2_int8 import Ct2FormatError, Ct2Model, quantize_dir, quantize_int8, quantize_rows, read_model, write_model


def small_model() -> Ct2Model:
    return Ct2Model(
        spec="WhisperSpec",
        revision=3,
        variables={
            "decoder/activation": np.array(5, dtype=np.int8),
            "decoder/alignment_heads": np.array([[3, 1], [4, 2]], dtype=np.int16),
            "decoder/embeddings/weight": np.array([[1.0, -0.5, 0.25], [0.0, 0.0, 0.0]], dtype=np.float16),
            "decoder/layer_0/ffn/linear_0/bias": np.array([0.5, -2.0], dtype=np.float16),
            "decoder/layer_0/ffn/layer_norm/gamma": np.array([1.0, 1.0, 1.0], dtype=np.float16),
            "decoder/position_encodings/encodings": np.ones((4, 3), dtype=np.float16),
            "encoder/conv1/weight": np.arange(12, dtype=np.float32).reshape(2, 3, 2) - 6.0,
        },
        aliases=[("decoder/projection/weight", "decoder/embeddings/weight")],
    )


def test_a_model_written_then_read_comes_back_with_every_variable_shape_type_and_alias(tmp_path: Path) -> None:
    m = small_model()
    write_model(m, tmp_path / "model.bin")
    back = read_model(tmp_path / "model.bin")
    assert (back.spec, back.revision, back.aliases) == ("WhisperSpec", 3, [("decoder/projection/weight", "decoder/embeddings/weight")])
    assert list(back.variables) == list(m.variables)
    for name, value in m.variables.items():
        assert back.variables[name].dtype == value.dtype
        assert back.variables[name].shape == value.shape
        assert np.array_equal(back.variables[name], value)


def test_the_file_layout_is_ctranslate2s_version_6_header_then_length_prefixed_names(tmp_path: Path) -> None:
    write_model(Ct2Model(spec="S", revision=7, variables={"a": np.array([2.0], dtype=np.float32)}), tmp_path / "m.bin")
    raw = (tmp_path / "m.bin").read_bytes()
    expected = (
        struct.pack("<I", 6) + struct.pack("<H", 2) + b"S\0" + struct.pack("<II", 7, 1)
        + struct.pack("<H", 2) + b"a\0" + struct.pack("<BI", 1, 1) + struct.pack("<BI", 0, 4) + struct.pack("<f", 2.0)
        + struct.pack("<I", 0)
    )  # fmt: skip
    assert raw == expected


def test_a_row_is_scaled_so_its_largest_magnitude_is_127_and_rounded_to_nearest_even() -> None:
    q, scale = quantize_rows(np.array([[1.0, -0.5, 0.25], [0.0, 0.0, 0.0], [2.0, 1.0, -0.01]], dtype=np.float16))
    assert q.dtype == np.int8 and scale.dtype == np.float32
    assert q.tolist() == [[127, -64, 32], [0, 0, 0], [127, 64, -1]]  # -63.5 → -64, 31.75 → 32; 63.5 → 64, -0.635 → -1
    assert scale.tolist() == pytest.approx([127.0, 1.0, 63.5])


def test_a_three_dimensional_weight_is_scaled_per_output_channel_over_its_other_axes() -> None:
    q, scale = quantize_rows(np.arange(12, dtype=np.float32).reshape(2, 3, 2) - 6.0)
    assert q.dtype == np.int8 and q.shape == (2, 3, 2)
    assert scale.tolist() == pytest.approx([127 / 6, 127 / 5])
    assert q[0].ravel().tolist() == [-127, -106, -85, -64, -42, -21]  # (-6 .. -1) x 127/6, rounded


def test_quantizing_turns_only_weight_matrices_into_int8_with_a_scale_per_output_row() -> None:
    m = small_model()
    q = quantize_int8(m)
    assert q.variables["decoder/embeddings/weight"].dtype == np.int8
    assert q.variables["decoder/embeddings/weight_scale"].shape == (2,)
    assert "encoder/conv1/weight_scale" not in q.variables  # convolutions run in float: CTranslate2 would dequantize them
    for kept in (
        "encoder/conv1/weight",
        "decoder/layer_0/ffn/linear_0/bias",
        "decoder/layer_0/ffn/layer_norm/gamma",
        "decoder/position_encodings/encodings",
    ):
        assert q.variables[kept] is m.variables[kept]
    assert q.aliases == m.aliases
    assert m.variables["decoder/embeddings/weight"].dtype == np.float16  # the input is left as it was


def test_a_model_directory_is_copied_with_an_int8_model_and_its_other_files_but_not_split_parts(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    write_model(small_model(), src / "model.bin")
    (src / "config.json").write_text('{"x": 1}')
    (src / "vocabulary.txt").write_text("a\nb\n")
    (src / "model.bin.part1").write_bytes(b"\0" * 10)
    dst = quantize_dir(src, tmp_path / "dst")
    assert sorted(p.name for p in dst.iterdir()) == ["config.json", "model.bin", "vocabulary.txt"]
    assert (dst / "config.json").read_text() == '{"x": 1}'
    assert read_model(dst / "model.bin").variables["decoder/embeddings/weight"].dtype == np.int8


def test_a_truncated_file_another_version_or_no_model_is_a_clear_error(tmp_path: Path) -> None:
    write_model(small_model(), tmp_path / "model.bin")
    raw = (tmp_path / "model.bin").read_bytes()
    (tmp_path / "cut.bin").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(Ct2FormatError, match="truncated"):
        read_model(tmp_path / "cut.bin")
    (tmp_path / "v5.bin").write_bytes(struct.pack("<I", 5) + raw[4:])
    with pytest.raises(Ct2FormatError, match="version 5"):
        read_model(tmp_path / "v5.bin")
    with pytest.raises(Ct2FormatError, match=r"no model\.bin"):
        quantize_dir(tmp_path / "empty", tmp_path / "out")
