import { bundleWorkflowCode, type WorkerOptions } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';

// The workflows' code, bundled ahead of time (a deploy's artifact, as Temporal advises for production)
// instead of by every worker as it starts: bundling is 1.5 s of CPU per start, paid again by each
// restarted or added worker, when a deploy or a crash least has it to spare. `npm run build:workflows`
// writes the bundles into a directory (the Dockerfile does it in the image); a worker started with
// WORKFLOW_BUNDLE_DIR uses them. Each bundle has a manifest of the files it was made from and their
// hashes: a bundle whose files have changed since is not used (the worker bundles the current code and
// says so), so a stale artifact cannot run old workflow code.

export const WORKFLOWS_PATH = require.resolve('../workflows');
const ROOT = path.resolve(__dirname, '..');

/** The bundles a worker may need: without tracing, and with the tracing interceptors (integrations/telemetry). */
const VARIANTS = {
  plain: [] as string[],
  traced: [require.resolve('../workflows/tracing')],
};
type Variant = keyof typeof VARIANTS;

const fromRoot = (modules: string[]) => modules.map((m) => path.relative(ROOT, m));

/** The variant bundled with exactly these interceptor modules, if any. */
function variantOf(workflowInterceptorModules: string[]): Variant | undefined {
  const wanted = fromRoot(workflowInterceptorModules).join(',');
  return (Object.keys(VARIANTS) as Variant[]).find((v) => fromRoot(VARIANTS[v]).join(',') === wanted);
}

/** Written aside and renamed: a worker starting meanwhile reads the old file or the new one, never half of one. */
function writeWhole(file: string, content: string): void {
  fs.writeFileSync(`${file}.tmp`, content);
  fs.renameSync(`${file}.tmp`, file);
}

interface Manifest {
  workflowInterceptorModules: string[];
  /** Every file the bundle was made from (paths from the repository's root) and its sha256. */
  sources: Record<string, string>;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} };

/** The repository files a bundle was made from, read from its inline source map. */
function bundleSources(code: string): string[] {
  const marker = code.lastIndexOf('sourceMappingURL=data:');
  const base64 = code.slice(code.indexOf('base64,', marker) + 'base64,'.length).trim();
  const map = JSON.parse(Buffer.from(base64, 'base64').toString('utf8')) as { sources: string[] };
  return map.sources.filter((s) => path.isAbsolute(s) && s.startsWith(ROOT + path.sep) && fs.existsSync(s));
}

/** Bundles the workflows in each variant into `dir` (`<variant>.js` and `<variant>.manifest.json`). */
export async function buildWorkflowBundles(dir: string): Promise<{ file: string; bytes: number; sources: number }[]> {
  fs.mkdirSync(dir, { recursive: true });
  const built = [];
  for (const [variant, workflowInterceptorModules] of Object.entries(VARIANTS)) {
    const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules, logger: quiet as never });
    const sources: Record<string, string> = {};
    for (const file of bundleSources(code)) sources[path.relative(ROOT, file)] = sha256(fs.readFileSync(file));
    const manifest: Manifest = { workflowInterceptorModules: fromRoot(workflowInterceptorModules), sources };
    const file = path.join(dir, `${variant}.js`);
    writeWhole(file, code);
    writeWhole(path.join(dir, `${variant}.manifest.json`), JSON.stringify(manifest, null, 1));
    built.push({ file, bytes: code.length, sources: Object.keys(sources).length });
  }
  return built;
}

/** Why the prebuilt bundle in `dir` for these interceptor modules cannot be used, or null when it can. */
export function staleBundleReason(dir: string, workflowInterceptorModules: string[]): string | null {
  const variant = variantOf(workflowInterceptorModules);
  if (!variant) return `no prebuilt bundle has the interceptor modules ${fromRoot(workflowInterceptorModules).join(',')}`;
  const manifestFile = path.join(dir, `${variant}.manifest.json`);
  if (!fs.existsSync(manifestFile) || !fs.existsSync(path.join(dir, `${variant}.js`))) return `${dir} has no ${variant} bundle`;
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Manifest;
  for (const [file, hash] of Object.entries(manifest.sources)) {
    const full = path.join(ROOT, file);
    if (!fs.existsSync(full)) return `${file} is gone since the bundle was built`;
    if (sha256(fs.readFileSync(full)) !== hash) return `${file} changed since the bundle was built`;
  }
  return null;
}

/**
 * The worker's workflow code options: the prebuilt bundle in `dir` when it is current, else the workflows'
 * path (the worker bundles them as it starts, with `workflowInterceptorModules`).
 */
export function workflowCodeOptions(
  dir: string | undefined,
  workflowInterceptorModules: string[],
  logger: Logger,
): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> & { prebuilt: boolean } {
  if (dir) {
    const stale = staleBundleReason(dir, workflowInterceptorModules);
    if (stale === null)
      return { workflowBundle: { codePath: path.join(dir, `${variantOf(workflowInterceptorModules)}.js`) }, prebuilt: true };
    logger.warn({ dir, reason: stale }, 'prebuilt workflow bundle not used; bundling the current workflow code (npm run build:workflows)');
  }
  return { workflowsPath: WORKFLOWS_PATH, prebuilt: false };
}
