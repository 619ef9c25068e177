import { Injectable } from '@nestjs/common';
import { FieldErrors } from '../common/errors/domain-errors';
import { GatewaysService } from '../gateways/gateways.service';
import { TransactionsService } from '../transactions/transactions.service';
import {
  RECONCILIATION_DEFAULT_HOURS,
  RECONCILIATION_DEFAULT_LIMIT,
  type ReconciliationCountsDto,
  type ReconciliationDto,
  type ReconciliationQueryDto,
  type ReconciliationStatus,
} from './dto/reconciliation.dto';
import type { PaymentAttempt } from './payment-attempt.entity';
import { PaymentAttemptsRepository } from './payment-attempts.repository';

/**
 * The reconciliation report (contract §20.1): for a period, every payment attempt — each one a
 * provider may have charged — and how it ended against its transaction: `matched` (the provider's
 * final word is what the transaction shows), `pending` (unsettled: the attempt holding the
 * transaction, or one its customer left, still being asked), `mismatch` (the provider took money the
 * transaction does not show, or the reverse; also an error log line and
 * `checkout_reconciliation_mismatches_total`). Counts per gateway over the whole period.
 */
@Injectable()
export class ReconciliationService {
  constructor(
    private readonly attempts: PaymentAttemptsRepository,
    private readonly transactions: TransactionsService,
    private readonly gateways: GatewaysService,
  ) {}

  async report(query: ReconciliationQueryDto, now: Date = new Date()): Promise<ReconciliationDto> {
    const until = query.until ? new Date(query.until) : now;
    const since = query.since
      ? new Date(query.since)
      : new Date(until.getTime() - RECONCILIATION_DEFAULT_HOURS * 3600_000);
    if (since.getTime() >= until.getTime())
      throw new FieldErrors({ since: ['"since" must be before "until".'] });
    const { attempts, counts } = await this.attempts.reconciliation(
      since,
      until,
      query.limit ?? RECONCILIATION_DEFAULT_LIMIT,
    );
    const byId = new Map(
      (await this.transactions.findByIds([...new Set(attempts.map((a) => a.transactionId))])).map((tx) => [
        tx.id,
        tx,
      ]),
    );
    const totals = emptyCounts();
    const perGateway = new Map<string, ReconciliationCountsDto>();
    for (const row of counts) {
      const status = row.status as ReconciliationStatus;
      totals[status] += row.count;
      const gateway = perGateway.get(row.pgCode) ?? emptyCounts();
      gateway[status] += row.count;
      perGateway.set(row.pgCode, gateway);
    }
    const gateways = await Promise.all(
      [...perGateway].map(async ([code, tally]) => ({
        gateway: code,
        pg: (await this.gateways.findByCode(code))?.pg ?? '',
        ...tally,
      })),
    );
    return {
      since: since.toISOString(),
      until: until.toISOString(),
      totals,
      gateways: gateways.sort((a, b) => a.gateway.localeCompare(b.gateway)),
      attempts: attempts.map((attempt) => {
        const tx = byId.get(attempt.transactionId);
        return {
          reference_number: attempt.referenceNumber,
          session_id: tx?.sessionId ?? '',
          gateway: attempt.pgCode,
          status: statusOf(attempt),
          result: attempt.result,
          response_code: attempt.responseCode,
          state: tx?.state ?? 'created',
          amount: attempt.amount,
          currency_code: attempt.currencyCode,
          created_at: attempt.createdAt.toISOString(),
          left_at: attempt.leftAt?.toISOString() ?? null,
          settled_at: attempt.settledAt?.toISOString() ?? null,
        };
      }),
    };
  }
}

/** The status of one attempt (the repository's counts use the same rule in SQL). */
export function statusOf(attempt: PaymentAttempt): ReconciliationStatus {
  if (attempt.settledAt === null) return 'pending';
  return attempt.reconciliation === 'mismatch' ? 'mismatch' : 'matched';
}

function emptyCounts(): ReconciliationCountsDto {
  return { matched: 0, pending: 0, mismatch: 0 };
}
