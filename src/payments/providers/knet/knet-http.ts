import { sendProviderRequest } from '../provider-http';

/**
 * One POST to KNET with two limits (contract §20 "Provider calls"): `connectTimeoutMs` until the
 * connection (TCP, and TLS for https) is up, and `timeoutMs` for the whole call, answer included,
 * sent through the provider clients' one HTTP exchange (../provider-http.ts). No redirects are
 * followed; the answer is read up to 64 KiB. A call without an answer fails with that exchange's
 * one error, `ProviderTransportError` (KNET may or may not have acted on it unless `sent` is false).
 */

export interface KnetHttpLimits {
  /** Until the connection is up; default 5 s. */
  connectTimeoutMs: number;
  /** For the whole call. */
  timeoutMs: number;
}

export interface KnetHttpAnswer {
  status: number;
  body: string;
}

const MAX_ANSWER_BYTES = 64 * 1024;

export async function postText(
  operation: string,
  url: URL,
  body: string,
  contentType: string,
  limits: KnetHttpLimits,
): Promise<KnetHttpAnswer> {
  const answer = await sendProviderRequest({
    provider: 'KNET',
    operation,
    method: 'POST',
    url,
    headers: {
      'Content-Type': contentType,
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    },
    body,
    connectTimeoutMs: limits.connectTimeoutMs,
    answerTimeoutMs: limits.timeoutMs,
    maxAnswerBytes: MAX_ANSWER_BYTES,
    beyondMax: 'fail',
  });
  return { status: answer.status, body: answer.text };
}
