import { mediaTypeEssence } from './object-store';

// What the first bytes of a file say it is. Uploads and direct links are
// checked with this before any decoder sees them, so that an HTML page, a
// script or an archive is refused as UNSUPPORTED_MEDIA up front. ffprobe later
// decides whether the media is actually readable (INVALID_MEDIA).
//
// Hand-written rather than the `file-type` package: that one is ESM-only, reads
// up to 4 KB and knows ~150 formats; we need the handful below from 64 bytes.

export type MediaFormat = 'mp3' | 'aac' | 'wav' | 'mp4' | 'ogg' | 'webm' | 'flac' | 'matroska' | 'quicktime' | 'aiff' | 'mpegts';

/** Bytes to read for sniffing. */
export const SNIFF_BYTES = 64;

/** The formats an upload may have (spec: mp3, wav, m4a, ogg, aac, mp4, webm). */
export const UPLOAD_FORMATS: ReadonlySet<MediaFormat> = new Set(['mp3', 'aac', 'wav', 'mp4', 'ogg', 'webm']);

/** The media format of a file from its first bytes (at least SNIFF_BYTES when the file is that long), or null. */
export function sniffMedia(head: Buffer): MediaFormat | null {
  const ascii = (from: number, to: number) => head.toString('latin1', from, to);
  if (head.length >= 4 && ascii(0, 4) === 'fLaC') return 'flac';
  if (head.length >= 4 && ascii(0, 4) === 'OggS') return 'ogg';
  if (head.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'wav';
  if (head.length >= 12 && ascii(0, 4) === 'FORM' && (ascii(8, 12) === 'AIFF' || ascii(8, 12) === 'AIFC')) return 'aiff';
  if (head.length >= 12 && ascii(4, 8) === 'ftyp') return ascii(8, 12) === 'qt  ' ? 'quicktime' : 'mp4';
  // A fragment of fragmented MP4 (an HLS or DASH media segment) opens with its segment type or its first fragment.
  if (head.length >= 8 && (ascii(4, 8) === 'styp' || ascii(4, 8) === 'moof')) return 'mp4';
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) {
    // EBML header; the DocType element says which Matroska flavour.
    const text = ascii(4, Math.min(head.length, SNIFF_BYTES));
    if (text.includes('webm')) return 'webm';
    if (text.includes('matroska')) return 'matroska';
    return null;
  }
  // An ID3v2 tag comes first in most MP3 files (rarely before ADTS AAC; ffprobe tells those apart later).
  if (head.length >= 10 && ascii(0, 3) === 'ID3' && head[3]! < 0xff && head[4]! < 0xff) return 'mp3';
  if (head.length >= 4 && head[0] === 0xff) {
    const b1 = head[1]!;
    const b2 = head[2]!;
    // ADTS (raw AAC): 12-bit sync, layer 00; sampling index 13-15 is reserved.
    if ((b1 & 0xf6) === 0xf0) return ((b2 >> 2) & 0x0f) <= 12 ? 'aac' : null;
    // MPEG audio frame: 11-bit sync, version != reserved, layer != reserved, bitrate != bad, rate != reserved.
    const version = (b1 >> 3) & 0x3;
    const layer = (b1 >> 1) & 0x3;
    if ((b1 & 0xe0) === 0xe0 && version !== 1 && layer !== 0 && b2 >> 4 !== 0xf && ((b2 >> 2) & 0x3) !== 3) return 'mp3';
  }
  // MPEG transport stream (an HLS media segment): 188-byte packets, each opening with the sync byte 0x47; the first
  // packet without the transport-error flag. A second sync byte is checked where the head reaches it.
  if (head.length >= 4 && head[0] === 0x47 && (head[1]! & 0x80) === 0 && (head.length <= 188 || head[188] === 0x47)) return 'mpegts';
  return null;
}

/** The first bytes of an HLS playlist (RFC 8216 §4.3.1.1: the first line is #EXTM3U), after an optional byte order mark. */
export function isHlsPlaylistHead(head: Buffer): boolean {
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  return text.startsWith('#EXTM3U');
}

/** The Content-Types an HLS playlist is served with (RFC 8216 §4: the first two; the others are common) or a generic text or binary type. */
export function isHlsPlaylistContentType(contentType: string): boolean {
  const t = mediaTypeEssence(contentType);
  return (
    t === 'application/vnd.apple.mpegurl' ||
    t === 'audio/mpegurl' ||
    t === 'application/x-mpegurl' ||
    t === 'audio/x-mpegurl' ||
    t === 'text/plain' ||
    t === 'application/octet-stream' ||
    t === 'binary/octet-stream'
  );
}

/**
 * Which sniffed formats a declared Content-Type admits. Lenient where clients
 * commonly mislabel (an .m4a sent as audio/aac; webm audio as audio/ogg is not).
 */
const FORMATS_BY_TYPE: Record<string, readonly MediaFormat[]> = {
  'audio/mpeg': ['mp3'],
  'audio/mp3': ['mp3'],
  'audio/wav': ['wav'],
  'audio/x-wav': ['wav'],
  'audio/wave': ['wav'],
  'audio/vnd.wave': ['wav'],
  'audio/mp4': ['mp4'],
  'audio/x-m4a': ['mp4'],
  'audio/m4a': ['mp4'],
  'video/mp4': ['mp4'],
  'audio/aac': ['aac', 'mp4'],
  'audio/x-aac': ['aac', 'mp4'],
  'audio/ogg': ['ogg'],
  'application/ogg': ['ogg'],
  'video/ogg': ['ogg'],
  'audio/webm': ['webm'],
  'video/webm': ['webm'],
  'audio/flac': ['flac'],
  'audio/x-flac': ['flac'],
  'video/x-matroska': ['matroska', 'webm'],
  'video/quicktime': ['quicktime', 'mp4'],
  'audio/aiff': ['aiff'],
  'audio/x-aiff': ['aiff'],
  'video/mp2t': ['mpegts'],
  'audio/mp2t': ['mpegts'],
};

/** Whether a sniffed format fits a declared Content-Type (unknown types fit nothing). */
export function formatMatchesType(format: MediaFormat, contentType: string): boolean {
  return FORMATS_BY_TYPE[mediaTypeEssence(contentType)]?.includes(format) ?? false;
}

/**
 * Whether a Content-Type header may label audio or video. Generic binary types
 * pass here (many servers send them for media files); sniffing then decides.
 */
export function isMediaContentType(contentType: string): boolean {
  const t = mediaTypeEssence(contentType);
  return (
    t.startsWith('audio/') ||
    t.startsWith('video/') ||
    t in FORMATS_BY_TYPE ||
    t === 'application/octet-stream' ||
    t === 'binary/octet-stream' ||
    t === 'application/mp4'
  );
}
