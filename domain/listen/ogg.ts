// Ogg Opus (RFC 7845 over RFC 3533) from Opus packets as a stream received them: the file a kept Opus stream is
// downloaded as (kept-audio.ts). Pages are made as the packets come, so a long stream is never held whole.

const CRC_TABLE = (() => {
  // Ogg's CRC-32: polynomial 0x04c11db7, not reflected, initial value 0, no final XOR (RFC 3533 §6).
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let k = 0; k < 8; k++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
})();

export function oggCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ b) & 0xff]!) >>> 0;
  return crc;
}

const BOS = 0x02;
const EOS = 0x04;
/** Samples a millisecond: Opus granule positions count 48 kHz samples whatever the input rate. */
const SAMPLES_PER_MS = 48;
const MAX_SEGMENTS = 255;

function page(flags: number, granule: bigint, serial: number, sequence: number, packets: Buffer[]): Buffer {
  const lacing: number[] = [];
  for (const p of packets) {
    for (let left = p.length; ; left -= 255) {
      lacing.push(Math.min(left, 255));
      if (left < 255) break;
    }
  }
  const head = Buffer.alloc(27 + lacing.length);
  head.write('OggS', 0, 'latin1');
  head[4] = 0; // version
  head[5] = flags;
  head.writeBigInt64LE(granule, 6);
  head.writeUInt32LE(serial, 14);
  head.writeUInt32LE(sequence, 18);
  head[26] = lacing.length;
  Buffer.from(lacing).copy(head, 27);
  const whole = Buffer.concat([head, ...packets]);
  whole.writeUInt32LE(oggCrc(whole), 22);
  return whole;
}

const segmentsOf = (p: Buffer) => Math.floor(p.length / 255) + 1;

/** OpusHead (RFC 7845 §5.1): one channel (a stereo packet is mixed down by a mono decoder), no pre-skip, 48 kHz. */
function opusHead(): Buffer {
  const h = Buffer.alloc(19);
  h.write('OpusHead', 0, 'latin1');
  h[8] = 1; // version
  h[9] = 1; // channels
  h.writeUInt16LE(0, 10); // pre-skip
  h.writeUInt32LE(48_000, 12); // the input's rate, for information
  h.writeInt16LE(0, 16); // output gain
  h[18] = 0; // channel mapping family
  return h;
}

function opusTags(vendor: string): Buffer {
  const v = Buffer.from(vendor, 'utf8');
  const t = Buffer.alloc(8 + 4 + v.length + 4);
  t.write('OpusTags', 0, 'latin1');
  t.writeUInt32LE(v.length, 8);
  v.copy(t, 12);
  t.writeUInt32LE(0, 12 + v.length); // no comments
  return t;
}

/**
 * The pages of an Ogg Opus file of `packets` (each with its duration): the two header pages, then as many packets a
 * page as its 255 segments hold, the last page marked as the end. A packet too large to fit one page cannot be
 * Opus (a packet is at most 48 frames of 1275 bytes) and is left out.
 */
export async function* oggOpusPages(packets: AsyncIterable<{ packet: Buffer; ms: number }>, serial = 0x5452_414e): AsyncGenerator<Buffer> {
  let sequence = 0;
  yield page(BOS, 0n, serial, sequence++, [opusHead()]);
  yield page(0, 0n, serial, sequence++, [opusTags('transcript-service')]);
  let granule = 0n;
  let open: Buffer[] = [];
  let openSegments = 0;
  // One page is held back, so the last can be marked EOS when the packets end.
  let held: { granule: bigint; packets: Buffer[] } | null = null;
  const emit = function* (next: { granule: bigint; packets: Buffer[] } | null, last: boolean) {
    if (held) yield page(last ? EOS : 0, held.granule, serial, sequence++, held.packets);
    held = next;
  };
  for await (const { packet, ms } of packets) {
    const segments = segmentsOf(packet);
    if (segments > MAX_SEGMENTS) continue;
    if (openSegments + segments > MAX_SEGMENTS) {
      yield* emit({ granule, packets: open }, false);
      open = [];
      openSegments = 0;
    }
    open.push(packet);
    openSegments += segments;
    granule += BigInt(Math.round(ms * SAMPLES_PER_MS));
  }
  if (open.length > 0) yield* emit({ granule, packets: open }, false);
  if (held) yield* emit(null, true);
  else yield page(EOS, 0n, serial, sequence++, []); // no audio: an empty last page ends the stream
}
