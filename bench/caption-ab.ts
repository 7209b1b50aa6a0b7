/**
 * `npm run bench:caption-ab [-- <commit> <rounds>]`: the caption job benchmark
 * of this tree against the code of an earlier commit, on the same host, in
 * alternating rounds. A figure measured on another day cannot tell the code's
 * drift from the host's; two trees measured side by side can. The default
 * commit, 8f3298a, is the one whose run measured the caption job at 2.17× an
 * empty workflow (2026-11-21), the figure issues 10 and 11 compare against.
 *
 * The earlier tree goes into a git worktree beside this one (so ../shared
 * resolves alike), sharing node_modules and .tools; its own bench/run.ts runs
 * every section, so a copy is cut right after its caption table. Writes the
 * `caption-ab` block of bench/RESULTS.md.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeBlock } from './results-file';

const ROOT = path.resolve(__dirname, '..');
const CAPTION_ROW = /^\| caption job submit → long poll returns succeeded \| ([\d.]+) ms \| ([\d.]+) ms \| ([\d.]+)× \|$/m;
const EMPTY_ROW = /^\| empty workflow round trip \(baseline\) \| ([\d.]+) ms \|/m;

interface Round {
  empty: number;
  p50: number;
  p99: number;
  ratio: number;
}

function run(cwd: string, args: string[]): Round {
  const r = spawnSync(path.join(ROOT, 'node_modules/.bin/tsx'), args, { cwd, encoding: 'utf8', timeout: 15 * 60_000 });
  const caption = CAPTION_ROW.exec(r.stdout ?? '');
  const empty = EMPTY_ROW.exec(r.stdout ?? '');
  if (!caption || !empty) throw new Error(`no caption table from ${cwd} ${args.join(' ')}:\n${r.stdout}\n${r.stderr}`);
  return { empty: Number(empty[1]), p50: Number(caption[1]), p99: Number(caption[2]), ratio: Number(caption[3]) };
}

/** The earlier bench/run.ts, ended right after its caption table (it has no --only). */
function cutAfterCaption(file: string): void {
  const text = fs.readFileSync(file, 'utf8');
  const marker = '  out(`## Long-poll wake-up after completion';
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${file}: no long-poll section to cut at`);
  // Its own shutdown, as at the end of that file: the Temporal dev server and PostgreSQL stop with it.
  const stop = [
    'server.close();',
    'bareServer.close();',
    'await worker.stop();',
    'await outbound.close();',
    'await api.close();',
    'await origin.close();',
    'await dropDatabase(dbUrl).catch(() => undefined);',
    'await temporal.stop();',
    'await pg.stop();',
    'for (const f of [sqlite, `${sqlite}-wal`, `${sqlite}-shm`]) fs.rmSync(f, { force: true });',
    'return;',
  ].map((line) => `  ${line}\n`);
  fs.writeFileSync(file, `${text.slice(0, at)}${stop.join('')}${text.slice(at)}`);
}

function main() {
  const [commit = '8f3298a', roundsArg = '3'] = process.argv.slice(2);
  const rounds = Number(roundsArg);
  const sha = execFileSync('git', ['rev-parse', '--short', commit], { cwd: ROOT, encoding: 'utf8' }).trim();
  const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const tree = path.join(path.dirname(ROOT), `caption-ab-${sha}`);
  if (!fs.existsSync(tree)) execFileSync('git', ['worktree', 'add', '--force', '--detach', tree, sha], { cwd: ROOT, stdio: 'inherit' });
  try {
    for (const shared of ['node_modules', '.tools']) {
      if (!fs.existsSync(path.join(tree, shared))) fs.symlinkSync(path.join(ROOT, shared), path.join(tree, shared));
    }
    execFileSync('bash', ['stack/prisma-generate.sh'], { cwd: tree, stdio: 'inherit' });
    execFileSync('git', ['checkout', '--', 'bench/run.ts'], { cwd: tree });
    // A tree whose bench has sections runs just its caption section; an older one is cut after its caption table.
    const hasSections = fs.readFileSync(path.join(tree, 'bench/run.ts'), 'utf8').includes('--only=');
    if (!hasSections) cutAfterCaption(path.join(tree, 'bench/run.ts'));
    const earlierArgs = hasSections ? ['bench/run.ts', '--only=caption'] : ['bench/run.ts'];

    const before: Round[] = [];
    const now: Round[] = [];
    for (let i = 0; i < rounds; i++) {
      before.push(run(tree, earlierArgs));
      now.push(run(ROOT, ['bench/run.ts', '--only=caption']));
      console.log(`round ${i + 1}: ${sha} ${before.at(-1)!.ratio}×, HEAD ${now.at(-1)!.ratio}×`);
    }
    const median = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      const mid = sorted.length / 2;
      return Number.isInteger(mid) ? (sorted[mid - 1]! + sorted[mid]!) / 2 : sorted[Math.floor(mid)]!;
    };
    const row = (name: string, rs: Round[]) =>
      `| ${name} | ${rs.map((r) => `${r.p50} ms (${r.ratio}×)`).join(' | ')} | ${median(rs.map((r) => r.ratio)).toFixed(2)}× | ${median(rs.map((r) => r.p99))} ms |`;
    // Paired by round: the host drifts between rounds (on 2 shared cores whole rounds run ~40 % slower), so
    // each round's two trees are compared with each other, and the median of those changes is the figure.
    const change = (pick: (r: Round) => number) => median(now.map((r, i) => pick(r) / pick(before[i]!) - 1));
    const signed = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`;
    const markdown = [
      `## Caption job, this tree against commit ${sha} (${rounds} alternating rounds on one host)`,
      '',
      `Command: \`npm run bench:caption-ab -- ${commit} ${rounds}\` · ${new Date().toISOString()} · HEAD ${head} · ${os.cpus().length} cores, load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(
          ' ',
        )}. Each round runs the caption section of each tree's own bench (60 sequential jobs, its own empty-workflow baseline), one tree after the other.`,
      '',
      `| code | ${before.map((_, i) => `round ${i + 1} p50 (vs empty workflow)`).join(' | ')} | median ratio | median p99 |`,
      `|---|${before.map(() => '---').join('|')}|---|---|`,
      row(`commit ${sha}${sha.startsWith('8f3298a') ? ' (measured 2.17× on 2026-11-21)' : ''}`, before),
      row(`HEAD ${head}`, now),
      '',
      `HEAD against ${sha}, the median over rounds of each round's change: ratio to the empty workflow ${signed(change((r) => r.ratio))}, p50 ${signed(change((r) => r.p50))}, ` +
        `p99 ${signed(change((r) => r.p99))} (goal: none worse than +5 %; the p99 of 60 jobs moves with the host).`,
    ].join('\n');
    console.log(`\n${markdown}`);
    writeBlock('caption-ab', markdown);
  } finally {
    execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: ROOT });
  }
}

main();
