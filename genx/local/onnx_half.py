"""ONNX models stored with float16 weights that run in float32: half the file, the same graph at run time.

onnxruntime's CPU provider has no float16 kernels for most operators, so a model converted to float16 would not
load. :func:`halve_weights` keeps the computation in float32 and halves only the storage: every float32
initializer of the main graph with at least :data:`MIN_ELEMENTS` elements is stored as float16 under
``<name>__fp16`` and a ``Cast`` node at the head of the graph gives it back as float32 under its own name, so no
consumer changes. onnxruntime folds those casts into float32 initializers when it builds the session (constant
folding, on at every optimisation level above "disabled"), so the session computes as before; only the weights are
rounded to float16 (11 significant bits). Tensors that are also graph inputs (overridable), that hold a value
float16 cannot represent (beyond ±65504), or that live in subgraphs are left as they are.

The default Piper voice (``en_US-joe-medium``): 63 → 32 MB; with noise off, its audio differs from the float32
model's by 34-42 dB below the signal (same lengths, same synthesis time, same RSS once malloc is trimmed).

``python -m genx.local.onnx_half SRC DST`` writes the halved copy of a model; the release bundle carries it
(``packaging/parley.spec``). Build time only: it needs the ``onnx`` package (the ``package`` extra), which the app
never imports.

Does not own: running models (:mod:`genx.local.piper_tts`), other weight formats (:mod:`genx.local.ct2_int8`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from genx.local.models import LocalModelError

MIN_ELEMENTS = 1024  # smaller tensors are kept as they are (they cost nothing and are often scales or biases)
FP16_MAX = 65504.0
SUFFIX = "__fp16"


class OnnxHalfError(LocalModelError):
    """The file is not an ONNX model this converter can rewrite."""


@dataclass(frozen=True, slots=True)
class Halved:
    """What :func:`halve_weights` did: tensors stored as float16, and the bytes before and after."""

    tensors: int
    kept: int  # float32 initializers left as they are (small, graph inputs, or out of float16's range)
    bytes_before: int
    bytes_after: int


def _onnx() -> Any:
    try:
        import onnx
    except ImportError:
        raise OnnxHalfError("the onnx package is needed to rewrite ONNX models: pip install onnx (the package extra)") from None
    return onnx


def halve_weights(model: Any) -> Halved:
    """Rewrite ``model`` (an ``onnx.ModelProto``) in place as described in the module docstring."""
    onnx = _onnx()
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    inputs = {i.name for i in graph.input}
    taken = {t.name for t in graph.initializer} | {o for n in graph.node for o in n.output}
    initializers: list[Any] = []
    casts: list[Any] = []
    kept = before = after = 0
    for tensor in graph.initializer:
        size = tensor.ByteSize()
        before += size
        if tensor.data_type != TensorProto.FLOAT:
            initializers.append(tensor)
            after += size
            continue
        values = numpy_helper.to_array(tensor)
        finite = values[np.isfinite(values)]
        half_name = tensor.name + SUFFIX
        if values.size < MIN_ELEMENTS or tensor.name in inputs or half_name in taken or (finite.size and np.abs(finite).max() > FP16_MAX):
            initializers.append(tensor)
            kept += 1
            after += size
            continue
        half = numpy_helper.from_array(values.astype(np.float16), half_name)
        initializers.append(half)
        after += half.ByteSize()
        casts.append(helper.make_node("Cast", [half_name], [tensor.name], name=tensor.name + "__cast", to=TensorProto.FLOAT))
    nodes = list(graph.node)
    del graph.initializer[:]
    graph.initializer.extend(initializers)
    del graph.node[:]
    graph.node.extend(casts + nodes)  # a graph's nodes are topologically sorted: the casts first
    onnx.checker.check_model(model)
    return Halved(tensors=len(casts), kept=kept, bytes_before=before, bytes_after=after)


def halve_file(src: str | Path, dst: str | Path) -> Halved:
    """Write the halved copy of the model at ``src`` to ``dst`` (its parent directory is created)."""
    onnx = _onnx()
    src, dst = Path(src), Path(dst)
    from google.protobuf.message import DecodeError

    try:
        model = onnx.load(str(src))
    except (ValueError, DecodeError) as e:
        raise OnnxHalfError(f"{src}: not a readable ONNX model ({e})") from e
    if any(t.data_type == onnx.TensorProto.FLOAT16 and t.name.endswith(SUFFIX) for t in model.graph.initializer):
        raise OnnxHalfError(f"{src}: already stored with float16 weights")
    halved = halve_weights(model)
    dst.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(dst))
    return halved


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Write an ONNX model's copy with float16-stored weights (it still runs in float32).")
    p.add_argument("src", help="the float32 .onnx model")
    p.add_argument("dst", help="where to write the copy")
    args = p.parse_args(argv)
    try:
        h = halve_file(args.src, args.dst)
    except (OSError, OnnxHalfError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"{args.dst}: {h.tensors} tensors as float16, {h.kept} kept; weights {h.bytes_before / 1e6:.1f} → {h.bytes_after / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
