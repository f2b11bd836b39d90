"""Make the chunks of one audio MIME stream safe to concatenate.

Callers always build a :class:`Normalizer` with the stream's actual MIME and
never preselect a format. Only MP3 (``audio/mpeg``, ``audio/mp3``,
``audio/x-mpeg``) is handled: ID3 metadata is removed. Every other MIME passes
through unchanged. The codec, sample rate and MIME never change.

MP3 rules (``genx-behaviours.md`` "MP3 normaliser"):

* while streaming, the last 130 bytes are held back (an ID3v1 block is 128);
* an ID3v2 tag (``"ID3"``, size = 4 syncsafe bytes at [6:10], + 10 header bytes,
  + 10 footer bytes when flag 0x10 is set) is stripped wherever it starts and
  however the chunks split it; an incomplete tag is waited for and dropped if it
  is still incomplete at :meth:`Normalizer.flush`;
* ``"ID3"`` with an invalid header (a size byte ≥ 0x80) passes through as audio;
* a trailing 128-byte ID3v1 ``"TAG"`` block is removed at flush.

**fix**: the original searched for ``"ID3"`` only in the bytes it was about to
emit, so a tag whose ``"ID"`` fell just before the hold-back boundary was split
and leaked; here a tag start anywhere before the boundary is found, so the
output is the same for every chunking of the input.
"""

from __future__ import annotations

from genx.mime import mime_essence

MP3_MIMES = frozenset({"audio/mpeg", "audio/mp3", "audio/x-mpeg"})
HOLD_BACK = 128 + 2
ID3V1_SIZE = 128
_ID3 = b"ID3"


def id3v2_tag_size(data: bytes | bytearray) -> tuple[int, bool, bool]:
    """``(total_size, valid, complete)`` of an ID3v2 tag at the start of ``data``.

    ``valid`` is False when fewer than 10 bytes are present, the magic is not
    ``ID3`` or a size byte has its high bit set.
    """
    if len(data) < 10 or bytes(data[:3]) != _ID3:
        return 0, False, False
    size_bytes = data[6:10]
    if any(b & 0x80 for b in size_bytes):
        return 0, False, False
    size = size_bytes[0] << 21 | size_bytes[1] << 14 | size_bytes[2] << 7 | size_bytes[3]
    total = 10 + size + (10 if data[5] & 0x10 else 0)
    return total, True, total <= len(data)


class Normalizer:
    """Streaming normaliser for one audio MIME stream (one per stream / synthesized segment)."""

    __slots__ = ("_mime", "_mp3", "_pending")

    def __init__(self, mime: str) -> None:
        self._mime = mime
        self._mp3 = mime_essence(mime) in MP3_MIMES
        self._pending = bytearray()

    @property
    def mime(self) -> str:
        """The MIME given at construction (never changed by the normaliser)."""
        return self._mime

    @property
    def handles(self) -> bool:
        """True when this MIME gets format-specific handling (MP3)."""
        return self._mp3

    def normalize(self, data: bytes) -> bytes:
        """Consume the next chunk; return the bytes ready to append to the output."""
        if not self._mp3:
            return data
        if not data:
            return b""
        self._pending += data
        return self._drain(final=False)

    def flush(self) -> bytes:
        """The rest at the end of the stream; incomplete trailing metadata is dropped."""
        if not self._mp3:
            return b""
        return self._drain(final=True)

    def _drain(self, final: bool) -> bytes:
        p = self._pending
        if final and len(p) >= ID3V1_SIZE and p[-ID3V1_SIZE : -ID3V1_SIZE + 3] == b"TAG":
            del p[-ID3V1_SIZE:]
        out = bytearray()
        while p:
            if p[:3] == _ID3:
                total, valid, complete = id3v2_tag_size(p)
                if valid and not complete:
                    if final:
                        p.clear()  # a truncated tag: drop it
                    break
                if not valid:
                    if not final and len(p) < 10:
                        break  # the header is not all here yet
                    out.append(p[0])  # not a tag: audio that happens to start with "ID3"
                    del p[:1]
                    continue
                del p[:total]
                continue
            if final:
                idx = p.find(_ID3)
                if idx < 0:
                    out += p
                    p.clear()
                    break
                out += p[:idx]
                del p[:idx]
                continue
            emit_limit = len(p) - HOLD_BACK  # bytes [0, emit_limit) may leave; the tail waits
            if emit_limit <= 0:
                break
            # A tag starting anywhere before the limit must be found, even if it runs past it.
            idx = p.find(_ID3, 0, emit_limit + len(_ID3) - 1)
            if idx < 0:
                out += p[:emit_limit]
                del p[:emit_limit]
                break
            out += p[:idx]
            del p[:idx]
        return bytes(out)


__all__ = ["HOLD_BACK", "MP3_MIMES", "Normalizer", "id3v2_tag_size"]
