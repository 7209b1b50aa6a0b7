import fs from 'node:fs';
import { defineConfig } from 'vitepress';

// The documentation site (issue 51, item 6): the guides of docs/ and the API reference that stack/docs.ts writes
// into docs/reference/ from the OpenAPI document before it builds. VitePress, because it builds Markdown as it is
// written (the pages stay readable on GitHub), checks every link between pages as it builds (a dead one fails the
// build), and has a search index of its own that needs no server: the API serves the site as static files.
// Every page is in the sidebar; stack/docs.ts checks that, and every anchor, after the build.

export const sidebar = [
  {
    text: 'Start',
    items: [
      { text: 'Overview', link: '/' },
      { text: 'Running it', link: '/setup' },
      { text: 'How it is built', link: '/architecture' },
    ],
  },
  {
    text: 'Guides',
    items: [
      { text: 'Speech recognition', link: '/speech-recognition' },
      { text: 'Discoveries', link: '/discoveries' },
      { text: 'Agent tool server', link: '/agents' },
      { text: 'Billing', link: '/billing' },
      { text: 'Dashboard', link: '/dashboard' },
    ],
  },
  {
    text: 'Running it in production',
    items: [
      { text: 'Operating it', link: '/operations' },
      { text: 'Capacity', link: '/capacity' },
      { text: 'Tests', link: '/testing' },
    ],
  },
  {
    text: 'Reference',
    items: [
      { text: 'API reference', link: '/reference/' },
      { text: 'Decisions the spec left open', link: '/decisions' },
      { text: 'Libraries chosen', link: '/libraries' },
    ],
  },
];

export default defineConfig({
  title: 'Transcript Service',
  description: 'Timed transcripts of video links, uploads and media links: the API, its guides and its reference.',
  base: '/guide/',
  outDir: '../dist/docs',
  cacheDir: '../.data/docs-cache',
  lang: 'en',
  // A link to a page that does not exist fails the build; the local stack's own addresses (http://localhost:8080,
  // the Temporal UI of `npm run dev`) are not pages of the site.
  ignoreDeadLinks: 'localhostLinks',
  // No request leaves the page for fonts or analytics; the site works where the API does.
  head: [['meta', { name: 'robots', content: 'noindex' }]],
  themeConfig: {
    nav: [
      { text: 'Guides', link: '/setup' },
      { text: 'API reference', link: '/reference/' },
    ],
    sidebar: sidebar.map((group) => ({
      ...group,
      items: group.text === 'Reference' ? [...group.items, ...referencePages()] : group.items,
    })),
    search: { provider: 'local' },
    outline: 'deep',
  },
});

/** The reference pages stack/docs.ts wrote (one per tag of the OpenAPI document), from its list. */
function referencePages(): { text: string; link: string }[] {
  const list = new URL('../reference/pages.json', import.meta.url);
  return fs.existsSync(list) ? (JSON.parse(fs.readFileSync(list, 'utf8')) as { text: string; link: string }[]) : [];
}
