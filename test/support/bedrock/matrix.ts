// The conformance matrix's Bedrock column: the gateway with its Messages alias on the scripted Bedrock,
// signing with credentials from the environment (set for the run, restored after).
import type { Harness } from '../gateway-harness.js';
import { setAwsEnv, startBedrockHarness } from './gateway.js';

const KEY_ID = 'AKIACONFORMANCE00001';
const SECRET = 'conformance-secret-for-the-scripted-bedrock';

export async function startBedrockMatrix(): Promise<{ harness: Harness; close(): Promise<void> }> {
  const restore = setAwsEnv({ AWS_ACCESS_KEY_ID: KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET });
  const h = await startBedrockHarness({ bedrock: { credentials: { [KEY_ID]: { secretAccessKey: SECRET } } } });
  return {
    harness: h,
    async close() {
      await h.close();
      restore();
    },
  };
}
