"""Opus packets to the stream engine's audio: `GET /v1/listen?encoding=opus` (api/listen/relay.ts) sends one Opus
packet (RFC 6716) a frame of the stream port, and the engine hears 16 kHz 16-bit mono PCM. PyAV (already the
recognizer's decoder of media) decodes them at 48 kHz and resamples."""

from __future__ import annotations

import av

TARGET_RATE = 16_000
# Milliseconds of one frame by the TOC byte's configuration (RFC 6716 §3.1): SILK, hybrid, CELT.
_FRAME_MS = [10, 20, 40, 60] * 3 + [10, 20] * 2 + [2.5, 5, 10, 20] * 4


def packet_ms(packet: bytes) -> float:
    """How long a packet plays, by its TOC byte (0 when it says nothing readable): the API bills by the same rule
    (domain/listen/opus.ts)."""
    if not packet:
        return 0.0
    code = packet[0] & 0x3
    frames = 1 if code == 0 else 2 if code in (1, 2) else (packet[1] & 0x3F if len(packet) > 1 else 0)
    return frames * _FRAME_MS[packet[0] >> 3]


class OpusToPcm:
    """One stream's decoder: packets in order in, PCM out. A packet the decoder cannot read is heard as silence of
    its length, so what follows keeps its time (the API has billed it by that length)."""

    def __init__(self) -> None:
        self._decoder = av.CodecContext.create("opus", "r")
        self._decoder.sample_rate = 48_000
        self._decoder.layout = "mono"  # stereo packets are mixed down by the decoder
        self._resampler = av.AudioResampler(format="s16", layout="mono", rate=TARGET_RATE)

    def pcm(self, packet: bytes) -> bytes:
        try:
            frames = self._decoder.decode(av.Packet(packet))
        except av.FFmpegError:
            return bytes(2 * round(packet_ms(packet) * TARGET_RATE / 1000))
        return b"".join(out.to_ndarray().tobytes() for frame in frames for out in self._resampler.resample(frame))
