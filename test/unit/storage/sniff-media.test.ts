import { formatMatchesType, isMediaContentType, sniffMedia } from '../../../integrations/storage/sniff-media';
import { HEADS, padded, wavFile } from '../../storage/media-samples';

describe('sniffMedia', () => {
  test.each([
    ['wav', wavFile(10), 'wav'],
    ['mp3 with ID3', padded(HEADS.mp3Id3, 64), 'mp3'],
    ['mp3 frame', padded(HEADS.mp3Frame, 64), 'mp3'],
    ['ADTS aac', padded(HEADS.aacAdts, 64), 'aac'],
    ['m4a', padded(HEADS.m4a, 64), 'mp4'],
    ['mp4', padded(HEADS.mp4, 64), 'mp4'],
    ['mov', padded(HEADS.mov, 64), 'quicktime'],
    ['ogg', padded(HEADS.ogg, 64), 'ogg'],
    ['webm', padded(HEADS.webm, 64), 'webm'],
    ['mkv', padded(HEADS.mkv, 64), 'matroska'],
    ['flac', padded(HEADS.flac, 64), 'flac'],
  ])('%s', (_name, head, format) => {
    expect(sniffMedia(head)).toBe(format);
  });

  test.each([
    ['html', padded(HEADS.html, 64)],
    ['zip', padded(HEADS.zip, 64)],
    ['png', padded(HEADS.png, 64)],
    ['empty', Buffer.alloc(0)],
    ['zeros', Buffer.alloc(64)],
    ['0xff then junk', Buffer.from([0xff, 0x00, 0x00, 0x00])],
    ['bad mp3 bitrate', Buffer.from([0xff, 0xfb, 0xf0, 0x00])],
    ['EBML without a known doctype', padded(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), 64)],
  ])('%s is no media', (_name, head) => {
    expect(sniffMedia(head)).toBeNull();
  });

  test('formatMatchesType and isMediaContentType', () => {
    expect(formatMatchesType('mp3', 'audio/mpeg')).toBe(true);
    expect(formatMatchesType('mp3', 'Audio/MPEG; x=y')).toBe(true);
    expect(formatMatchesType('wav', 'audio/mpeg')).toBe(false);
    expect(formatMatchesType('mp4', 'text/html')).toBe(false);
    expect(isMediaContentType('video/x-msvideo')).toBe(true);
    expect(isMediaContentType('application/octet-stream')).toBe(true);
    expect(isMediaContentType('text/html; charset=utf-8')).toBe(false);
    expect(isMediaContentType('application/json')).toBe(false);
  });
});
