import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { AppConfig } from '../../config/app-config';
import { DeliveryOutcome, failedOutcome } from '../delivery-outcome';
import type { Message } from './templates';

/** E-mail over SMTP (`SMTP_URL`) with nodemailer. */
@Injectable()
export class EmailSender implements OnModuleDestroy {
  private transport: Transporter | null = null;

  constructor(private readonly config: AppConfig) {}

  get configured(): boolean {
    return this.config.smtpUrl !== null;
  }

  async send(to: string, message: Message): Promise<DeliveryOutcome> {
    if (!this.config.smtpUrl) return failedOutcome('SMTP_URL is not configured', false);
    this.transport ??= createTransport({
      url: this.config.smtpUrl,
      connectionTimeout: this.config.webhookTimeoutMs,
      greetingTimeout: this.config.webhookTimeoutMs,
      socketTimeout: this.config.webhookTimeoutMs,
    } as SMTPTransport.Options);
    try {
      const info = (await this.transport.sendMail({
        from: this.config.smtpFrom,
        to,
        subject: message.subject,
        text: message.text,
      })) as { response?: string };
      return {
        ok: true,
        retryable: false,
        statusCode: 250,
        error: null,
        responseBody: (info.response ?? '').slice(0, 1024),
      };
    } catch (error) {
      const e = error as { responseCode?: number; message?: string };
      // A 5xx SMTP reply is permanent (bad mailbox, refused); 4xx and network errors are retried.
      const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500;
      return { ...failedOutcome(e.message ?? String(error), !permanent), statusCode: e.responseCode ?? null };
    }
  }

  onModuleDestroy(): void {
    this.transport?.close();
  }
}
