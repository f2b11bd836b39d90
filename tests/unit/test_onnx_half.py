"""genx.local.onnx_half: float32 weights stored as float16 and cast back in the graph; the session computes as before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="pip install onnx (the package extra)")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from genx.local.onnx_half import MIN_ELEMENTS, OnnxHalfError, halve_file, main  # noqa: E402

RNG = np.random.default_rng(7)
W = RNG.standard_normal((64, 32)).astype(np.float32)  # 2048 elements: halved
BIAS = RNG.standard_normal(32).astype(np.float32)  # small: kept
HUGE = np.full((MIN_ELEMENTS,), 1e6, dtype=np.float32)  # beyond float16's range: kept


def _model(path: Path, *, weight_as_input: bool = False) -> Path:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [MIN_ELEMENTS])
    inits = [numpy_helper.from_array(W, "w"), numpy_helper.from_array(BIAS, "b"), numpy_helper.from_array(HUGE, "huge")]
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["xw"]),
        helper.make_node("Add", ["xw", "b"], ["y"]),
        helper.make_node("Identity", ["huge"], ["z"]),
    ]
    inputs = [x] + ([helper.make_tensor_value_info("w", TensorProto.FLOAT, [64, 32])] if weight_as_input else [])
    graph = helper.make_graph(nodes, "g", inputs, [y, z], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def _run(path: Path, x: np.ndarray) -> list[np.ndarray]:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return list(session.run(None, {"x": x}))


def _initializers(path: Path) -> dict[str, int]:
    return {t.name: t.data_type for t in onnx.load(str(path)).graph.initializer}


def test_a_large_weight_is_stored_as_float16_and_the_model_still_takes_and_gives_float32(tmp_path: Path) -> None:
    src = _model(tmp_path / "m.onnx")
    halved = halve_file(src, tmp_path / "out" / "m.onnx")
    types = _initializers(tmp_path / "out" / "m.onnx")
    assert types == {"w__fp16": TensorProto.FLOAT16, "b": TensorProto.FLOAT, "huge": TensorProto.FLOAT}
    assert (halved.tensors, halved.kept) == (1, 2)
    assert halved.bytes_after < halved.bytes_before - W.nbytes // 2 + 64
    x = RNG.standard_normal((1, 64)).astype(np.float32)
    y, z = _run(tmp_path / "out" / "m.onnx", x)
    assert y.dtype == np.float32 and z.dtype == np.float32
    # the weights rounded to float16, the arithmetic in float32: the float16 weights' exact product
    expected = x.astype(np.float64) @ W.astype(np.float16).astype(np.float64) + BIAS
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4)
    assert not np.allclose(W.astype(np.float16).astype(np.float32), W, rtol=0, atol=0)  # the rounding is real
    np.testing.assert_array_equal(z, HUGE)  # out of float16's range: untouched


def test_a_weight_that_is_also_a_graph_input_keeps_its_float32_type(tmp_path: Path) -> None:
    src = _model(tmp_path / "m.onnx", weight_as_input=True)
    halved = halve_file(src, tmp_path / "h.onnx")
    assert halved.tensors == 0
    assert _initializers(tmp_path / "h.onnx")["w"] == TensorProto.FLOAT


def test_a_file_that_is_not_an_onnx_model_is_a_typed_error_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "voice.onnx"
    bad.write_bytes(b"\xff\xfe not protobuf at all \x00\x01")
    with pytest.raises(OnnxHalfError, match=r"voice\.onnx"):
        halve_file(bad, tmp_path / "out.onnx")
    assert not (tmp_path / "out.onnx").exists()


def test_halving_a_halved_model_again_is_refused(tmp_path: Path) -> None:
    halve_file(_model(tmp_path / "m.onnx"), tmp_path / "h.onnx")
    with pytest.raises(OnnxHalfError, match="already"):
        halve_file(tmp_path / "h.onnx", tmp_path / "hh.onnx")


def test_the_command_line_prints_what_it_wrote_and_fails_with_a_message_on_a_missing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(_model(tmp_path / "m.onnx")), str(tmp_path / "h.onnx")]) == 0
    assert "1 tensors as float16" in capsys.readouterr().out
    assert main([str(tmp_path / "absent.onnx"), str(tmp_path / "x.onnx")]) == 1
    assert "absent.onnx" in capsys.readouterr().err
