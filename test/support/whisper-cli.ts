import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ServiceError, isErrorCode } from '../../core/errors';
import { finishWhisperPiece, WhisperRecognizer } from '../../integrations/recognizers/whisper';
import type { RecognitionResult, RecognizeOptions, SpeechRecognizer } from '../../integrations/recognizers/types';

// The same Whisper engine as the recognition worker, called once per file
// (`python -m recognizer recognize`): for tests and tools that need a real
// recognizer in this process, such as the AssemblyAI fake. It loads the model
// for every file (about a second), which is why the job path never does this.

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
export const RECOGNIZER_PYTHON = path.join(ROOT, '.tools/venv-recognizer/bin/python');

export class WhisperCliRecognizer extends WhisperRecognizer implements SpeechRecognizer {
  async recognize(wavPath: string, opts: RecognizeOptions = {}): Promise<RecognitionResult> {
    const args = ['-m', 'recognizer', 'recognize', wavPath, ...(opts.language ? ['--language', opts.language] : [])];
    let stdout: string;
    try {
      ({ stdout } = await run(RECOGNIZER_PYTHON, args, {
        cwd: ROOT,
        env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
        maxBuffer: 64 * 1024 * 1024,
        signal: opts.signal,
      }));
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      if (e.code === 3 && e.stdout) {
        const { error } = JSON.parse(e.stdout) as { error: { code: string; detail: string } };
        if (isErrorCode(error.code)) throw new ServiceError(error.code, error.detail);
      }
      throw new ServiceError('PROVIDER_UNAVAILABLE', `python -m recognizer failed: ${(e.stderr ?? String(err)).slice(-300)}`);
    }
    const { result } = finishWhisperPiece(JSON.parse(stdout));
    if (result.words.length === 0) throw new ServiceError('NO_SPEECH', 'whisper recognised no words');
    return result;
  }
}
