// The platform steps of one upstream call, shared by the lanes and the token-count route: prepare the
// request (address, envelope, auth) and read the platform's own error shapes.
import type { ProviderConfig } from '../config/types.js';
import type { EncodedRequest } from '../drivers/types.js';
import { GatewayError } from '../errors.js';
import { platformOf } from './registry.js';
import type { Operation, Platform } from './types.js';

export interface PreparedCall {
  platform: Platform;
  request: EncodedRequest;
}

/** Only for a provider with a platform. Any failure is the deployment's (bad_gateway, upstream 401),
 * never the caller's, and its message names no secret. */
export async function platformRequest(
  provider: ProviderConfig,
  encoded: EncodedRequest,
  model: string,
  stream: boolean,
  operation: Operation,
): Promise<PreparedCall> {
  const platform = platformOf(provider)!;
  try {
    const req = await platform.prepare({ path: encoded.path, headers: encoded.headers, body: encoded.body, model, stream, operation });
    return { platform, request: { path: req.path, headers: req.headers, body: req.body } };
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    throw new GatewayError('bad_gateway', `upstream ${provider.name}: could not authenticate to ${provider.platform!.kind}`, { upstreamStatus: 401, cause: err });
  }
}

export function platformError(
  platform: Platform,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  body: string,
): GatewayError | undefined {
  return platform.decodeError?.(status, headers, body);
}
