import type { EntityTagger } from '../../core/pii-types';
import { rampartTagger } from '../../integrations/pii/rampart';

/** The personal-data model set-up installs (stack/redaction-setup.sh): tests and benches that measure it need it. */
export function installedPersonalDataModel(): EntityTagger {
  const tagger = rampartTagger();
  if (!tagger) throw new Error('the personal-data model is not installed (stack/redaction-setup.sh)');
  return tagger;
}
