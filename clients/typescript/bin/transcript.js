#!/usr/bin/env node
// `npx transcript`: the command line of the compiled package (src/cli.ts → dist/cli.js).
'use strict';
try {
  require.resolve('../dist/cli.js');
} catch {
  console.error('transcript: the client is not built yet. Run: npm run build (in clients/typescript)');
  process.exit(1);
}
require('../dist/cli.js')
  .main(process.argv.slice(2))
  .then((code) => process.exit(code));
