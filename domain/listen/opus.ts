// How long an Opus packet plays, from its first bytes (RFC 6716 §3.1): GET /v1/listen with `encoding=opus` bills
// and limits a stream by the audio it received, and an Opus packet says its own duration, so the API measures
// without decoding (the recognizer decodes).

/** The longest packet RFC 6716 allows (§3.2.5, rule R5). */
export const MAX_OPUS_PACKET_MS = 120;

/** A frame's length by the TOC byte's configuration (its top five bits): SILK 10/20/40/60, hybrid 10/20, CELT 2.5–20. */
function frameMs(config: number): number {
  if (config < 12) return [10, 20, 40, 60][config % 4]!;
  if (config < 16) return [10, 20][config % 2]!;
  return [2.5, 5, 10, 20][config % 4]!;
}

/**
 * The milliseconds of audio in one Opus packet, or null when the bytes cannot be one: empty (R1), a code-1 packet
 * of odd length (R3), a code-3 packet without its frame count or with none (R5), or more than 120 ms (R5).
 * The frames themselves are the decoder's to check; a packet it cannot decode is heard as silence of this length.
 */
export function opusPacketMs(packet: Uint8Array): number | null {
  if (packet.length < 1) return null;
  const toc = packet[0]!;
  const each = frameMs(toc >> 3);
  let frames: number;
  switch (toc & 0x3) {
    case 0:
      frames = 1;
      break;
    case 1:
      if ((packet.length - 1) % 2 !== 0) return null;
      frames = 2;
      break;
    case 2:
      if (packet.length < 2) return null;
      frames = 2;
      break;
    default:
      if (packet.length < 2) return null;
      frames = packet[1]! & 0x3f;
      if (frames === 0) return null;
  }
  const ms = frames * each;
  return ms > MAX_OPUS_PACKET_MS ? null : ms;
}
