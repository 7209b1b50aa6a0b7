import { createHash } from 'node:crypto';
import { ServiceError } from '../../../core/errors';
import { recognizeLink } from '../../../integrations/platforms/links';

const ID = 'dQw4w9WgXcQ';
const WATCH = `https://www.youtube.com/watch?v=${ID}`;
const TT_ID = '7301234567890123456';
const TT = `https://www.tiktok.com/@i/video/${TT_ID}`;

function codeOf(url: string): string {
  try {
    recognizeLink(url);
  } catch (err) {
    if (err instanceof ServiceError) return err.code;
    throw err;
  }
  return 'OK';
}

describe('recognizeLink: videosite', () => {
  // Every form of one video gives the same id and canonical URL.
  test.each([
    [`https://www.youtube.com/watch?v=${ID}`],
    [`https://youtube.com/watch?v=${ID}`],
    [`https://m.youtube.com/watch?v=${ID}`],
    [`https://music.youtube.com/watch?v=${ID}&list=RDAMVM${ID}`],
    [`https://www.youtube.com/watch?app=desktop&v=${ID}&t=42s`],
    [`https://www.youtube.com/watch?v=${ID}&list=PL590L5WQmH8fJ54F369BLDSqIwcs-TCfs&index=2`],
    [`https://www.youtube.com/watch?v=${ID}&feature=youtu.be&si=abcDEF123`],
    [`https://youtu.be/${ID}`],
    [`https://youtu.be/${ID}?si=Lx3_abc&t=10`],
    [`https://www.youtube.com/shorts/${ID}`],
    [`https://youtube.com/shorts/${ID}?feature=share`],
    [`https://www.youtube.com/shorts/${ID}/`],
    [`https://www.youtube.com/live/${ID}?si=xyz`],
    [`https://www.youtube.com/embed/${ID}?start=30`],
    [`https://www.youtube-nocookie.com/embed/${ID}`],
    [`https://www.youtube.com/v/${ID}`],
    [`https://WWW.YouTube.com/watch?v=${ID}`],
    [`  https://www.youtube.com/watch?v=${ID}  `],
    [`https://www.youtube.com/watch?v=${ID}#t=1m`],
    [`https://www.youtube.com:443/watch?v=${ID}`],
  ])('%s', (url) => {
    expect(recognizeLink(url)).toEqual({ platform: 'videosite', mediaId: ID, canonicalUrl: WATCH, needsResolve: false });
  });

  test('ids keep their case and may contain - and _', () => {
    expect(recognizeLink('https://youtu.be/_PL2HJKxnOM').mediaId).toBe('_PL2HJKxnOM');
    expect(recognizeLink('https://www.youtube.com/watch?v=rCAS2eD-mcw').canonicalUrl).toBe('https://www.youtube.com/watch?v=rCAS2eD-mcw');
  });

  test.each([
    ['channel handle', 'https://www.youtube.com/@veritasium'],
    ['channel id', 'https://www.youtube.com/channel/UCHnyfMqiRRG1u-2MsSQLbXA'],
    ['playlist', 'https://www.youtube.com/playlist?list=PL590L5WQmH8fJ54F369BLDSqIwcs-TCfs'],
    ['playlist embed (11-letter name)', 'https://www.youtube.com/embed/videoseries?list=PL590L5WQmH8fJ54F369BLDSqIwcs-TCfs'],
    ['home page', 'https://www.youtube.com/'],
    ['search', 'https://www.youtube.com/results?search_query=bread'],
    ['watch without v', 'https://www.youtube.com/watch?list=PL590L5WQmH8fJ54F369BLDSqIwcs-TCfs'],
    ['id too short', 'https://www.youtube.com/watch?v=dQw4w9WgXc'],
    ['id too long', 'https://www.youtube.com/watch?v=dQw4w9WgXcQQ'],
    ['id with bad character', 'https://youtu.be/dQw4w9WgX$Q'],
    ['short link without id', 'https://youtu.be/'],
    ['shorts without id', 'https://www.youtube.com/shorts/'],
    ['channel live page', 'https://www.youtube.com/@veritasium/live'],
    ['other subdomain', 'https://studio.youtube.com/video/dQw4w9WgXcQ/edit'],
  ])('%s → UNSUPPORTED_SOURCE', (_name, url) => {
    expect(codeOf(url)).toBe('UNSUPPORTED_SOURCE');
  });
});

describe('recognizeLink: shortvideo', () => {
  test.each([
    [`https://www.tiktok.com/@handmade.creator/video/${TT_ID}`],
    [`https://www.tiktok.com/@handmade.creator/video/${TT_ID}?is_from_webapp=1&sender_device=pc`],
    [`https://tiktok.com/@someone_else/video/${TT_ID}/`],
    [`https://m.tiktok.com/v/${TT_ID}.html`],
    [`https://m.tiktok.com/v/${TT_ID}.html?u_code=abc`],
    [`https://www.tiktok.com/embed/v2/${TT_ID}`],
    [`https://www.tiktok.com/embed/${TT_ID}`],
    [`https://www.tiktok.com/player/v1/${TT_ID}?autoplay=1`],
  ])('%s', (url) => {
    expect(recognizeLink(url)).toEqual({ platform: 'shortvideo', mediaId: TT_ID, canonicalUrl: TT, needsResolve: false });
  });

  test.each([
    ['https://vm.tiktok.com/ZMabc123/', 'ZMabc123', 'https://vm.tiktok.com/ZMabc123/'],
    ['https://vm.tiktok.com/ZMabc123', 'ZMabc123', 'https://vm.tiktok.com/ZMabc123/'],
    ['https://vt.tiktok.com/ZSxyz789/?k=1', 'ZSxyz789', 'https://vt.tiktok.com/ZSxyz789/'],
    ['https://www.tiktok.com/t/ZT8abcDEF/', 'ZT8abcDEF', 'https://www.tiktok.com/t/ZT8abcDEF/'],
  ])('share link %s needs resolving', (url, code, canonical) => {
    expect(recognizeLink(url)).toEqual({ platform: 'shortvideo', mediaId: `share:${code}`, canonicalUrl: canonical, needsResolve: true });
  });

  test.each([
    ['profile', 'https://www.tiktok.com/@handmade.creator'],
    ['photo post', `https://www.tiktok.com/@handmade.creator/photo/${TT_ID}`],
    ['non-numeric id', 'https://www.tiktok.com/@handmade.creator/video/abc'],
    ['id too long', `https://www.tiktok.com/@x/video/${'9'.repeat(21)}`],
    ['explore page', 'https://www.tiktok.com/explore'],
    ['share host without code', 'https://vm.tiktok.com/'],
    ['other subdomain', 'https://ads.tiktok.com/business/'],
  ])('%s → UNSUPPORTED_SOURCE', (_name, url) => {
    expect(codeOf(url)).toBe('UNSUPPORTED_SOURCE');
  });
});

describe('recognizeLink: photosocial', () => {
  test.each([
    ['https://www.instagram.com/p/C1a2B3c4D5e/'],
    ['https://instagram.com/reel/C1a2B3c4D5e/?igsh=abc'],
    ['https://www.instagram.com/reels/C1a2B3c4D5e'],
    ['https://www.instagram.com/tv/C1a2B3c4D5e/'],
    ['https://www.instagram.com/someone/reel/C1a2B3c4D5e/'],
  ])('%s', (url) => {
    expect(recognizeLink(url)).toEqual({
      platform: 'photosocial',
      mediaId: 'C1a2B3c4D5e',
      canonicalUrl: 'https://www.instagram.com/p/C1a2B3c4D5e/',
      needsResolve: false,
    });
  });

  test.each([['https://www.instagram.com/someone/'], ['https://www.instagram.com/stories/someone/123/'], ['https://www.instagram.com/']])(
    '%s → UNSUPPORTED_SOURCE',
    (url) => {
      expect(codeOf(url)).toBe('UNSUPPORTED_SOURCE');
    },
  );
});

describe('recognizeLink: direct links', () => {
  test('any other https link is a direct link named by the hash of its normalised form', () => {
    const link = recognizeLink('https://CDN.Example.com:443/media/talk.mp3?sig=a%2Fb&x=1#player');
    expect(link.platform).toBe('direct');
    expect(link.canonicalUrl).toBe('https://cdn.example.com/media/talk.mp3?sig=a%2Fb&x=1');
    expect(link.mediaId).toBe(createHash('sha256').update('https://cdn.example.com/media/talk.mp3?sig=a%2Fb&x=1').digest('hex'));
    expect(link.needsResolve).toBe(false);
  });

  test('query order is kept (signed media URLs depend on it) and decides identity', () => {
    const a = recognizeLink('https://example.com/a.mp4?x=1&y=2');
    const b = recognizeLink('https://example.com/a.mp4?y=2&x=1');
    expect(a.canonicalUrl).toBe('https://example.com/a.mp4?x=1&y=2');
    expect(a.mediaId).not.toBe(b.mediaId);
  });

  test('a fragment does not change identity', () => {
    expect(recognizeLink('https://example.com/a.mp4#t=3').mediaId).toBe(recognizeLink('https://example.com/a.mp4').mediaId);
  });

  test('other video sites are direct links too (the media probe decides later)', () => {
    expect(recognizeLink('https://vimeo.com/123456').platform).toBe('direct');
  });
});

describe('recognizeLink: invalid links', () => {
  test.each([
    ['empty', ''],
    ['blank', '   '],
    ['not a URL', 'youtube.com/watch?v=dQw4w9WgXcQ'],
    ['http', `http://www.youtube.com/watch?v=${ID}`],
    ['ftp', 'ftp://example.com/a.mp3'],
    ['javascript', 'javascript:alert(1)'],
    ['credentials', 'https://user:pass@example.com/a.mp3'],
    ['user only', `https://user@www.youtube.com/watch?v=${ID}`],
    ['too long', `https://example.com/${'a'.repeat(2048)}`],
    ['bad host', 'https://exa mple.com/a.mp3'],
  ])('%s → INVALID_URL', (_name, url) => {
    expect(codeOf(url)).toBe('INVALID_URL');
  });

  test('exactly 2048 characters is still accepted', () => {
    const base = 'https://example.com/';
    expect(codeOf(base + 'a'.repeat(2048 - base.length))).toBe('OK');
    expect(codeOf(base + 'a'.repeat(2049 - base.length))).toBe('INVALID_URL');
  });

  test('errors name the field', () => {
    expect(() => recognizeLink('http://example.com/a.mp3')).toThrow(
      expect.objectContaining({ code: 'INVALID_URL', detail: expect.stringContaining('source.url') }),
    );
  });
});
