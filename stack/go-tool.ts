/**
 * The servers that have no npm package (MinIO, stripe-mock) are built from the
 * Go module proxy once into .tools/bin and reused: `go install` of a pinned
 * module version, the version it stamped into the binary checked on every
 * start. Synchronous, so a test file can decide at load time whether a suite
 * can run. (The Temporal CLI is built the same way, but identifies its build by
 * its bundled server version: stack/temporal.ts.)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './proc';

export interface GoTool {
  /** Log prefix and name in messages: `minio`, `stripe-mock`. */
  name: string;
  bin: string;
  /** The module path, without a version: `github.com/minio/minio`. */
  modulePath: string;
  version: string;
  buildLog: string;
  /** How long a first build takes here, for the message shown before it. */
  buildTime: string;
  /** What else the user can do instead of building, ending the "Go is missing" error. */
  instead: string;
  /** Print every Nth line of `go install -v` while building (a long build shows progress); none when unset. */
  progressEvery?: number;
}

/** The module version `go install` stamped into the binary, or undefined when it is missing or not a Go build. */
export function builtGoToolVersion(tool: Pick<GoTool, 'bin' | 'modulePath'>): string | undefined {
  if (!fs.existsSync(tool.bin)) return undefined;
  const out = spawnSync('go', ['version', '-m', tool.bin], { encoding: 'utf8' }).stdout ?? '';
  const line = new RegExp(`^\\s*mod\\s+${tool.modulePath.replace(/[.]/g, '\\.')}\\s+(\\S+)`, 'm');
  return line.exec(out)?.[1];
}

/** Builds the tool into its bin unless the pinned version is already there; throws with go's last lines on failure. */
export function ensureGoTool(tool: GoTool): string {
  const prefix = `[${tool.name}]`;
  const moduleAt = `${tool.modulePath}@${tool.version}`;
  const have = builtGoToolVersion(tool);
  if (have === tool.version) return tool.bin;
  if (have) console.log(`${prefix} ${tool.bin} is ${have}, expected ${tool.version}: rebuilding`);
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error) {
    if (fs.existsSync(tool.bin)) {
      console.log(`${prefix} Go is not installed, so the version of ${tool.bin} cannot be checked: using it as it is`);
      return tool.bin;
    }
    throw new Error(
      `${tool.name} is missing and Go is not installed to build it. ` +
        `Install Go, or run \`GOBIN=${path.dirname(tool.bin)} go install ${moduleAt}\`, ${tool.instead}`,
    );
  }
  if (go.status !== 0) throw new Error(`\`go version\` failed (exit ${go.status}), so ${tool.name} cannot be built: ${go.stderr.trim()}`);
  console.log(
    `${prefix} building ${moduleAt} into .tools/bin (first run only; ${tool.buildTime}; log in ${path.relative(ROOT, tool.buildLog)})...`,
  );
  fs.mkdirSync(path.dirname(tool.buildLog), { recursive: true });
  const t0 = Date.now();
  // -trimpath keeps this machine's paths out of the binary. With progress, -v names each package as
  // it is compiled: the whole list goes to the log and every Nth line to the terminal.
  const flags = [process.env.GOFLAGS, '-trimpath'].filter(Boolean).join(' ');
  const script = tool.progressEvery
    ? `set -o pipefail; go install -v "$MODULE" 2>&1 | tee "$LOG" | awk 'NR % ${tool.progressEvery} == 0 { print "${prefix} build: " NR " lines, at " $0; fflush() }'`
    : 'set -o pipefail; go install "$MODULE" 2>&1 | tee "$LOG"';
  const r = spawnSync('bash', ['-c', script], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, GOBIN: path.dirname(tool.bin), GOFLAGS: flags, MODULE: moduleAt, LOG: tool.buildLog },
  });
  const seconds = Math.round((Date.now() - t0) / 1000);
  if (r.status !== 0 || builtGoToolVersion(tool) !== tool.version) {
    const tail = fs.existsSync(tool.buildLog) ? fs.readFileSync(tool.buildLog, 'utf8').trim().split('\n').slice(-15).join('\n') : '';
    throw new Error(`go install ${moduleAt} failed after ${seconds} s (exit ${r.status ?? r.signal}); log in ${tool.buildLog}:\n${tail}`);
  }
  console.log(`${prefix} built in ${seconds} s`);
  return tool.bin;
}
