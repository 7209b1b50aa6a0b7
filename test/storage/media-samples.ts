// Small media files made in code, for sniffing and upload tests.

/** A valid WAV file: 44-byte header and `samples` silent 16-bit mono samples at 8 kHz. */
export function wavFile(samples = 800): Buffer {
  const data = samples * 2;
  const b = Buffer.alloc(44 + data);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(36 + data, 4);
  b.write('WAVEfmt ', 8, 'latin1');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(16000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'latin1');
  b.writeUInt32LE(data, 40);
  return b;
}

/** `size` bytes starting with the given head, the rest filled with a repeating pattern. */
export function padded(head: Buffer | string, size: number): Buffer {
  const b = Buffer.alloc(size, 0x55);
  (typeof head === 'string' ? Buffer.from(head, 'latin1') : head).copy(b);
  return b;
}

export const HEADS = {
  mp3Id3: Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1'),
  mp3Frame: Buffer.from([0xff, 0xfb, 0x90, 0x64]), // MPEG-1 layer III, 128 kbit/s, 44.1 kHz
  aacAdts: Buffer.from([0xff, 0xf1, 0x50, 0x80]), // ADTS, AAC LC, 44.1 kHz
  m4a: Buffer.from('\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00', 'latin1'),
  mp4: Buffer.from('\x00\x00\x00\x20ftypisom\x00\x00\x02\x00', 'latin1'),
  mov: Buffer.from('\x00\x00\x00\x14ftypqt  \x00\x00\x00\x00', 'latin1'),
  ogg: Buffer.from('OggS\x00\x02', 'latin1'),
  webm: Buffer.from('\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08\x42\x82\x84webm', 'latin1'),
  mkv: Buffer.from('\x1a\x45\xdf\xa3\xa3\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08\x42\x82\x88matroska', 'latin1'),
  flac: Buffer.from('fLaC\x00\x00\x00\x22', 'latin1'),
  html: Buffer.from('<!doctype html><html><head><title>x</title></head><body>hello</body></html>', 'latin1'),
  zip: Buffer.from('PK\x03\x04\x14\x00\x00\x00', 'latin1'),
  png: Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'),
};
