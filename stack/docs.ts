// `npm run docs`: the documentation site (issue 51, item 6). Writes the API reference from the OpenAPI document the
// API serves (buildOpenApiDocument, the same declarations that validate requests) into docs/reference/
// (generated, not committed), builds docs/ with VitePress into dist/docs (served by the API at /guide/), then
// checks what VitePress does not: every link to an anchor lands on an element with that id, and every page is in
// the navigation. Exits 1 naming each fault. `npm test` runs it in its gate (stack/check.sh).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from '../api/openapi';
import { ROOT } from './proc';

const DOCS = path.join(ROOT, 'docs');
const REFERENCE = path.join(DOCS, 'reference');
const OUT = path.join(ROOT, 'dist', 'docs');
const BASE = '/guide/';

type Json = Record<string, unknown>;

/** Text of the OpenAPI document made safe for VitePress's Markdown (which compiles pages as Vue templates). */
function safe(text: string): string {
  return text.replace(/[<>{}]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '{': '&#123;', '}': '&#125;' })[c]!);
}

function schemaSummary(schema: Json | undefined, components: Record<string, Json>): string {
  if (!schema) return '';
  const ref = schema.$ref as string | undefined;
  if (ref) {
    const name = ref.split('/').pop()!;
    return `[${name}](./schemas#${anchor(name)})`;
  }
  if (schema.type === 'array') return `array of ${schemaSummary(schema.items as Json, components)}`;
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).map((v) => `\`${String(v)}\``).join(' \\| ');
  const type = Array.isArray(schema.type) ? (schema.type as string[]).join(' or ') : String(schema.type ?? 'object');
  const bounds = ['minimum', 'maximum', 'minLength', 'maxLength', 'format']
    .filter((k) => schema[k] !== undefined)
    .map((k) => `${k} ${String(schema[k])}`);
  return `${type}${bounds.length ? ` (${bounds.join(', ')})` : ''}`;
}

const anchor = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** One page per tag: each operation with its parameters, body, responses and error codes. */
function writeReference(): { text: string; link: string }[] {
  const doc = buildOpenApiDocument() as unknown as {
    info: Json;
    paths: Record<string, Record<string, Json>>;
    components: { schemas: Record<string, Json> };
  };
  fs.rmSync(REFERENCE, { recursive: true, force: true });
  fs.mkdirSync(REFERENCE, { recursive: true });
  const byTag = new Map<string, { method: string; path: string; op: Json }[]>();
  for (const [p, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = ((op.tags as string[] | undefined) ?? ['Other'])[0]!;
      byTag.set(tag, [...(byTag.get(tag) ?? []), { method, path: p, op }]);
    }
  }
  const pages: { text: string; link: string }[] = [];
  const index: string[] = [
    '# API reference',
    '',
    'Rendered from the OpenAPI 3.1 document the API serves at `/openapi.json` (the same route declarations validate every request). The interactive reference is at `/docs`.',
    '',
    safe(String(doc.info.description ?? '')),
    '',
    '## Operations by tag',
    '',
  ];
  for (const [tag, ops] of [...byTag.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
    const file = anchor(tag);
    pages.push({ text: tag, link: `/reference/${file}` });
    index.push(`- [${tag}](./${file}) (${ops.length})`);
    const md: string[] = [`# ${tag}`, ''];
    for (const { method, path: p, op } of ops) {
      md.push(`## ${method.toUpperCase()} ${safe(p)} {#${anchor(String(op.operationId ?? `${method}-${p}`))}}`, '');
      if (op.summary) md.push(`**${safe(String(op.summary))}**`, '');
      if (op.description) md.push(safe(String(op.description)), '');
      const params = (op.parameters as Json[] | undefined) ?? [];
      if (params.length) {
        md.push('| Parameter | In | Required | Schema | Description |', '|---|---|---|---|---|');
        for (const prm of params)
          md.push(
            `| \`${String(prm.name)}\` | ${String(prm.in)} | ${prm.required ? 'yes' : 'no'} | ${safe(schemaSummary(prm.schema as Json, doc.components.schemas))} | ${safe(String(prm.description ?? '')).replace(/\n/g, ' ')} |`,
          );
        md.push('');
      }
      const body = op.requestBody as { content?: Record<string, { schema?: Json }> } | undefined;
      if (body?.content) {
        for (const [type, c] of Object.entries(body.content))
          md.push(`Body (\`${type}\`): ${schemaSummary(c.schema, doc.components.schemas)}`, '');
      }
      const responses = (op.responses as Record<string, Json> | undefined) ?? {};
      md.push('| Status | Description |', '|---|---|');
      for (const [status, r] of Object.entries(responses))
        md.push(`| ${status} | ${safe(String(r.description ?? '')).replace(/\n/g, ' ')} |`);
      md.push('');
    }
    fs.writeFileSync(path.join(REFERENCE, `${file}.md`), md.join('\n'));
  }
  pages.push({ text: 'Schemas', link: '/reference/schemas' });
  index.push('- [Schemas](./schemas)');
  const schemas: string[] = ['# Schemas', ''];
  for (const [name, schema] of Object.entries(doc.components.schemas).sort((a, b) => a[0].localeCompare(b[0]))) {
    schemas.push(`## ${name} {#${anchor(name)}}`, '');
    if (schema.description) schemas.push(safe(String(schema.description)), '');
    const props = (schema.properties as Record<string, Json> | undefined) ?? {};
    const required = new Set((schema.required as string[] | undefined) ?? []);
    if (Object.keys(props).length) {
      schemas.push('| Field | Required | Schema | Description |', '|---|---|---|---|');
      for (const [field, s] of Object.entries(props))
        schemas.push(
          `| \`${field}\` | ${required.has(field) ? 'yes' : 'no'} | ${safe(schemaSummary(s, doc.components.schemas))} | ${safe(String(s.description ?? '')).replace(/\n/g, ' ')} |`,
        );
      schemas.push('');
    }
  }
  fs.writeFileSync(path.join(REFERENCE, 'schemas.md'), schemas.join('\n'));
  fs.writeFileSync(path.join(REFERENCE, 'index.md'), index.join('\n'));
  fs.writeFileSync(path.join(REFERENCE, 'pages.json'), JSON.stringify(pages));
  return pages;
}

/** Every built page: its path under BASE, and the ids and internal links in it. */
function builtPages(): Map<string, { ids: Set<string>; links: string[] }> {
  const pages = new Map<string, { ids: Set<string>; links: string[] }>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('.html') && entry.name !== '404.html') {
        const html = fs.readFileSync(file, 'utf8');
        const ids = new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!));
        const links = [...html.matchAll(/<a [^>]*href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
        pages.set(`${BASE}${path.relative(OUT, file).replace(/\\/g, '/')}`, { ids, links });
      }
    }
  };
  walk(OUT);
  return pages;
}

/** A link's page within the site (`/guide/setup.html`), or null for one that leaves it. */
function pageOf(href: string, from: string): { page: string; hash: string } | null {
  if (/^[a-z]+:/i.test(href) || href.startsWith('//')) return null;
  const url = new URL(href, `http://site${from}`);
  if (!url.pathname.startsWith(BASE)) return null;
  let page = url.pathname;
  if (page.endsWith('/')) page += 'index.html';
  else if (!page.endsWith('.html')) page += '.html';
  return { page, hash: decodeURIComponent(url.hash.slice(1)) };
}

function check(navigation: string[]): string[] {
  const faults: string[] = [];
  const pages = builtPages();
  for (const [page, { links }] of pages) {
    for (const href of links) {
      const target = pageOf(href, page);
      if (!target) continue;
      const found = pages.get(target.page);
      if (!found) faults.push(`${page}: link to ${href}: no such page`);
      else if (target.hash && !found.ids.has(target.hash)) faults.push(`${page}: link to ${href}: no element with id "${target.hash}"`);
    }
  }
  const listed = new Set(navigation.map((link) => pageOf(link.startsWith('/') ? `${BASE}${link.slice(1)}` : link, BASE)!.page));
  for (const page of pages.keys()) if (!listed.has(page)) faults.push(`${page} is not in the navigation`);
  return faults;
}

/** The CSP hashes of every inline script of the built pages (api/docs/index.ts mountGuide allows those and no other). */
function writeInlineScriptHashes(): void {
  const hashes = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('.html'))
        for (const m of fs.readFileSync(file, 'utf8').matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g))
          if (m[1]!.trim()) hashes.add(`sha256-${createHash('sha256').update(m[1]!).digest('base64')}`);
    }
  };
  walk(OUT);
  fs.writeFileSync(path.join(OUT, 'csp.json'), JSON.stringify([...hashes].sort()));
}

async function main() {
  const reference = writeReference();
  execFileSync(path.join(ROOT, 'node_modules/.bin/vitepress'), ['build', 'docs'], { cwd: ROOT, stdio: 'inherit' });
  const { sidebar } = (await import(path.join(DOCS, '.vitepress/config.mts'))) as { sidebar: { items: { link: string }[] }[] };
  const navigation = [...sidebar.flatMap((g) => g.items.map((i) => i.link)), ...reference.map((r) => r.link)];
  writeInlineScriptHashes();
  const faults = check(navigation);
  if (faults.length) {
    console.error(`[docs] ${faults.length} fault(s):\n  ${faults.join('\n  ')}`);
    process.exit(1);
  }
  console.log(
    `[docs] built ${builtPages().size} pages into ${path.relative(ROOT, OUT)}; every link and anchor resolves, every page is in the navigation`,
  );
}

void main();
