import { randomBytes } from 'node:crypto';
import { access, constants, readdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ServiceError } from '../../core/errors';
import { DEFAULT_USER_AGENT } from '../outbound/http';
import { applyOriginOverride, assertLoopbackTarget, parseOriginOverride } from '../outbound/origin-override';
import { ToolMissingError, hostFault, lastLine, runTool } from './run-tool';

// Audio of a platform video, fetched by yt-dlp (the pinned one that
// stack/ytdlp-setup.sh puts in .tools/venv). yt-dlp's traffic obeys the same
// outbound settings as ours: first egress proxy, our User-Agent, and the
// origin override, so tests and replays run the real yt-dlp against loopback.

export type DownloadPlatform = 'videosite' | 'shortvideo';

export interface DownloadOptions {
  /** Folder the audio file is written to (one file, a fresh name). */
  toDir: string;
  /** As in OutboundConfig (domain/config.ts outboundSettings); loopbackOnly defaults on there too. */
  outbound: { originOverride?: string | null; proxies?: readonly string[]; loopbackOnly?: boolean };
  /** Whole download, extraction included; yt-dlp is killed after it. Default 10 min. */
  timeoutMs?: number;
  /** Default 250 MB (FILE_TOO_LARGE). */
  maxBytes?: number;
  signal?: AbortSignal;
}

export interface DownloadedAudio {
  file: string;
  title: string | null;
  durationSeconds: number | null;
}

export const YTDLP_VENV_BIN = resolve(__dirname, '../../.tools/venv/bin/yt-dlp');
export const DEFAULT_MAX_BYTES = 262_144_000;
const DEFAULT_TIMEOUT_MS = 10 * 60_000;
/** Per read/connect, like the outbound layer's per-request budget. */
const SOCKET_TIMEOUT_SECONDS = 15;
/** How often the folder is checked for a download growing past maxBytes. */
const SIZE_POLL_MS = 500;

export interface YtdlpArgsInput {
  outbound: DownloadOptions['outbound'];
  toDir: string;
  /** File name without extension; yt-dlp adds the format's. */
  stem: string;
  maxBytes?: number;
  socketTimeoutSeconds?: number;
}

/** The yt-dlp command line for one download (pure, so the override/proxy/header behaviour is unit-testable). */
export function buildYtdlpArgs(url: string, input: YtdlpArgsInput): string[] {
  const { target, forwardedHost } = applyOriginOverride(url, parseOriginOverride(input.outbound.originOverride));
  const proxy = input.outbound.proxies?.[0];
  const args = [
    '--ignore-config', // a yt-dlp.conf on the machine must not change what the worker does
    '--no-cookies',
    '--no-cookies-from-browser',
    '--no-playlist',
    '-f',
    'bestaudio/best',
    '--max-filesize',
    String(input.maxBytes ?? DEFAULT_MAX_BYTES),
    '--no-progress',
    // --print implies --quiet, which would also hide "File is larger than max-filesize" (yt-dlp then exits 0 without a file).
    '--no-quiet',
    '--socket-timeout',
    String(input.socketTimeoutSeconds ?? SOCKET_TIMEOUT_SECONDS),
    // A few quick retries; beyond that the activity's own retry policy decides.
    '--retries',
    '3',
    '--fragment-retries',
    '3',
    '--add-header',
    `User-Agent:${DEFAULT_USER_AGENT}`,
    // English messages whatever country the proxy is in: classifyYtdlpFailure reads them.
    '--add-header',
    'Accept-Language:en-US,en;q=0.9',
  ];
  if (forwardedHost !== null) args.push('--add-header', `X-Forwarded-Host:${forwardedHost}`);
  // Also for overridden traffic, as the outbound layer does: a replay sees what the platform would.
  if (proxy) args.push('--proxy', proxy);
  // -P is not a template, so a % in the folder name stays literal; the fresh stem never collides.
  args.push('-P', input.toDir, '-o', `${input.stem}.%(ext)s`);
  // One JSON line on stdout, written after the file has its final name.
  args.push('--print', 'after_move:%(.{filepath,title,duration})j');
  args.push('--', target);
  return args;
}

// First match wins, so the order matters: YouTube's bot check says "Sign in" too,
// and "Video unavailable. The uploader has not made this video available in your country" is a region block.
const FAILURES: ReadonlyArray<readonly [RegExp, ServiceError['code']]> = [
  [/larger than max-filesize/i, 'FILE_TOO_LARGE'],
  [/not a bot|captcha|IP address is blocked/i, 'SOURCE_BLOCKED'],
  [/HTTP Error 429|Too Many Requests|rate-limited/i, 'SOURCE_RATE_LIMITED'],
  // Not a bare "private": it could be part of a URL in the line.
  [/Private video|is private|private (account|post)|do not have permission to view this post/i, 'SOURCE_PRIVATE'],
  [
    /confirm your age|age-restricted|members-only|members on level|requires payment|log ?in (for access|required)|requiring login|login (details|required)|registered users/i,
    'SOURCE_AUTH_REQUIRED',
  ],
  [/available in your country|geo.?restrict|not available from your location/i, 'SOURCE_REGION_RESTRICTED'],
  [/Video unavailable|removed|HTTP Error 404|does not exist|has been terminated/i, 'SOURCE_NOT_FOUND'],
  [/HTTP Error 403/i, 'SOURCE_BLOCKED'],
  [/Unsupported URL|No video formats found|Requested format is not available/i, 'UNSUPPORTED_MEDIA'],
  // No answer at all is retryable like a timeout, as in the outbound layer.
  [
    /timed out|timeout|Connection refused|Connection reset|Name or service not known|Temporary failure in name resolution/i,
    'SOURCE_TIMEOUT',
  ],
];

/** Maps yt-dlp's output (stderr, plus stdout for the max-filesize notice) to a catalogue error. */
export function classifyYtdlpFailure(output: string, platform: DownloadPlatform = 'videosite'): ServiceError {
  // Only ERROR lines when there are any: warnings ("Sign in…", "Falling back…") are not the failure.
  const errors = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('ERROR:'));
  const text = errors.length > 0 ? errors.join('\n') : output;
  const line = (errors[errors.length - 1] ?? lastLine(output.replace(/\r/g, '\n'))).slice(0, 300);
  // A full or read-only disk here is not the platform changing: it is this worker's (retried all the same).
  const fault = hostFault('yt-dlp', text);
  if (fault) return fault;
  const code = FAILURES.find(([re]) => re.test(text))?.[1] ?? 'SOURCE_CHANGED';
  return new ServiceError(code, `${platform}: ${line || 'yt-dlp failed without a message'}`);
}

/** Downloads the best audio-only format (else the best format) of `url` into `opts.toDir`. */
export async function downloadAudio(url: string, platform: DownloadPlatform, opts: DownloadOptions): Promise<DownloadedAudio> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const stem = `audio-${randomBytes(6).toString('hex')}`;
  if (opts.outbound.loopbackOnly ?? true)
    assertLoopbackTarget(applyOriginOverride(url, parseOriginOverride(opts.outbound.originOverride)).target);
  const args = buildYtdlpArgs(url, {
    outbound: opts.outbound,
    toDir: opts.toDir,
    stem,
    maxBytes,
    socketTimeoutSeconds: Math.max(1, Math.min(SOCKET_TIMEOUT_SECONDS, Math.ceil(timeoutMs / 1000))),
  });
  const ours = () =>
    readdir(opts.toDir).then(
      (names) => names.filter((n) => n.startsWith(`${stem}.`)),
      () => [] as string[],
    );
  const removeOurs = async () => Promise.all((await ours()).map((n) => rm(join(opts.toDir, n), { force: true })));

  // Timeout and size limit abort with the catalogue error as the reason: runTool kills yt-dlp and rejects with it.
  const stop = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
  const timer = setTimeout(
    () => stop.abort(new ServiceError('SOURCE_TIMEOUT', `${platform}: download did not finish within ${timeoutMs} ms`)),
    timeoutMs,
  );
  // yt-dlp's --max-filesize only trusts Content-Length; a chunked or fragmented download is measured here.
  const poll = setInterval(async () => {
    const sizes = await Promise.all(
      (await ours()).map((n) =>
        stat(join(opts.toDir, n)).then(
          (s) => s.size,
          () => 0,
        ),
      ),
    );
    const total = sizes.reduce((a, b) => a + b, 0);
    if (total > maxBytes) stop.abort(new ServiceError('FILE_TOO_LARGE', `${platform}: download passed ${maxBytes} bytes`));
  }, SIZE_POLL_MS);

  try {
    const run = await runTool(await ytdlpCommand(), args, { signal, maxStderr: 16 * 1024 });
    if (run.code !== 0) throw classifyYtdlpFailure(`${run.stderr}\n${run.stdout}`, platform);
    const printed = run.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .pop();
    // Exit 0 without a file: yt-dlp skipped the download (max-filesize from Content-Length is the skip we enable).
    if (printed === undefined) throw classifyYtdlpFailure(run.stdout || 'yt-dlp exited without writing a file', platform);
    const info = JSON.parse(printed) as { filepath?: string; title?: string; duration?: number };
    if (!info.filepath) throw new ServiceError('SOURCE_CHANGED', `${platform}: yt-dlp did not report the file it wrote`);
    const size = (await stat(info.filepath)).size;
    if (size > maxBytes) throw new ServiceError('FILE_TOO_LARGE', `${platform}: ${size} bytes`);
    return {
      file: info.filepath,
      title: typeof info.title === 'string' ? info.title : null,
      durationSeconds: typeof info.duration === 'number' && Number.isFinite(info.duration) ? info.duration : null,
    };
  } catch (err) {
    await removeOurs(); // no half-written .part file left behind for the next attempt
    if (err instanceof ToolMissingError)
      throw new ServiceError('SERVICE_UNAVAILABLE', 'yt-dlp is not installed (run stack/ytdlp-setup.sh)', { cause: err });
    throw err;
  } finally {
    clearTimeout(timer);
    clearInterval(poll);
  }
}

/** The pinned venv binary when installed, else whatever yt-dlp is on PATH. */
async function ytdlpCommand(): Promise<string> {
  return access(YTDLP_VENV_BIN, constants.X_OK).then(
    () => YTDLP_VENV_BIN,
    () => 'yt-dlp',
  );
}
