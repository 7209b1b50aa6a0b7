import path from 'node:path';
import { build } from 'esbuild';
import type { Express, Request, Response } from 'express';
import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { ServiceError } from '../../../core/errors';
import { Uuid } from '../../../domain/schemas/common';
import { mediaBySignedLink, signedMediaLink, transcriptMedia } from '../../../domain/transcripts/media';
import type { TranscriptView } from '../../../domain/transcripts/read';
import type { AppDeps } from '../../http/context';
import { sendError } from '../../http/envelope';
import { sendStoredMedia } from '../../http/media-range';

// The MCP App (the io.modelcontextprotocol/ui extension) of the transcript tools: a ui:// resource holding one
// HTML page (transcript-view.js bundled with the MCP Apps SDK), named in the _meta.ui of get_transcript and
// get_video_transcript. A host that supports apps renders it in a sandboxed frame and hands it the tool
// result; one that does not shows the result's text as before. The page needs nothing from outside but the
// media: an upload's file through a signed link of this service, or a video platform's embedded player.

export const TRANSCRIPT_APP_URI = 'ui://transcript-service/transcript';
/** The MCP Apps SDK's MIME type of an app's HTML (RESOURCE_MIME_TYPE of @modelcontextprotocol/ext-apps). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** Where a tool result carries the media for the app: in _meta, which hosts give the app and not the model. */
export const MEDIA_META_KEY = 'transcript-service/media';
/** Embedded players of the platforms that have one without a script API (a start time in the URL seeks). */
const EMBED_ORIGIN = 'https://www.youtube-nocookie.com';

/** The tool metadata that names the app: the current spelling and the SDK's older flat key, which some hosts still read. */
export const appToolMeta = { ui: { resourceUri: TRANSCRIPT_APP_URI }, 'ui/resourceUri': TRANSCRIPT_APP_URI };

export type AppMedia =
  { kind: 'audio' | 'video'; url: string; expires_at: string } | { kind: 'embed'; url: string; watch_url: string | null } | null;

/** The media the app plays for a transcript: an upload's stored file (signed link), a videosite video's embedded player. */
export async function appMedia(deps: AppDeps, workspaceId: string, t: TranscriptView): Promise<AppMedia> {
  if (t.source.platform === 'videosite' && /^[A-Za-z0-9_-]{11}$/.test(t.source.media_id))
    return { kind: 'embed', url: `${EMBED_ORIGIN}/embed/${t.source.media_id}`, watch_url: t.source.canonical_url };
  const stored = await transcriptMedia(deps.db, deps.objectStore, workspaceId, t.source);
  if (!stored) return null;
  const link = signedMediaLink(deps.secretsKey, deps.baseUrl, workspaceId, t.id);
  return { kind: stored.contentType.startsWith('video/') ? 'video' : 'audio', ...link };
}

/** A tool result with the app's media in its _meta (hosts give _meta to the app, never to the model). */
export function withAppMedia(media: AppMedia, result: CallToolResult): CallToolResult {
  return { ...result, _meta: { ...result._meta, [MEDIA_META_KEY]: media } };
}

let html: Promise<string> | undefined;

/** The app's page: styles and the bundled script inline (hosts load a ui:// resource as one document), built once per process. */
export function transcriptAppHtml(): Promise<string> {
  html ??= build({
    entryPoints: [path.join(__dirname, 'transcript-view.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    legalComments: 'none',
  }).then(({ outputFiles }) => {
    // A literal "</script" inside the bundle would end the inline script early.
    const script = outputFiles[0]!.text.replace(/<\/script/gi, '<\\/script');
    return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>Transcript</title>
<style>${APP_CSS}</style>
</head>
<body>
<main id="app"><p class="facts">Waiting for the transcript…</p></main>
<script type="module">${script}</script>
</body>
</html>`;
  });
  return html;
}

const APP_CSS = `
:root { color-scheme: light dark; --muted: #666; --line: #ccc7; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; }
main { padding: 0.75rem 1rem; max-width: 60rem; }
h1 { font-size: 1.1rem; margin: 0 0 0.25rem; }
.facts { color: var(--muted); margin: 0 0 0.75rem; }
.player { width: 100%; border: 0; margin-bottom: 0.75rem; }
iframe.player { aspect-ratio: 16 / 9; height: auto; }
ol.segments { list-style: none; margin: 0; padding: 0; }
ol.segments li { padding: 0.2rem 0; border-bottom: 1px solid var(--line); }
button.t { font: inherit; font-variant-numeric: tabular-nums; color: #0b57d0; background: none; border: 0; padding: 0 0.5rem 0 0; cursor: pointer; }
@media (prefers-color-scheme: dark) { button.t { color: #8ab4f8; } }
.spk { display: inline-block; min-width: 1.4rem; text-align: center; border-radius: 3px; background: #0b57d022; margin-right: 0.25rem; }
button.more { margin-top: 0.75rem; font: inherit; padding: 0.3rem 0.8rem; }
.error { color: #b3261e; }
`;

/** Registers the app's resource on a request's McpServer; its CSP metadata names what the page may load. */
export function registerTranscriptApp(server: McpServer, deps: AppDeps): void {
  const csp = { resourceDomains: [new URL(deps.baseUrl).origin], frameDomains: [EMBED_ORIGIN] };
  server.registerResource(
    'transcript_app',
    TRANSCRIPT_APP_URI,
    {
      title: 'Transcript viewer',
      description: 'Shows a transcript with its segments, speakers and a player beside get_transcript and get_video_transcript.',
      mimeType: APP_MIME_TYPE,
      _meta: { ui: { csp, prefersBorder: true } },
    },
    async () => ({
      contents: [
        { uri: TRANSCRIPT_APP_URI, mimeType: APP_MIME_TYPE, text: await transcriptAppHtml(), _meta: { ui: { csp, prefersBorder: true } } },
      ],
    }),
  );
}

/** GET /media/transcripts/{id}?expires=&signature=: a signed media link (domain/transcripts/media.ts) played in byte ranges. */
export function mountSignedMedia(app: Express, deps: AppDeps): void {
  app.get('/media/transcripts/:id', async (req: Request, res: Response) => {
    const q = req.query;
    // The id is checked as what its column holds (a UUID) before any query: anything else is a link that is not valid.
    const id = Uuid.safeParse(req.params.id);
    const media = id.success
      ? await mediaBySignedLink(deps.db, deps.objectStore, deps.secretsKey, {
          id: id.data,
          expires: typeof q.expires === 'string' ? q.expires : '',
          signature: typeof q.signature === 'string' ? q.signature : '',
        })
      : null;
    if (!media) {
      res.locals.errorCode = 'FORBIDDEN';
      return sendError(
        res,
        new ServiceError('FORBIDDEN', 'signature', {
          message: 'This media link is not valid or has expired: read the transcript again for a new one.',
        }),
      );
    }
    await sendStoredMedia(req, res, deps.objectStore, media);
  });
}
