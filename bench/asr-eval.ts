// `npm run eval:asr`: recognition quality measured, not claimed (issue 50). Every clip of the evaluation set
// (../shared/asr-eval and ../shared/asr-eval-large read in place, bench/sets/speech committed: real human speech
// in the eight languages, with references) goes through the whole job pipeline on a private stack
// (bench/asr-stack.ts): upload → job (transcribe) → transcript. Three passes: the clip's language given with the
// standard profile and with the fast one (the error rates), and standard without the language (is it detected?).
//
// Scored as ../shared/asr-eval/README.md says: WER for en, es, fr, de, pt, it, CER (spaces removed) for ja and ko,
// after NFKC, lower case, punctuation and symbols to spaces. Clips of a language are pooled (edits over reference
// units), with a 95 % interval from a bootstrap over clips.
//
// Then the engine on the same clips beside faster-whisper's own call (bench/sets/accuracy.py: the floor, the
// profiles and the decoding choices weighed, paired intervals), and on the composed sets (bench/sets/evaluate.py).
//
// Writes the per-language table into integrations/recognizers/measured-quality.json (read by the code: a language
// is validated_language when at least 15 clips were measured and its error rate is at most 20 %, quality.ts) and
// into bench/RESULTS.md (blocks `asr-eval`, `asr-accuracy`, `asr-sets`). About an hour on 2 cores.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  meetsValidationRule,
  VALIDATION_RULE,
  type LanguageMeasurement,
  type ModelMeasurements,
} from '../integrations/recognizers/quality';
import { EXPERIMENTAL_LANGUAGE } from '../integrations/recognizers/types';
import { ROOT } from '../stack/proc';
import { readyFields, RECOGNIZER_PYTHON } from '../stack/recognizer';
import {
  allEvalClips,
  bootstrapInterval,
  EVAL_SET_DIRS,
  metricFor,
  pooled,
  score,
  type EvalClip,
  type Score,
} from '../test/support/asr-eval';
import { startAsrStack } from './asr-stack';
import { writeBlock } from './results-file';

const QUALITY_FILE = path.join(ROOT, 'integrations/recognizers/measured-quality.json');
const LANGUAGE_ORDER = ['en', 'es', 'fr', 'de', 'pt', 'it', 'ja', 'ko'];

interface ClipResult {
  clip: EvalClip;
  standard: Score;
  standardText: string;
  fast: Score;
  fastText: string;
  detected: string | null;
  detectedProbability: number | null;
  model: string;
  ms: number;
}

async function main() {
  const clips = allEvalClips();
  const stack = await startAsrStack({ name: 'eval', pgPort: 54379, temporalPort: 7313 });
  const results: ClipResult[] = [];
  const t0 = Date.now();
  try {
    console.log(`[eval] ${clips.length} clips from ${EVAL_SET_DIRS.join(', ')}; recognizer: ${stack.recognizer.readyLine}`);
    for (const clip of clips) {
      const standard = await stack.transcribe(clip.audio, { language: clip.lang, profile: 'standard' });
      if (standard.status !== 'succeeded')
        throw new Error(`${clip.file} with language ${clip.lang}: job ${standard.status} ${JSON.stringify(standard.error)}`);
      const fast = await stack.transcribe(clip.audio, { language: clip.lang, profile: 'fast' });
      if (fast.status !== 'succeeded') throw new Error(`${clip.file} (fast): job ${fast.status} ${JSON.stringify(fast.error)}`);
      const unhinted = await stack.transcribe(clip.audio);
      const t = standard.transcript!;
      const s = score(clip.lang, clip.reference, t.text);
      results.push({
        clip,
        standard: s,
        standardText: t.text,
        fast: score(clip.lang, clip.reference, fast.transcript!.text),
        fastText: fast.transcript!.text,
        detected: unhinted.transcript?.language ?? (unhinted.error ? `(${unhinted.error.code})` : null),
        detectedProbability: unhinted.transcript?.recognition.language_probability ?? null,
        model: t.recognition.model,
        ms: standard.ms,
      });
      console.log(
        `[eval] ${clip.set}/${clip.file}: ${metricFor(clip.lang).toUpperCase()} ${(s.rate * 100).toFixed(1)} % (${s.edits}/${s.units}), ` +
          `fast ${(results.at(-1)!.fast.rate * 100).toFixed(1)} %, unhinted → ${results.at(-1)!.detected} ${results.at(-1)!.detectedProbability ?? ''}, ${(standard.ms / 1000).toFixed(1)} s`,
      );
    }
  } finally {
    await stack.close();
  }
  const pipelineSeconds = (Date.now() - t0) / 1000;

  const models = [...new Set(results.map((r) => r.model))];
  if (models.length !== 1) throw new Error(`clips were recognised by different models: ${models.join(', ')}`);
  const model = models[0]!;
  const langs = LANGUAGE_ORDER.filter((l) => results.some((r) => r.clip.lang === l));
  const languages: Record<string, LanguageMeasurement> = {};
  const intervals: Record<string, { standard: { low: number; high: number }; fast: { rate: number; low: number; high: number } }> = {};
  for (const lang of langs) {
    const of = results.filter((r) => r.clip.lang === lang);
    const p = pooled(of.map((r) => r.standard));
    const f = pooled(of.map((r) => r.fast));
    languages[lang] = {
      metric: metricFor(lang),
      clips: of.length,
      error_rate: Math.round(p.rate * 10_000) / 10_000,
      reference_units: p.units,
      detected_correctly: of.filter((r) => r.detected === lang).length,
    };
    intervals[lang] = {
      standard: bootstrapInterval(of.map((r) => r.standard)),
      fast: { rate: f.rate, ...bootstrapInterval(of.map((r) => r.fast)) },
    };
  }
  const measuredAt = new Date().toISOString();
  const f = readyFields(stack.recognizer.readyLine);
  const method =
    `npm run eval:asr: ${results.length} clips of ../shared/asr-eval, ../shared/asr-eval-large and bench/sets/speech through upload → job → transcript, language given; ` +
    `detection from a second pass without it. faster-whisper, device ${f.device}, ${f.compute_type}, beam ${f.beam_size}, ${f.threads} threads.`;

  // The engine beside faster-whisper's own call on the same clips: bench/sets/accuracy.py.
  console.log('[eval] the engine beside faster-whisper called directly (bench/sets/accuracy.py)');
  const accuracy = runPython<AccuracyResult>('bench/sets/accuracy.py', []);
  // The engine on the composed sets (speakers, every region, languages, vocabulary, profiles): bench/sets/evaluate.py.
  console.log('[eval] the recognizer on the sets of bench/sets/recipes.json (bench/sets/evaluate.py): about 12 minutes');
  const sets = runPython<SetsResult>('bench/sets/evaluate.py', []);
  const profiles = { standard: sets.profiles.standard, fast: sets.profiles.fast };
  const entry: ModelMeasurements = { measured_at: measuredAt, method, languages, profiles };

  const all = fs.existsSync(QUALITY_FILE) ? (JSON.parse(fs.readFileSync(QUALITY_FILE, 'utf8')) as Record<string, ModelMeasurements>) : {};
  all[model] = entry;
  fs.writeFileSync(QUALITY_FILE, JSON.stringify(all, null, 2) + '\n');
  execFileSync(path.join(ROOT, 'node_modules/.bin/prettier'), ['--write', '--log-level', 'warn', QUALITY_FILE]);

  const md: string[] = [];
  md.push(`## AI transcription quality (\`npm run eval:asr\`, ${model}, ${measuredAt.slice(0, 10)})`);
  md.push('');
  md.push(
    `Real speech of \`../shared/asr-eval\`, \`../shared/asr-eval-large\` and \`bench/sets/speech\` (${results.length} clips, ${results.reduce((n, r) => n + r.clip.durationSec, 0).toFixed(0)} s) through the whole job pipeline (upload → job → transcript), the clip's language given; scored after NFKC, lower case, punctuation and symbols to spaces; clips of a language pooled, with the 95 % interval of a bootstrap over clips (2,000 draws, seeded). ` +
      `Status rule: \`validated_language\` with at least ${VALIDATION_RULE.minClips} clips and an error rate of at most ${VALIDATION_RULE.maxErrorRate * 100} %; \`provider_supported\` otherwise; ${EXPERIMENTAL_LANGUAGE} stays \`experimental_language\` (no clips). ` +
      `"Detected" is a pass without the language. ${os.cpus().length} cores, ${pipelineSeconds.toFixed(0)} s for the three passes.`,
  );
  md.push('');
  md.push(
    '| Language | Clips | Metric | standard | 95 % interval | fast | 95 % interval | Reference units | Detected right (no language given) | Status |',
  );
  md.push('|---|---:|---|---:|---:|---:|---:|---:|---:|---|');
  for (const lang of langs) {
    const m = languages[lang]!;
    const i = intervals[lang]!;
    md.push(
      `| ${lang} | ${m.clips} | ${m.metric.toUpperCase()} | ${pct(m.error_rate)} | ${pct(i.standard.low)}–${pct(i.standard.high)} | ${pct(i.fast.rate)} | ${pct(i.fast.low)}–${pct(i.fast.high)} | ${m.reference_units} | ${m.detected_correctly}/${m.clips} | ${meetsValidationRule(m) ? 'validated_language' : 'provider_supported'} |`,
    );
  }
  md.push('');
  md.push('<details><summary>Per clip</summary>');
  md.push('');
  md.push('| Clip | standard | fast | Detected (p) | Job time | Transcript (standard) |');
  md.push('|---|---:|---:|---|---:|---|');
  for (const r of results) {
    md.push(
      `| ${r.clip.set}/${r.clip.file} | ${pct(r.standard.rate)} | ${pct(r.fast.rate)} | ${r.detected ?? ''}${r.detectedProbability !== null ? ` (${r.detectedProbability.toFixed(2)})` : ''} | ${(r.ms / 1000).toFixed(1)} s | ${r.standardText.replace(/\|/g, '\\|')} |`,
    );
  }
  md.push('');
  md.push('</details>');
  writeBlock('asr-eval', md.join('\n'));
  console.log('\n' + md.join('\n'));
  const accuracyMd = accuracyBlock(accuracy, model, measuredAt);
  writeBlock('asr-accuracy', accuracyMd);
  console.log('\n' + accuracyMd);
  const setsMd = setsBlock(sets, model, measuredAt);
  writeBlock('asr-sets', setsMd);
  console.log('\n' + setsMd);
  console.log(`\n[eval] wrote ${path.relative(ROOT, QUALITY_FILE)} and bench/RESULTS.md`);
}

/** A bench script of the recognizer's Python, its one JSON object on stdout, its log passed through. */
function runPython<T>(script: string, args: string[]): T {
  return JSON.parse(
    execFileSync(RECOGNIZER_PYTHON, [script, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 256 * 1024 * 1024,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    }).toString('utf8'),
  ) as T;
}

interface Interval {
  rate: number;
  low: number;
  high: number;
}
interface Comparison {
  difference: number;
  low: number;
  high: number;
  verdict: 'worse' | 'better' | 'same';
}
interface AccuracyResult {
  clips: number;
  audio_seconds: number;
  bootstrap_rounds: number;
  languages: Record<string, { clips: number; metric: 'wer' | 'cer'; reference_units: number; sets: string[] }>;
  configurations: Record<
    string,
    {
      seconds: number;
      languages: Record<string, Interval & Record<string, Comparison | number>>;
      pooled: Interval;
      pooled_gain_over_floor: { gain: number; low: number; high: number; goal: number };
    }
  >;
}

/** What each configuration of accuracy.py is, in a sentence of the table. */
const CONFIGURATION_LABELS: Record<string, string> = {
  standard: 'standard profile (the engine jobs run)',
  fast: 'fast profile',
  floor: "floor: faster-whisper's `transcribe`, standard's beam, word timestamps, VAD",
  'floor-no-timestamps': 'floor without timestamp tokens',
  'floor-fast': "floor at fast's beam",
  'floor-fast-no-timestamps': "floor at fast's beam, without timestamp tokens",
};

/** The engine beside the floor, language by language: each rate with its interval and the verdict of the paired difference. */
function accuracyBlock(r: AccuracyResult, model: string, measuredAt: string): string {
  const langs = LANGUAGE_ORDER.filter((l) => r.languages[l]);
  const md: string[] = [];
  md.push(`## Accuracy beside faster-whisper called directly (\`npm run eval:asr\`, ${model}, ${measuredAt.slice(0, 10)})`);
  md.push('');
  md.push(
    `\`bench/sets/accuracy.py\`: every clip of the evaluation set (${r.clips} clips, ${r.audio_seconds.toFixed(0)} s) decoded by each configuration with its language given, in one run, on ${os.cpus().length} cores. ` +
      `Rates are pooled per language with a 95 % interval from a bootstrap over clips (${r.bootstrap_rounds} draws, seeded, the same draws for every configuration); a configuration is **worse** or **better** than a floor only when the 95 % interval of the paired difference lies wholly above or below zero, otherwise "same". ` +
      'Pooled: edits over reference units of every language together; the gain is relative to the floor, with its interval.',
  );
  md.push('');
  md.push(
    `| Configuration | ${langs.map((l) => `${l} (${r.languages[l]!.clips})`).join(' | ')} | Pooled | Gain over the floor | Seconds |`,
  );
  md.push(`|---|${langs.map(() => '---:').join('|')}|---:|---:|---:|`);
  for (const [name, c] of Object.entries(r.configurations)) {
    const floor = name.startsWith('fast') ? 'floor-fast' : 'floor';
    const cells = langs.map((l) => {
      const x = c.languages[l]!;
      const v = x[`vs_${floor}`] as Comparison | undefined;
      const mark = v && v.verdict !== 'same' ? ` **${v.verdict}**` : '';
      return `${pct(x.rate)} (${pct(x.low)}–${pct(x.high)})${mark}`;
    });
    const g = c.pooled_gain_over_floor;
    md.push(
      `| ${CONFIGURATION_LABELS[name] ?? name} | ${cells.join(' | ')} | ${pct(c.pooled.rate)} | ${name === 'floor' ? '' : `${(g.gain * 100).toFixed(1)} % (${(g.low * 100).toFixed(1)}–${(g.high * 100).toFixed(1)})`} | ${c.seconds.toFixed(0)} |`,
    );
  }
  md.push('');
  md.push(
    `Metric per language: ${langs.map((l) => `${l} ${r.languages[l]!.metric.toUpperCase()} over ${r.languages[l]!.reference_units} ${r.languages[l]!.metric === 'cer' ? 'characters' : 'words'}`).join(', ')}. ` +
      "Verdicts compare each configuration with the floor at its own profile's beam (the fast ones with the floor at fast's beam).",
  );
  return md.join('\n');
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

interface SetsResult {
  speakers: {
    recordings: { name: string; speakers: number; words: number; known: number; free: number; found: number }[];
    known_accuracy: number;
    free_accuracy: number;
    count_right: number;
    added_rtf: number;
  };
  composed: {
    recordings: {
      name: string;
      seconds: number;
      wer: number;
      wer_alone: number;
      words_present: number;
      words_in_non_speech: number;
      rtf: number;
    }[];
    wer: number;
    wer_alone: number;
    words_present_of_alone: number;
    audio_seconds: number;
  };
  mixed_language: { recordings: { name: string; regions: number; wrong: string[] }[]; regions: number; regions_right: number };
  vocabulary: {
    terms: number;
    recall_without: number;
    recall_with: number;
    control_wer_without: number;
    control_wer_with_all_terms: number;
  };
  alignment: {
    match_threshold: number;
    cues: Record<'right' | 'other_video' | 'other_language', number>;
    flagged: Record<'right' | 'other_video' | 'other_language', number>;
    median_match: Record<'right' | 'other_video' | 'other_language', number>;
    forced_probability_score: { threshold_at_5pct_right: number; other_video_flagged: number; other_language_flagged: number };
    caption_rtf: number;
    align_text_words_compared: number;
    align_text_median_start_error_s: number;
    align_text_p90_start_error_s: number;
    align_text_rtf: number;
    baseline_find_alignment_rtf: number;
  };
  profiles: {
    standard: ProfileFigures;
    fast: ProfileFigures;
    /** The beams the fast profile could have had and did not, measured the same way. */
    fast_beams_not_chosen: ProfileFigures[];
    /** faster-whisper's own transcribe at each profile's beam, on the same audio. */
    baseline_direct_standard_rtf: number;
    baseline_direct_fast_rtf: number;
    baseline_direct_standard_one_round_rtf: number;
    baseline_direct_fast_one_round_rtf: number;
    baseline_direct_standard_beam: number;
    baseline_direct_fast_beam: number;
  };
  targets: { what: string; target: string; measured: number; met: boolean }[];
  seconds: number;
}

interface ProfileFigures {
  beam_size: number;
  /** On long speech: each language's clips joined, four rounds. */
  real_time_factor: number;
  audio_seconds: number;
  /** On one round of them: mostly one window. */
  one_round_real_time_factor: number;
  one_round_audio_seconds: number;
  languages: Record<string, { metric: 'wer' | 'cer'; error_rate: number; reference_units: number }>;
}

/** The sets' figures as RESULTS.md shows them: every target beside its measured value, then each set. */
function setsBlock(r: SetsResult, model: string, measuredAt: string): string {
  const md: string[] = [];
  md.push(`## Richer transcripts: the recognizer on composed sets (\`npm run eval:asr\`, ${model}, ${measuredAt.slice(0, 10)})`);
  md.push('');
  md.push(
    `\`bench/sets/evaluate.py\`: the recognition worker's engine on recordings composed from \`../shared/asr-eval\` by \`bench/sets/compose.py\` (recipes in \`bench/sets/recipes.json\`), ${os.cpus().length} cores, ${r.seconds.toFixed(0)} s.`,
  );
  md.push('');
  md.push('| Target | Goal | Measured | Met |');
  md.push('|---|---|---:|---|');
  for (const t of r.targets)
    md.push(
      `| ${t.what} | ${t.target} | ${Number.isInteger(t.measured) ? t.measured : t.measured.toFixed(3)} | ${t.met ? 'yes' : '**no**'} |`,
    );
  md.push('');
  md.push(
    `Speakers (${r.speakers.recordings.length} conversations of 2–4 voices, turns with and without pauses): ${pct(r.speakers.known_accuracy)} of words right with the count given, ${pct(r.speakers.free_accuracy)} without, count right in ${r.speakers.count_right} of ${r.speakers.recordings.length}, added real-time factor ${r.speakers.added_rtf}.`,
  );
  md.push('');
  md.push('| Conversation | Speakers | Words | Right (count given) | Right (found) | Found |');
  md.push('|---|---:|---:|---:|---:|---:|');
  for (const s of r.speakers.recordings)
    md.push(`| ${s.name} | ${s.speakers} | ${s.words} | ${pct(s.known)} | ${pct(s.free)} | ${s.found} |`);
  md.push('');
  md.push(
    `Composed recordings (${r.composed.audio_seconds.toFixed(0)} s: speech, silence, noise, music-like audio, level jumps of 30 dB and more): WER ${pct(r.composed.wer)} against ${pct(r.composed.wer_alone)} for the same clips decoded alone; ${pct(r.composed.words_present_of_alone)} of the words the clips give alone are present.`,
  );
  md.push('');
  md.push('| Recording | Seconds | WER | WER of its clips alone | Words present | Words in non-speech | RTF |');
  md.push('|---|---:|---:|---:|---:|---:|---:|');
  for (const c of r.composed.recordings)
    md.push(
      `| ${c.name} | ${c.seconds.toFixed(0)} | ${pct(c.wer)} | ${pct(c.wer_alone)} | ${pct(c.words_present)} | ${c.words_in_non_speech} | ${c.rtf.toFixed(3)} |`,
    );
  md.push('');
  md.push(
    `Mixed languages (no hint): ${r.mixed_language.regions_right} of ${r.mixed_language.regions} regions in their spoken language` +
      (r.mixed_language.recordings.some((m) => m.wrong.length > 0)
        ? `; wrong: ${r.mixed_language.recordings.flatMap((m) => m.wrong.map((w) => `${m.name} ${w}`)).join(', ')}.`
        : '.'),
  );
  md.push('');
  md.push(
    `Vocabulary: term recall ${pct(r.vocabulary.recall_without)} → ${pct(r.vocabulary.recall_with)} over ${r.vocabulary.terms} rare names; control clips (no term said) WER ${pct(r.vocabulary.control_wer_without)} without, ${pct(r.vocabulary.control_wer_with_all_terms)} with every term of the set as vocabulary.`,
  );
  md.push('');
  const a = r.alignment;
  md.push(
    `Forced alignment (\`word_timing\`): ${a.cues.right} caption cues of at most 8 words (ja, ko: 16 characters) over the composed recordings and the clips, timed in proportion to their length; the wrong tracks put the cues of a recording with no clip in common (another video) or of another language at the same times. Cues flagged (match < ${a.match_threshold}): right track ${pct(a.flagged.right)}, another video ${pct(a.flagged.other_video)}, another language ${pct(a.flagged.other_language)}; median match ${a.median_match.right} / ${a.median_match.other_video} / ${a.median_match.other_language}. ` +
      `The score weighed first, the median probability the model gives a cue's words under forced alignment, flags only ${pct(a.forced_probability_score.other_video_flagged)} and ${pct(a.forced_probability_score.other_language_flagged)} at the threshold that flags 5 % of right cues (${a.forced_probability_score.threshold_at_5pct_right}). ` +
      `Real-time factor ${a.caption_rtf} (hearing the audio once with the fast profile, then aligning).`,
  );
  md.push('');
  md.push(
    `\`align_text\` (each language's clips joined with 1 s pauses, their references as the text): median word-start error ${(a.align_text_median_start_error_s * 1000).toFixed(0)} ms against the recognizer's own word times (90th percentile ${(a.align_text_p90_start_error_s * 1000).toFixed(0)} ms) over ${a.align_text_words_compared} words that agree; real-time factor ${a.align_text_rtf}. Baseline of the same run: faster-whisper's \`find_alignment\` on each clip with its whole text, RTF ${a.baseline_find_alignment_rtf}.`,
  );
  md.push('');
  const profiles = r.profiles;
  const langs = Object.keys(profiles.standard.languages);
  const row = (name: string, p: ProfileFigures) =>
    `| ${name} | ${p.real_time_factor.toFixed(3)} | ${p.one_round_real_time_factor.toFixed(3)} | ${langs.map((l) => `${pct(p.languages[l]!.error_rate)} ${p.languages[l]!.metric.toUpperCase()}`).join(' | ')} |`;
  const blank = langs.map(() => '').join(' | ');
  /** The language where a profile falls furthest behind standard, and how much one of its reference units weighs. */
  const worstOverStandard = (p: ProfileFigures) => {
    const [lang, points] = langs
      .map((l) => [l, (p.languages[l]!.error_rate - profiles.standard.languages[l]!.error_rate) * 100] as const)
      .reduce((a, b) => (b[1] > a[1] ? b : a));
    const { reference_units: units, metric } = profiles.standard.languages[lang]!;
    return `${points >= 0 ? '+' : ''}${points.toFixed(1)} (${lang}, ${units} ${metric === 'cer' ? 'characters' : 'words'}: one is ${(100 / units).toFixed(1)})`;
  };
  md.push(`| Profile | RTF (long speech) | RTF (one window) | ${langs.join(' | ')} |`);
  md.push(`|---|---:|---:|${langs.map(() => '---:').join('|')}|`);
  md.push(row(`standard (beam ${profiles.standard.beam_size}, fallback temperatures)`, profiles.standard));
  md.push(row(`fast (beam ${profiles.fast.beam_size}, no fallback)`, profiles.fast));
  for (const p of profiles.fast_beams_not_chosen)
    md.push(row(`not chosen for fast: beam ${p.beam_size}${p.beam_size === 1 ? ' (greedy)' : ''}`, p));
  md.push(
    `| baseline: faster-whisper's \`transcribe\`, beam ${profiles.baseline_direct_standard_beam} | ${profiles.baseline_direct_standard_rtf.toFixed(3)} | ${profiles.baseline_direct_standard_one_round_rtf.toFixed(3)} | ${blank} |`,
  );
  md.push(
    `| baseline: faster-whisper's \`transcribe\`, beam ${profiles.baseline_direct_fast_beam} | ${profiles.baseline_direct_fast_rtf.toFixed(3)} | ${profiles.baseline_direct_fast_one_round_rtf.toFixed(3)} | ${blank} |`,
  );
  md.push('');
  md.push(
    `Long speech: each language's clips joined with 1 s pauses, four rounds (${profiles.standard.audio_seconds.toFixed(0)} s in all); one window: one round (${profiles.standard.one_round_audio_seconds.toFixed(0)} s, 20 to 43 s per language, mostly a single 30 s window whose fixed cost no batching shares). ` +
      "The baselines are faster-whisper's own `transcribe` on the same audio at each profile's beam, with word times and no VAD, in the same run. Error rates are of the clips decoded one by one with the language given. " +
      'The beams not chosen for fast are measured the same way in the same run. ' +
      `Worst language over standard, in points of error rate: ${[profiles.fast, ...profiles.fast_beams_not_chosen]
        .sort((a, b) => a.beam_size - b.beam_size)
        .map((p) => `beam ${p.beam_size} ${worstOverStandard(p)}`)
        .join('; ')}.`,
  );
  return md.join('\n');
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
