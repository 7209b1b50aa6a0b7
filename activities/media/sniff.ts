// A container guess from a file's first bytes, so that content which is
// plainly not media (an HTML error page, a JSON body, a PDF) is refused
// before it is stored or handed to ffprobe. It only reads magic numbers: a
// file that passes still has to be read by ffprobe (probe.ts).

export type MediaContainer = 'mp3' | 'wav' | 'ogg' | 'mp4' | 'm4a' | 'webm' | 'mkv' | 'aac' | 'flac';

/** Bytes worth reading for sniffMediaType: the EBML DocType sits within the first few dozen bytes. */
export const SNIFF_BYTES = 64;

export function sniffMediaType(firstBytes: Buffer): MediaContainer | null {
  const b = firstBytes;
  const ascii = (start: number, len: number) => b.toString('latin1', start, start + len);
  if (b.length < 4) return null;

  if (ascii(0, 3) === 'ID3') return 'mp3'; // ID3v2 tag in front of MPEG audio frames
  if ((ascii(0, 4) === 'RIFF' || ascii(0, 4) === 'RF64') && ascii(8, 4) === 'WAVE') return 'wav';
  if (ascii(0, 4) === 'OggS') return 'ogg';
  if (ascii(0, 4) === 'fLaC') return 'flac';
  if (ascii(4, 4) === 'ftyp') {
    // The major brand says whether the ISO file is meant as audio only.
    const brand = ascii(8, 4);
    return brand === 'M4A ' || brand === 'M4B ' ? 'm4a' : 'mp4';
  }
  if (b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) {
    // EBML header: Matroska and WebM differ only in the DocType string.
    return ascii(0, Math.min(b.length, SNIFF_BYTES)).includes('webm') ? 'webm' : 'mkv';
  }
  if (b[0] === 0xff && (b[1] & 0xf0) === 0xf0 && (b[1] & 0x06) === 0) return 'aac'; // ADTS sync, layer bits 00
  if (b[0] === 0xff && (b[1] & 0xe0) === 0xe0 && (b[1] & 0x06) !== 0 && (b[1] & 0x18) !== 0x08) return 'mp3'; // MPEG audio frame sync, valid version and layer
  return null;
}
