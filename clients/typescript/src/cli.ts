import { parseArgs } from 'node:util';
import { FINAL_JOB_STATUSES, TranscriptClient, type ExportFormat, type Job, type JobRequest } from './client';
import { TranscriptApiError, TranscriptTimeoutError } from './errors';

/** Exit codes: what a script calling `transcript` branches on. */
export const EXIT = {
  ok: 0,
  /** Something unexpected (a bug, the network gone after the retries). */
  failure: 1,
  /** The command line is wrong (unknown command or option, missing argument or key). */
  usage: 2,
  /** The API refused the request, or the job ended failed or cancelled. */
  refused: 3,
  /** The job was not final within --timeout. */
  timeout: 4,
} as const;

const HELP = `Usage: transcript <command> [options]

Commands:
  get <url>            Transcribe a video or media link and print the transcript when it is ready
  upload <file>        Upload a local audio or video file, transcribe it, print the transcript
  jobs list            List your jobs, newest first
  search <query>       Find where something was said across your transcripts
  usage                Show credits and plan

Options for get and upload:
  --format <f>         txt (default), srt, vtt, json or chapters (WebVTT chapters; implies --chapters)
  --chapters           Ask for chapters: the video's own, or found from what is said (free)
  --filter-profanity   Mask profanity ("f***") in the transcript (free)
  --no-fillers         Drop fillers ("um", "euh") and words said twice in a row (free)
  --redact-pii         Replace e-mail addresses, phone, card and IBAN numbers by [EMAIL], [PHONE] … (free)
  --translate-to <l>   Also translate into this language (BCP 47, e.g. pt) and print the translation (free)
  --summarize          Also summarise it: the summary and key points go to stderr, the transcript to stdout (free)
  --mode <m>           get only: auto (default), captions_only or transcribe
  --language <tag>     Spoken language hint (e.g. en, pt-BR); default: detected
  --timeout <seconds>  Give up waiting after this long (default 1800); the job keeps running
  --follow             Print the words to stderr as they are transcribed, before the transcript (AI transcription)
  --quiet              No progress on stderr
Options for jobs list:
  --limit <n>          At most this many jobs (default 20)
  --status <s>         Only jobs with this status
Options for search:
  --limit <n>          At most this many moments (default 10, at most 50)
  --language <tag>     Only moments in this language
  --mode <m>           hybrid (words and meaning; the default), keyword or semantic
Options for every command:
  --json               Print the API's JSON instead of text
  --help               This text

Environment: TRANSCRIPT_API_KEY (required), TRANSCRIPT_API_URL (default http://localhost:3000).
Exit codes: 0 done, 1 unexpected failure, 2 usage error, 3 refused by the API or job failed, 4 timed out.
`;

class UsageError extends Error {}

interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether stderr is a terminal (progress then rewrites one line). */
  errIsTty: boolean;
  env: NodeJS.ProcessEnv;
}

const defaultIo = (): Io => ({
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  errIsTty: Boolean(process.stderr.isTTY),
  env: process.env,
});

/** Progress on stderr for a job that takes a while: each new status and stage, with the time spent. */
function progress(io: Io, quiet: boolean) {
  const started = Date.now();
  return (job: Job) => {
    if (quiet) return;
    const seconds = Math.round((Date.now() - started) / 1000);
    const line = `${job.id.slice(0, 8)} ${job.status}${job.stage ? ` (${job.stage})` : ''} ${seconds}s`;
    io.err(io.errIsTty ? `\r\x1b[K${line}` : `${line}\n`);
  };
}

async function transcriptOf(
  client: TranscriptClient,
  io: Io,
  request: JobRequest,
  opts: {
    format: ExportFormat;
    timeoutSeconds: number;
    quiet: boolean;
    follow: boolean;
    json: boolean;
    translated: boolean;
    summarized: boolean;
  },
): Promise<number> {
  let job: Job;
  if (opts.follow) {
    // The growing transcript: each segment once, as its part of the recording is transcribed, then the job.
    const created = await client.jobs.create(request);
    const stream = client.jobs.stream(created.id, { timeoutMs: opts.timeoutSeconds * 1000 });
    let next = await stream.next();
    for (; !next.done; next = await stream.next()) io.err(`[${clock(next.value.start)}] ${next.value.text}\n`);
    job = next.value;
  } else {
    job = await client.jobs.createAndWait(request, { timeoutMs: opts.timeoutSeconds * 1000, onUpdate: progress(io, opts.quiet) });
    if (!opts.quiet && io.errIsTty) io.err('\n');
  }
  if (job.status !== 'succeeded' || !job.result_id) {
    io.err(`transcript: the job ${job.status}${job.error ? `: ${job.error.code}: ${job.error.message}` : ''} (job ${job.id})\n`);
    if (opts.json) io.out(`${JSON.stringify(job, null, 2)}\n`);
    return EXIT.refused;
  }
  const text = opts.json
    ? await client.transcripts.export(job.result_id, 'json')
    : await client.transcripts.export(job.result_id, opts.format, opts.translated ? { translated: true } : {});
  io.out(text.endsWith('\n') ? text : `${text}\n`);
  // The summary beside the transcript, not in it: stdout stays the file the format names (the json holds it already).
  if (opts.summarized && !opts.json) {
    const { summary } = await client.transcripts.get(job.result_id);
    if (summary) io.err(`summary: ${summary.text}\n${summary.key_points.map((p) => `  - ${p}\n`).join('')}`);
  }
  return EXIT.ok;
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string, fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function positiveInt(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`--${name} must be a whole number of at least 1`);
  return Number(value);
}

/** Seconds as h:mm:ss or m:ss, as a player shows them. */
function clock(seconds: number): string {
  const s = Math.floor(seconds);
  const [h, m, r] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${String(r).padStart(2, '0')}` : `${m}:${String(r).padStart(2, '0')}`;
}

/** Runs one command line; returns the exit code (bin/transcript.js exits with it). */
export async function main(argv: string[], io: Io = defaultIo()): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        format: { type: 'string' },
        mode: { type: 'string' },
        language: { type: 'string' },
        timeout: { type: 'string' },
        limit: { type: 'string' },
        status: { type: 'string' },
        quiet: { type: 'boolean', default: false },
        follow: { type: 'boolean', default: false },
        chapters: { type: 'boolean', default: false },
        'filter-profanity': { type: 'boolean', default: false },
        'no-fillers': { type: 'boolean', default: false },
        'translate-to': { type: 'string' },
        'redact-pii': { type: 'boolean', default: false },
        summarize: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (err) {
    io.err(`transcript: ${(err as Error).message}\n\n${HELP}`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    (values.help ? io.out : io.err)(HELP);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  try {
    const [command, ...rest] = positionals;
    if (!io.env.TRANSCRIPT_API_KEY)
      throw new UsageError('set TRANSCRIPT_API_KEY to an API key (create one in the dashboard under API keys)');
    const client = new TranscriptClient({ apiKey: io.env.TRANSCRIPT_API_KEY, baseUrl: io.env.TRANSCRIPT_API_URL });
    const format = oneOf(values.format, ['txt', 'srt', 'vtt', 'json', 'chapters'] as const, 'format', 'txt');
    const timeoutSeconds = positiveInt(values.timeout, 'timeout', 1800);
    const translateTo = values['translate-to'];
    if (translateTo !== undefined && (format === 'json' || format === 'chapters'))
      throw new UsageError(
        '--translate-to prints the translation as txt, srt or vtt (the json format holds it already: leave --translate-to out of --format json)',
      );
    const common = {
      format,
      timeoutSeconds,
      quiet: values.quiet,
      follow: values.follow,
      json: values.json,
      translated: translateTo !== undefined,
      summarized: values.summarize,
    };
    const jobOptions = {
      ...(values.language ? { language: values.language } : {}),
      ...(values.chapters || format === 'chapters' ? { chapters: true } : {}),
      ...(values['filter-profanity'] ? { filter_profanity: true } : {}),
      ...(values['no-fillers'] ? { disfluencies: false } : {}),
      ...(translateTo !== undefined ? { translate_to: translateTo } : {}),
      ...(values['redact-pii'] ? { redact_pii: true } : {}),
      ...(values.summarize ? { summarize: true } : {}),
    };
    switch (command) {
      case 'get': {
        if (rest.length !== 1) throw new UsageError('get takes one link: transcript get <url>');
        const mode = oneOf(values.mode, ['auto', 'captions_only', 'transcribe'] as const, 'mode', 'auto');
        return await transcriptOf(client, io, { source: { url: rest[0]! }, mode, ...jobOptions }, common);
      }
      case 'upload': {
        if (rest.length !== 1) throw new UsageError('upload takes one file: transcript upload <file>');
        if (values.mode !== undefined && values.mode !== 'transcribe')
          throw new UsageError('a file is always transcribed: --mode transcribe');
        if (!values.quiet) io.err(`uploading ${rest[0]}\n`);
        const upload = await client.uploads.uploadFile(rest[0]!);
        return await transcriptOf(client, io, { source: { upload_id: upload.id }, mode: 'transcribe', ...jobOptions }, common);
      }
      case 'jobs': {
        if (rest[0] !== 'list' || rest.length !== 1) throw new UsageError('jobs takes one subcommand: transcript jobs list');
        const limit = positiveInt(values.limit, 'limit', 20);
        const status =
          values.status === undefined
            ? undefined
            : oneOf(values.status, [...FINAL_JOB_STATUSES, 'queued', 'processing', 'awaiting_provider'] as const, 'status', 'queued');
        const jobs: Job[] = [];
        for await (const job of client.jobs.iterate({ limit: Math.min(limit, 100) })) {
          if (status === undefined || job.status === status) jobs.push(job);
          if (jobs.length >= limit) break;
        }
        if (values.json) io.out(`${JSON.stringify(jobs, null, 2)}\n`);
        else
          for (const j of jobs)
            io.out(
              `${j.id}\t${j.status}\t${j.options.mode}\t${j.created_at}\t${j.source.canonical_url ?? j.source.title ?? j.source.media_id}\n`,
            );
        return EXIT.ok;
      }
      case 'search': {
        if (rest.length !== 1) throw new UsageError('search takes one query (quote it): transcript search "what was said"');
        const limit = positiveInt(values.limit, 'limit', 10);
        const searchMode = values.mode ? { mode: oneOf(values.mode, ['hybrid', 'keyword', 'semantic'] as const, 'mode', 'hybrid') } : {};
        const found = await client.transcripts.search({
          q: rest[0]!,
          limit: Math.min(limit, 50),
          ...(values.language ? { language: values.language } : {}),
          ...searchMode,
        });
        if (values.json) io.out(`${JSON.stringify(found, null, 2)}\n`);
        else
          for (const m of found.moments)
            io.out(`${m.transcript_id}\t${clock(m.start)}\t${m.source.title ?? m.source.media_id}\t${m.text}\t${m.link ?? ''}\n`);
        return EXIT.ok;
      }
      case 'usage': {
        if (rest.length !== 0) throw new UsageError('usage takes no arguments');
        const usage = await client.usage();
        if (values.json) io.out(`${JSON.stringify(usage, null, 2)}\n`);
        else
          io.out(
            `plan\t${usage.plan}\ncredits remaining\t${usage.credits_remaining}\ncredits reserved\t${usage.credits_reserved}\nperiod ends\t${usage.period_end}\n`,
          );
        return EXIT.ok;
      }
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`transcript: ${err.message}\n`);
      return EXIT.usage;
    }
    if (err instanceof TranscriptApiError) {
      io.err(`transcript: ${err.message}${err.requestId ? ` [request ${err.requestId}]` : ''}\n`);
      return EXIT.refused;
    }
    if (err instanceof TranscriptTimeoutError) {
      io.err(`transcript: ${err.message}; it keeps running: transcript jobs list\n`);
      return EXIT.timeout;
    }
    io.err(`transcript: ${(err as Error).message ?? String(err)}\n`);
    return EXIT.failure;
  }
}
