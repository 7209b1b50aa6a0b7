import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceError } from '../../core/errors';
import { JobRequestSchema, jobSpecOf } from '../../domain/schemas/jobs';
import {
  indexTranscript,
  promptParts,
  readModelAnswer,
  summarizeTranscript,
  summaryRequest,
  unsupportedClaims,
} from '../../domain/transcripts/summary';
import type { Chapter } from '../../domain/transcripts/chapters';
import { createChatCompletions, type ChatRequest } from '../../integrations/llm/chat-completions';

// Issue 53, item 5 (`summarize`): the prompt cut to its budget by part, the model's answer read leniently, the check
// that drops what names a name or a number the transcript does not hold, and the chat-completions client as the
// API is published (a local server answering as OpenAI's does). The real model end to end: test/summaries.test.ts.

const SEGMENTS = [
  { start: 0, text: 'Welcome to the city council meeting of March 3.' },
  { start: 5, text: 'Mayor Alvarez opened the session and thanked the 12 volunteers.' },
  { start: 70, text: 'The budget for the new library is 1,200,000 dollars.' },
  { start: 75, text: 'Construction starts in spring and ends in two years.' },
  { start: 130, text: 'Questions from residents closed the meeting.' },
];
const CHAPTERS: Chapter[] = [
  { start: 0, end: 60, title: 'Opening', origin: 'computed' },
  { start: 60, end: 120, title: 'The library budget', origin: 'computed' },
  { start: 120, end: 150, title: 'Questions', origin: 'computed' },
];

function scriptedModel(answer: object | string) {
  const asked: ChatRequest[] = [];
  return {
    asked,
    llm: {
      model: 'scripted',
      async complete(req: ChatRequest) {
        asked.push(req);
        return { text: typeof answer === 'string' ? answer : JSON.stringify(answer), promptTokens: null, completionTokens: null };
      },
    },
  };
}

describe('the request field', () => {
  it('is part of the job spec, false unless asked', () => {
    expect(jobSpecOf(JobRequestSchema.parse({ source: { url: 'https://videosite.example/watch?v=abc' }, mode: 'auto' })).summarize).toBe(
      false,
    );
    expect(
      jobSpecOf(JobRequestSchema.parse({ source: { url: 'https://videosite.example/watch?v=abc' }, mode: 'auto', summarize: true }))
        .summarize,
    ).toBe(true);
    expect(
      JobRequestSchema.safeParse({ source: { url: 'https://videosite.example/watch?v=abc' }, mode: 'auto', summarize: 'yes' }).success,
    ).toBe(false);
  });
});

describe('the check against the transcript', () => {
  const index = indexTranscript(SEGMENTS.map((s) => s.text).join(' '));

  it('accepts names and numbers that were said, however the number is grouped', () => {
    expect(unsupportedClaims('Mayor Alvarez thanked 12 volunteers.', index)).toEqual([]);
    expect(unsupportedClaims('The library costs 1200000 dollars.', index)).toEqual([]);
    expect(unsupportedClaims('The library costs 1,200,000 dollars.', index)).toEqual([]);
    // An opener that names nothing, capitalised because it starts the sentence.
    expect(unsupportedClaims('The meeting closed with questions.', index)).toEqual([]);
    // A name with a short ending more or less than it was said with.
    expect(unsupportedClaims('The Volunteer thanked Alvarez’s team.', index)).toEqual([]);
  });

  it('names the names and numbers that were not', () => {
    expect(unsupportedClaims('Mayor Garcia thanked 15 volunteers.', index)).toEqual(['15', 'Garcia']);
    expect(unsupportedClaims('Overall, Madrid will pay for it.', index)).toEqual(['Madrid']);
    // Capitalised at the start and not said at all: a name as far as the check can tell.
    expect(unsupportedClaims('Roosevelt spoke.', index)).toEqual(['Roosevelt']);
    // A sentence's first word is mostly an ordinary word in another form: "Constructing" where "construction" was said.
    expect(unsupportedClaims('Constructing the library takes two years.', index)).toEqual([]);
    // Inside a sentence, a capitalised word in another form is another name.
    expect(unsupportedClaims('The work by Constructors starts in spring.', index)).toEqual(['Constructors']);
    // In English, an opener the tagger reads as a plain word (a verb, a plural noun) is no name; a name is.
    expect(unsupportedClaims('Emphasizes the new library.', index, 'en')).toEqual([]);
    expect(unsupportedClaims('Emphasizes the new library.', index, 'fr')).toEqual(['Emphasizes']);
    expect(unsupportedClaims('Modernization of the library.', index, 'en')).toEqual([]);
    expect(unsupportedClaims('Roosevelt opened the session.', index, 'en-US')).toEqual(['Roosevelt']);
    // A longer ending is another word: "Councilmember" was not said.
    expect(unsupportedClaims('A Councilmember spoke.', index)).toEqual(['Councilmember']);
  });
});

describe('the prompt', () => {
  it('keeps a short transcript whole, by chapter', () => {
    const { parts, words, promptWords } = promptParts(SEGMENTS, CHAPTERS);
    expect(parts.map((p) => p.title)).toEqual(['Opening', 'The library budget', 'Questions']);
    expect(parts[1]!.text).toBe(
      'The budget for the new library is 1,200,000 dollars. Construction starts in spring and ends in two years.',
    );
    expect(promptWords).toBe(words);
    const req = summaryRequest(parts, 'fr', true);
    expect(req.user).toContain('writing in French');
    expect(req.user).toContain('## Chapter 2: The library budget');
    expect(req.json).toBe(true);
  });

  it('gives each part of a long transcript its share, from its start', () => {
    const long = Array.from({ length: 40 }, (_, i) => ({
      start: i * 10,
      text: `Sentence number ${i} says something about part ${Math.floor(i / 10)}.`,
    }));
    const { parts, words, promptWords } = promptParts(long, [], 200);
    expect(words).toBe(40 * 8);
    // Each part's share is 20 words: two of its four sentences.
    expect(promptWords).toBe(10 * 16);
    expect(parts).toHaveLength(10);
    // Every part is represented, each by its first sentence.
    expect(parts.map((p) => p.text.split('.')[0])).toEqual(
      Array.from({ length: 10 }, (_, k) => `Sentence number ${k * 4} says something about part ${Math.floor((k * 4) / 10)}`),
    );
  });
});

describe('the answer', () => {
  it('is read from JSON, a code fence or plain text', () => {
    expect(readModelAnswer('```json\n{"summary": "A.", "key_points": ["b", 3, ""]}\n```')).toEqual({
      summary: 'A.',
      keyPoints: ['b'],
      chapters: [],
    });
    expect(readModelAnswer('Just a sentence.')).toEqual({ summary: 'Just a sentence.', keyPoints: [], chapters: [] });
    expect(readModelAnswer('{"summary": 5}')).toEqual({ summary: '', keyPoints: [], chapters: [] });
    // Cut off where the answer ran out of tokens: what was written whole is kept, the cut part is not.
    expect(readModelAnswer('{"summary": "The council \\"met\\".", "key_points": ["Mayor Alvarez spoke", "Mayor')).toEqual({
      summary: 'The council "met".',
      keyPoints: ['Mayor Alvarez spoke'],
      chapters: [],
    });
    expect(readModelAnswer('{"summary": "The council met and')).toEqual({ summary: '', keyPoints: [], chapters: [] });
  });

  it('keeps what the transcript says and drops each sentence, point and chapter line that it does not', async () => {
    const { llm, asked } = scriptedModel({
      summary: 'The council met on March 3. Mayor Garcia presented a plan of 5 million dollars. A library is planned.',
      key_points: ['Mayor Alvarez thanked 12 volunteers', 'Construction ends in 2031', 'The library budget was presented'],
      chapters: ['Mayor Alvarez opened the session.', 'The library will cost 1,200,000 dollars.', 'Residents from Boston asked questions.'],
    });
    const out = await summarizeTranscript({ segments: SEGMENTS, chapters: CHAPTERS, language: 'en' }, llm);
    expect(asked).toHaveLength(1);
    expect(out.summary).toEqual({
      text: 'The council met on March 3. A library is planned.',
      key_points: ['Mayor Alvarez thanked 12 volunteers', 'The library budget was presented'],
      chapters: [
        { start: 0, end: 60, title: 'Opening', summary: 'Mayor Alvarez opened the session.' },
        { start: 60, end: 120, title: 'The library budget', summary: 'The library will cost 1,200,000 dollars.' },
        { start: 120, end: 150, title: 'Questions', summary: null },
      ],
      model: 'scripted',
    });
    expect({ written: out.written, dropped: out.dropped, droppedFor: out.droppedFor }).toEqual({
      written: 9,
      dropped: 3,
      droppedFor: ['5', 'Garcia', '2031', 'Boston'],
    });
  });

  it('asks nothing of the model when nothing was said', async () => {
    const { llm, asked } = scriptedModel({ summary: 'The speaker discussed the economy.', key_points: ['Growth'] });
    const out = await summarizeTranscript({ segments: [], chapters: [], language: 'en' }, llm);
    expect(asked).toHaveLength(0);
    expect(out.summary).toEqual({ text: '', key_points: [], chapters: [], model: 'scripted' });
  });

  it('leaves room in the answer for a line per chapter', async () => {
    const { llm, asked } = scriptedModel({ summary: 'x' });
    await summarizeTranscript({ segments: SEGMENTS, chapters: CHAPTERS, language: 'en' }, llm);
    await summarizeTranscript({ segments: SEGMENTS, chapters: [], language: 'en' }, llm);
    expect(asked.map((r) => r.maxTokens)).toEqual([320 + 3 * 40, 320]);
  });

  it('asks for no chapter lines when the transcript has no chapters', async () => {
    const { llm, asked } = scriptedModel({ summary: 'The council met.', key_points: [] });
    const out = await summarizeTranscript({ segments: SEGMENTS, chapters: [], language: 'en' }, llm);
    expect(asked[0]!.user).not.toContain('chapters');
    expect(out.summary.chapters).toEqual([]);
  });
});

describe('the chat-completions client', () => {
  let server: http.Server;
  let base: string;
  const seen: Array<{ auth: string | undefined; body: Record<string, unknown> }> = [];
  let reply: { status: number; body: unknown } = { status: 200, body: {} };
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        seen.push({ auth: req.headers.authorization, body: req.url === '/v1/chat/completions' ? JSON.parse(raw) : { path: req.url } });
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply.body));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const client = () => createChatCompletions({ baseUrl: base, model: 'm-1', apiKey: 'k', timeoutMs: 5000, loopbackOnly: true });
  const req: ChatRequest = { system: 'sys', user: 'usr', maxTokens: 50, json: true };

  it('posts the published request and reads the message', async () => {
    reply = {
      status: 200,
      body: {
        choices: [{ message: { role: 'assistant', content: '{"summary":"x"}' } }],
        usage: { prompt_tokens: 7, completion_tokens: 3 },
      },
    };
    await expect(client().complete(req)).resolves.toEqual({ text: '{"summary":"x"}', promptTokens: 7, completionTokens: 3 });
    expect(seen.at(-1)).toEqual({
      auth: 'Bearer k',
      body: {
        model: 'm-1',
        messages: [
          { role: 'system', content: 'sys' },
          { role: 'user', content: 'usr' },
        ],
        max_tokens: 50,
        temperature: 0,
        response_format: { type: 'json_object' },
      },
    });
  });

  it('maps refusals: 429 and 5xx retryable, other 4xx final', async () => {
    reply = { status: 503, body: { error: { message: 'loading model' } } };
    await expect(client().complete(req)).rejects.toMatchObject({ code: 'PROVIDER_UNAVAILABLE' });
    reply = { status: 401, body: { error: { message: 'bad key' } } };
    const err = await client()
      .complete(req)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ code: 'PROVIDER_REJECTED' });
    reply = { status: 200, body: { choices: [] } };
    await expect(client().complete(req)).rejects.toMatchObject({ code: 'PROVIDER_UNAVAILABLE' });
  });

  it('calls only loopback addresses in the test stack', () => {
    expect(() =>
      createChatCompletions({ baseUrl: 'https://api.example.com/v1', model: 'm', apiKey: null, timeoutMs: 1, loopbackOnly: true }),
    ).toThrow(/not a loopback address/);
  });
});
