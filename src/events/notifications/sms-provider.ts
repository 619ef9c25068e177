import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { DeliveryOutcome, failedOutcome } from '../delivery-outcome';
import { postJson } from '../webhooks/guarded-http';

/** One text message. */
export interface SmsMessage {
  to: string;
  body: string;
  /** Extra fields a provider may use (event, session id, language). */
  meta: Record<string, string>;
}

/**
 * The small interface an SMS provider adapter implements. A Twilio-style adapter would POST
 * form-encoded `To`/`From`/`Body` to its Messages endpoint with Basic auth and map its answer.
 */
export interface SmsProvider {
  send(message: SmsMessage): Promise<DeliveryOutcome>;
}

/**
 * The generic HTTP provider (`SMS_PROVIDER_URL`): `POST` JSON `{"to", "body", "event",
 * "session_id", "language"}`; any 2xx means accepted, 429/5xx/network errors are retried.
 * The URL is the operator's own setting, so private addresses are allowed.
 */
@Injectable()
export class HttpSmsProvider implements SmsProvider {
  constructor(private readonly config: AppConfig) {}

  send(message: SmsMessage, signal?: AbortSignal): Promise<DeliveryOutcome> {
    if (!this.config.smsProviderUrl)
      return Promise.resolve(failedOutcome('SMS_PROVIDER_URL is not configured', false));
    return postJson(
      this.config.smsProviderUrl,
      JSON.stringify({ to: message.to, body: message.body, ...message.meta }),
      {
        headers: {},
        timeoutMs: this.config.webhookTimeoutMs,
        blockPrivate: false,
        signal,
      },
    );
  }
}
