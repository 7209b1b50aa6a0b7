import { ServiceError } from '../../core/errors';

/** The ServiceError a promise rejects with; anything else (or no rejection) fails the test. */
export async function caughtServiceError(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected a ServiceError');
}

/** Code and detail of the ServiceError a promise rejects with. */
export async function codeOf(p: Promise<unknown>): Promise<{ code: string; detail?: string }> {
  const err = await caughtServiceError(p);
  return { code: err.code, detail: err.detail };
}

/** 'OK' when the promise resolves, else the error's code (or its text): one word per case for table-style tests. */
export async function outcome(run: Promise<unknown>): Promise<string> {
  try {
    await run;
    return 'OK';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}
