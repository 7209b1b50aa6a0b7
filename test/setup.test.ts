import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../stack/proc';

// Issue 23, items 12 and 13: set-up that installs exactly the lock file and
// leaves the tree as it found it, on a supported Node.js.

describe('a supported Node.js (24 LTS)', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

  it('runs these tests, whatever node the machine has', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
  });

  it('is what package.json, the set-up script and the Dockerfile say', () => {
    expect(pkg.engines.node).toBe('>=24');
    const setup = fs.readFileSync(path.join(ROOT, 'stack/node-setup.sh'), 'utf8');
    expect(setup).toMatch(/^NODE_VERSION=24\.\d+\.\d+$/m);
    expect(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^FROM node:24-/m);
    expect(pkg.devDependencies['@types/node']).toMatch(/^24\./);
  });

  it('every npm script runs on it: through a script that sources stack/node-setup.sh', () => {
    const sourcing = new Set(
      fs
        .readdirSync(path.join(ROOT, 'stack'))
        .filter((f) => f.endsWith('.sh'))
        .filter((f) =>
          /source (stack\/|"\$\(dirname "\$0"\)\/)(node-)?setup\.sh/.test(fs.readFileSync(path.join(ROOT, 'stack', f), 'utf8')),
        )
        .map((f) => `stack/${f}`),
    );
    const unsupported = Object.entries<string>(pkg.scripts)
      .filter(([name]) => name !== 'postinstall') // run by npm inside the install that the set-up started on the pinned node
      .filter(
        ([, command]) => !/(^|\s)bash (stack\/[\w-]+\.sh)/.test(command) || !sourcing.has(/bash (stack\/[\w-]+\.sh)/.exec(command)![1]!),
      );
    expect(unsupported).toEqual([]);
    expect(fs.readFileSync(path.join(ROOT, '.ci/run'), 'utf8')).toContain('stack/ci.sh');
    expect(sourcing.has('stack/ci.sh')).toBe(true);
  });

  it('stack/node-setup.sh puts the pinned build first on PATH when the machine node is older', () => {
    // A PATH whose only node is an old one: the script must switch to the pinned build in .tools.
    const fake = fs.mkdtempSync(path.join(os.tmpdir(), 'old-node-'));
    fs.writeFileSync(path.join(fake, 'node'), '#!/bin/sh\n[ "$1" = "-p" ] && echo 20 && exit 0\necho v20.0.0\n', { mode: 0o755 });
    const out = execFileSync('bash', ['-c', 'source stack/node-setup.sh >/dev/null && node -v && command -v node'], {
      cwd: ROOT,
      env: { PATH: `${fake}:/usr/bin:/bin`, HOME: os.homedir() },
      encoding: 'utf8',
    });
    fs.rmSync(fake, { recursive: true, force: true });
    const [version, where] = out.trim().split('\n');
    expect(version).toMatch(/^v24\./);
    expect(where).toBe(path.join(ROOT, `.tools/node-${version}/bin/node`));
  });
});

describe('the unit tier (npm run test:unit)', () => {
  it('runs with no server: none of the stack settings, every unit test passing', () => {
    const env = { ...process.env };
    for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'DATA_DIR', 'FIXTURES_DIR']) delete env[name];
    const res = spawnSync(process.execPath, [require.resolve('jest/bin/jest'), '--config', 'jest.unit.config.js', '--json'], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const report = JSON.parse(res.stdout) as { numPassedTests: number; numFailedTests: number; testResults: { name: string }[] };
    expect({ status: res.status, failed: report.numFailedTests }).toEqual({ status: 0, failed: 0 });
    expect(report.numPassedTests).toBeGreaterThan(500);
    expect(report.testResults.every((r) => r.name.startsWith(path.join(ROOT, 'test/unit/')))).toBe(true);
  }, 120_000);
});

describe('set-up that leaves the tree clean', () => {
  it('npm ci accepts the committed lock file as it is (every platform binary listed)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'npm-ci-'));
    try {
      for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
      const lock = fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8');
      const res = spawnSync('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8' });
      expect({
        status: res.status,
        refused: /can only install packages when your package.json and package-lock.json/.test(res.stderr),
      }).toEqual({
        status: 0,
        refused: false,
      });
      expect(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8')).toBe(lock);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  describe('stack/ci.sh (what .ci/run runs) fails when the test command changes the checkout', () => {
    let clone: string;
    beforeAll(() => {
      clone = fs.mkdtempSync(path.join(os.tmpdir(), 'ci-clone-'));
      execFileSync('git', ['clone', '--quiet', '--local', '--no-hardlinks', ROOT, clone]);
      // The clone has no .tools: reuse this checkout's pinned node instead of unpacking it again.
      fs.symlinkSync(path.join(ROOT, '.tools'), path.join(clone, '.tools'));
    });
    afterAll(() => fs.rmSync(clone, { recursive: true, force: true }));

    const ci = (command: string) =>
      spawnSync('bash', ['stack/ci.sh'], { cwd: clone, env: { ...process.env, CI_TEST_COMMAND: command }, encoding: 'utf8' });

    it.each([
      ['passes a run that writes only ignored files', 'mkdir -p .data && touch .data/x', 0],
      ["keeps the test command's own failure", 'exit 3', 3],
      ['fails a run that rewrites a tracked file', 'echo " " >> package-lock.json', 1],
      ['fails a run that leaves a file .gitignore does not cover', 'touch stray-output.json', 1],
    ])('%s', (_name, command, status) => {
      const res = ci(command);
      expect(res.status).toBe(status);
      if (status === 1) expect(res.stderr).toContain('[ci] set-up or tests changed the checkout');
      execFileSync('git', ['checkout', '--quiet', '.'], { cwd: clone });
      execFileSync('git', ['clean', '--quiet', '-fd', '-e', '.tools'], { cwd: clone });
    });
  });
});
