import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Every schema file imports `z` from here so `.openapi()` is always available:
// the same schema validates requests, types handlers and writes the OpenAPI document.
extendZodWithOpenApi(z);

export { z };
