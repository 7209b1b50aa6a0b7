import { TypedSearchAttributes } from '@temporalio/common';
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ROOT } from '../stack/proc';
import { searchAttributeArgs } from '../stack/temporal';
import { SEARCH_ATTRIBUTE_KEYS } from '../workflows/definitions';

// Every server the service runs on registers the search attributes of
// workflows/definitions.ts: the local dev server by its start flags, the
// docker-compose server by its temporal-setup service. Temporal refuses starts
// and upserts that use an unregistered one, so a list that drifts from the
// definitions would stall every job there.

const expected = SEARCH_ATTRIBUTE_KEYS.map((k) => `${k.name}=${TypedSearchAttributes.toMetadataType(k.type)}`).sort();

describe('search attribute registration', () => {
  it('the dev server start flags name every attribute with its type', () => {
    const args = searchAttributeArgs();
    const values = args.filter((_, i) => args[i - 1] === '--search-attribute');
    expect(values.sort()).toEqual(expected);
  });

  it("docker-compose's temporal-setup registers every attribute, and the API and worker wait for it", () => {
    const compose = parseYaml(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });
    const script: string = compose.services['temporal-setup'].entrypoint.at(-1);
    const pairs = [...script.matchAll(/--name (\w+) --type (\w+)/g)].map(([, name, type]) => `${name}=${type}`);
    expect(pairs.sort()).toEqual(expected);
    for (const service of ['api', 'worker']) {
      expect(compose.services[service].depends_on['temporal-setup']).toEqual({ condition: 'service_completed_successfully' });
    }
  });
});
