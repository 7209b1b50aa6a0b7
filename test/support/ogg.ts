/**
 * The packets of an Ogg Opus file (RFC 7845) without its two header packets: what a client of
 * `GET /v1/listen?encoding=opus` sends, one a message, when its encoder writes Ogg (ffmpeg, libopus tools).
 */
export function oggOpusPackets(file: Buffer): Buffer[] {
  const packets: Buffer[] = [];
  let parts: Buffer[] = [];
  let at = 0;
  while (at < file.length) {
    if (file.toString('latin1', at, at + 4) !== 'OggS') throw new Error(`no Ogg page at byte ${at}`);
    const segments = file[at + 26]!;
    let body = at + 27 + segments;
    for (const lace of file.subarray(at + 27, at + 27 + segments)) {
      parts.push(file.subarray(body, body + lace));
      body += lace;
      // A lacing value under 255 ends a packet; 255 continues it in the next segment (or page).
      if (lace < 255) {
        packets.push(Buffer.concat(parts));
        parts = [];
      }
    }
    at = body;
  }
  const [head, tags] = packets;
  if (head?.toString('latin1', 0, 8) !== 'OpusHead' || tags?.toString('latin1', 0, 8) !== 'OpusTags') throw new Error('not Ogg Opus');
  return packets.slice(2);
}
