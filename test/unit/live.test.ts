import { parse, types } from 'hls-parser';
import { liveCut, LIVE_MAX_PIECE_MS, LIVE_MIN_PIECE_MS } from '../../domain/jobs/live';
import { firstSegmentToFollow, mediaPlaylist, mediaPlaylistOf } from '../../integrations/media/hls';
import { isHlsPlaylistLink } from '../../integrations/platforms/links';
import { isHlsPlaylistHead, sniffMedia } from '../../integrations/storage/sniff-media';

const BASE = 'https://cdn.example.com/live/stream.m3u8';

function media(lines: string[]) {
  return mediaPlaylist(parse(['#EXTM3U', ...lines].join('\n')) as types.MediaPlaylist, BASE);
}

const sliding = (first: number, count: number, extra: string[] = []) =>
  media([
    '#EXT-X-VERSION:3',
    '#EXT-X-TARGETDURATION:2',
    `#EXT-X-MEDIA-SEQUENCE:${first}`,
    ...extra,
    ...Array.from({ length: count }, (_, i) => [`#EXTINF:2.000,`, `seg-${first + i}.ts`]).flat(),
  ]);

describe('live pieces: where the waiting audio is cut (liveCut)', () => {
  const pause = (startMs: number, endMs: number) => ({ startMs, endMs });
  it('waits until LIVE_MIN_PIECE_MS of audio waits, then cuts in the middle of the longest pause past 2 s', () => {
    expect(liveCut(LIVE_MIN_PIECE_MS - 1, [pause(2500, 3000)], false)).toBeNull();
    expect(liveCut(6000, [pause(2500, 2700), pause(4000, 5000)], false)).toBe(4500);
    // A pause before 2 s is too early for a piece; one that reaches the end of what was heard is cut short of it.
    expect(liveCut(6000, [pause(500, 1500)], false)).toBeNull();
    expect(liveCut(6000, [pause(5000, 6000)], false)).toBe(Math.round((5000 + 5850) / 2));
  });
  it('without a pause: waits up to LIVE_MAX_PIECE_MS, then cuts there; at the end of the stream, all of it', () => {
    expect(liveCut(LIVE_MAX_PIECE_MS - 1, [], false)).toBeNull();
    expect(liveCut(LIVE_MAX_PIECE_MS + 3000, [], false)).toBe(LIVE_MAX_PIECE_MS);
    expect(liveCut(1234, [], true)).toBe(1234);
    expect(liveCut(0, [], true)).toBeNull();
  });
});

describe('HLS playlists as a live job reads them', () => {
  it('segments with their media sequence numbers, absolute URLs and lengths; live, event and finished playlists told apart', () => {
    const live = sliding(40, 3);
    expect(live.type).toBe('live');
    expect(live.ended).toBe(false);
    expect(live.segments.map((s) => [s.seq, s.url, s.durationMs])).toEqual([
      [40, 'https://cdn.example.com/live/seg-40.ts', 2000],
      [41, 'https://cdn.example.com/live/seg-41.ts', 2000],
      [42, 'https://cdn.example.com/live/seg-42.ts', 2000],
    ]);
    expect(sliding(0, 2, ['#EXT-X-PLAYLIST-TYPE:EVENT']).type).toBe('event');
    const ended = media(['#EXT-X-TARGETDURATION:2', '#EXTINF:2,', 'a.ts', '#EXT-X-ENDLIST']);
    expect([ended.type, ended.ended]).toEqual(['vod', true]);
    const fmp4 = media(['#EXT-X-VERSION:7', '#EXT-X-TARGETDURATION:2', '#EXT-X-MAP:URI="init.mp4"', '#EXTINF:2,', 'a.m4s']);
    expect(fmp4.segments[0]!.initUrl).toBe('https://cdn.example.com/live/init.mp4');
  });

  it('a live playlist is followed from what it lists of the last 30 s; an event or finished one from its first segment', () => {
    expect(firstSegmentToFollow(sliding(100, 6))).toBe(100);
    // 40 segments of 2 s: the last 15 are the last 30 s.
    expect(firstSegmentToFollow(sliding(100, 40))).toBe(125);
    expect(firstSegmentToFollow(sliding(100, 40, ['#EXT-X-PLAYLIST-TYPE:EVENT']))).toBe(100);
    expect(firstSegmentToFollow(sliding(7, 0))).toBeNull();
  });

  it('encrypted and byte-range playlists are refused as UNSUPPORTED_MEDIA, naming what they use', () => {
    const encrypted = () =>
      media(['#EXT-X-TARGETDURATION:2', '#EXT-X-KEY:METHOD=AES-128,URI="https://keys.example.com/k"', '#EXTINF:2,', 'a.ts']);
    expect(encrypted).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_MEDIA', detail: expect.stringContaining('AES-128') }));
    const ranges = () => media(['#EXT-X-VERSION:4', '#EXT-X-TARGETDURATION:2', '#EXTINF:2,', '#EXT-X-BYTERANGE:1000@0', 'all.ts']);
    expect(ranges).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_MEDIA', detail: expect.stringContaining('EXT-X-BYTERANGE') }));
  });

  it('a multivariant playlist: its audio-only rendition (the default first), else its lightest variant', () => {
    const withAudio = parse(
      [
        '#EXTM3U',
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",DEFAULT=NO,URI="audio/en-alt.m3u8"',
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="main",DEFAULT=YES,URI="audio/main.m3u8"',
        '#EXT-X-STREAM-INF:BANDWIDTH=800000,AUDIO="a"',
        'video/low.m3u8',
      ].join('\n'),
    ) as types.MasterPlaylist;
    expect(mediaPlaylistOf(withAudio, BASE)).toBe('https://cdn.example.com/live/audio/main.m3u8');
    const variants = parse(
      ['#EXTM3U', '#EXT-X-STREAM-INF:BANDWIDTH=3000000', 'hd.m3u8', '#EXT-X-STREAM-INF:BANDWIDTH=400000', 'sd.m3u8'].join('\n'),
    ) as types.MasterPlaylist;
    expect(mediaPlaylistOf(variants, BASE)).toBe('https://cdn.example.com/live/sd.m3u8');
  });

  it('playlist links and first bytes; transport stream segments sniffed as media', () => {
    expect(isHlsPlaylistLink('https://cdn.example.com/live/stream.m3u8?token=1')).toBe(true);
    expect(isHlsPlaylistLink('https://cdn.example.com/live/STREAM.M3U')).toBe(true);
    expect(isHlsPlaylistLink('https://cdn.example.com/talk.mp3')).toBe(false);
    expect(isHlsPlaylistLink('https://www.youtube.com/watch?v=dQw4w9WgXcQ')).toBe(false);
    expect(isHlsPlaylistLink('not a link')).toBe(false);
    expect(isHlsPlaylistHead(Buffer.from('\uFEFF#EXTM3U\n#EXT-X-VERSION:3'))).toBe(true);
    expect(isHlsPlaylistHead(Buffer.from('<html>'))).toBe(false);
    const ts = Buffer.alloc(376);
    ts[0] = 0x47;
    ts[188] = 0x47;
    expect(sniffMedia(ts)).toBe('mpegts');
    ts[188] = 0;
    expect(sniffMedia(ts)).toBeNull();
  });
});
