import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal';
import { FieldErrors, ServiceUnavailable } from '../common/errors/domain-errors';
import { isBlockedLiteralHost } from '../common/net/private-address';
import { AppConfig } from '../config/app-config';
import { EventPayloads } from '../events/event-payloads';
import type { Transaction } from '../transactions/transaction.entity';
import { TransactionsService } from '../transactions/transactions.service';
import { AttemptSettlement } from './attempt-settlement';
import type { InquiryDto } from './dto/inquiry.dto';
import { OperationSettlement } from './operation-settlement';
import { providerDeadline } from './provider-budget';

/**
 * The inquiry (contract §16): a transaction's current state as its webhook payload, after settling an
 * attempt that still holds it, and finishing a provider operation left pending (contract §20), by
 * asking the gateway; optionally sent again as a webhook.
 */
@Injectable()
export class InquiryService {
  constructor(
    private readonly transactions: TransactionsService,
    private readonly settlement: AttemptSettlement,
    private readonly operations: OperationSettlement,
    private readonly payloads: EventPayloads,
    private readonly config: AppConfig,
  ) {}

  async inquire(principal: Principal, body: InquiryDto): Promise<Record<string, unknown>> {
    let tx = await this.find(principal, body);
    const notifyUrl = body.notify_webhook_url ? this.notifyUrl(body, tx) : null;
    // Provider calls share one deadline, inside contract §17's 10 s.
    const deadline = providerDeadline();
    if (await this.settlement.settleOpen(tx, deadline)) tx = await this.transactions.get(tx.sessionId);
    // An operation left pending (contract §20): asked about again, with its own key.
    if (await this.operations.finishOpen(tx, deadline)) tx = await this.transactions.get(tx.sessionId);
    const latest = await this.payloads.latest(tx.id);
    if (!latest) throw new ServiceUnavailable();
    if (notifyUrl) await this.payloads.resend(latest.event, notifyUrl);
    return latest.payload;
  }

  /**
   * The transaction the body names. One on a gateway the caller may not use answers exactly as an
   * unknown one (contract §3: permissions reveal nothing); by order_no, such transactions are not
   * considered at all.
   */
  private async find(principal: Principal, body: InquiryDto): Promise<Transaction> {
    if (body.session_id) return this.transactions.get(body.session_id, principal);
    if (body.order_no) return this.transactions.getByOrderNo(body.order_no, principal);
    throw new FieldErrors({ session_id: ['Send session_id or order_no to name the transaction.'] });
  }

  /** Where the notification goes: the URL sent, else the transaction's own. */
  private notifyUrl(body: InquiryDto, tx: Transaction): string {
    const url = body.webhook_url || tx.webhookUrl;
    if (!url) {
      throw new FieldErrors({
        webhook_url: ['The transaction has no webhook_url: send one to notify.'],
      });
    }
    if (body.webhook_url && !this.config.webhookAllowPrivate && isBlockedLiteralHost(url)) {
      throw new FieldErrors({
        webhook_url: [
          'This URL points at a private or local address, which is not allowed unless the service runs with WEBHOOK_ALLOW_PRIVATE=true (local development; set it and restart).',
        ],
      });
    }
    return url;
  }
}
