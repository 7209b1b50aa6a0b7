import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { testTls } from './tls';

// A live HLS stream on loopback, as a broadcaster runs one: ffmpeg reads a real recording in real time (-re) and
// writes 2 s MPEG-TS segments and a sliding playlist into a folder, which an https server on 127.0.0.1 serves.

const TYPES: Record<string, string> = { '.m3u8': 'application/vnd.apple.mpegurl', '.ts': 'video/mp2t' };

export interface HlsOrigin {
  base: string;
  dir: string;
  /** Every request the origin answered, in order (path and status). */
  requests: Array<{ path: string; status: number }>;
  /** Media segments are answered this much later (0: at once): a test holds a fetch in flight while it kills its worker. */
  segmentDelayMs: number;
  close(): Promise<void>;
}

/** Serves the files of `dir` over https on loopback (the test CA), by extension's content type. */
export async function startHlsOrigin(dir: string): Promise<HlsOrigin> {
  const tls = testTls();
  const requests: HlsOrigin['requests'] = [];
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, async (req, res) => {
    const name = path.basename(new URL(req.url ?? '/', 'https://x').pathname);
    const file = path.join(dir, name);
    let body: Buffer;
    try {
      body = fs.readFileSync(file);
    } catch {
      requests.push({ path: name, status: 404 });
      return void res.writeHead(404).end();
    }
    requests.push({ path: name, status: 200 });
    if (name.endsWith('.ts') && origin.segmentDelayMs > 0) await new Promise((r) => setTimeout(r, origin.segmentDelayMs));
    if (res.destroyed) return;
    res
      .writeHead(200, { 'content-type': TYPES[path.extname(name)] ?? 'application/octet-stream', 'content-length': String(body.length) })
      .end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  // The handler reads the delay from the object the test holds, so setting it takes effect at the next request.
  const origin: HlsOrigin = {
    base: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    dir,
    requests,
    segmentDelayMs: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  return origin;
}

export interface LiveEncoder {
  /** When ffmpeg began reading the recording: the air time of media second 0. */
  startedAt: number;
  /** The playlist's file name in the origin's folder. */
  playlist: string;
  process: ChildProcess;
  /** Resolves when ffmpeg exits (the recording ended: the playlist then carries EXT-X-ENDLIST). */
  done: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Airs `recording` in real time as HLS into `dir`: 2 s segments, a playlist of the last `listSize` of them
 * (older segments deleted), EXT-X-ENDLIST when the recording ends; `loop` airs it for ever (until stop()); with
 * `baseUrl`, the playlist names each segment by that URL and its file name.
 */
export async function airLive(
  recording: string,
  dir: string,
  opts: { listSize?: number; loop?: boolean; name?: string; baseUrl?: string } = {},
): Promise<LiveEncoder> {
  const name = opts.name ?? 'live';
  const args = ['-nostdin', '-hide_banner', '-v', 'error', '-re', ...(opts.loop ? ['-stream_loop', '-1'] : []), '-i', recording];
  args.push('-c:a', 'aac', '-b:a', '64k', '-ar', '44100', '-ac', '1', '-f', 'hls', '-hls_time', '2');
  args.push('-hls_list_size', String(opts.listSize ?? 6), '-hls_flags', 'delete_segments+temp_file+independent_segments');
  // A platform's playlists name their segments by absolute URLs on its media hosts.
  if (opts.baseUrl) args.push('-hls_base_url', opts.baseUrl);
  args.push('-hls_segment_filename', path.join(dir, `${name}-%05d.ts`), path.join(dir, `${name}.m3u8`));
  const startedAt = Date.now();
  const child = spawn('ffmpeg', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d.toString()));
  const done = new Promise<void>((resolve, reject) =>
    child.once('exit', (code, signal) => (code === 0 || signal ? resolve() : reject(new Error(`ffmpeg exited ${code}: ${stderr}`)))),
  );
  done.catch(() => undefined);
  // The playlist appears with the first segment.
  const playlist = path.join(dir, `${name}.m3u8`);
  for (let i = 0; i < 200 && !fs.existsSync(playlist); i++) await new Promise((r) => setTimeout(r, 50));
  if (!fs.existsSync(playlist)) throw new Error(`ffmpeg wrote no playlist: ${stderr}`);
  return {
    startedAt,
    playlist: `${name}.m3u8`,
    process: child,
    done,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await done;
      }
    },
  };
}
