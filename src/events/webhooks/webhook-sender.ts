import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { AdminConfigService } from '../../admin-config/admin-config.service';
import { AppConfig } from '../../config/app-config';
import type { DeliveryOutcome } from '../delivery-outcome';
import type { OutboxEvent } from '../event.entity';
import { KeepAliveAgents, postJson } from './guarded-http';
import { payloadSignature, standardWebhookSignature } from './signature';

/** The request a webhook attempt sends (exposed for tests and docs). */
export interface WebhookRequest {
  body: string;
  headers: Record<string, string>;
}

/** Sends an event to a `webhook_url` (contract §6), signed with the current signing key. */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  private readonly agents = new KeepAliveAgents();

  constructor(
    private readonly config: AppConfig,
    private readonly adminConfig: AdminConfigService,
  ) {}

  /** The webhook body of an event: its payload and `signature` (empty without a signing key). */
  async signedPayload(event: OutboxEvent): Promise<Record<string, unknown>> {
    return signed(event, await this.adminConfig.webhookSigningKey());
  }

  async build(event: OutboxEvent, now = new Date()): Promise<WebhookRequest> {
    const key = await this.adminConfig.webhookSigningKey();
    const payload = signed(event, key);
    const body = JSON.stringify(payload);
    const timestamp = Math.floor(now.getTime() / 1000);
    const headers: Record<string, string> = {
      'webhook-id': event.eventId,
      'webhook-timestamp': String(timestamp),
    };
    if (key) {
      headers['Signature'] = String(payload.signature);
      headers['webhook-signature'] = standardWebhookSignature(event.eventId, timestamp, body, key);
    }
    return { body, headers };
  }

  async send(event: OutboxEvent, url: string, signal?: AbortSignal): Promise<DeliveryOutcome> {
    const request = await this.build(event);
    return postJson(url, request.body, {
      headers: request.headers,
      timeoutMs: this.config.webhookTimeoutMs,
      blockPrivate: !this.config.webhookAllowPrivate,
      signal,
      agents: this.agents,
    });
  }

  onApplicationShutdown(): void {
    this.agents.destroy();
  }
}

function signed(event: OutboxEvent, key: string | null): Record<string, unknown> {
  return { ...event.payload, signature: key ? payloadSignature(event.payload, key) : '' };
}
