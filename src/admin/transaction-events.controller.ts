import { Get, HttpCode, Param } from '@nestjs/common';
import { Post } from '../common/http/body-routes';
import {
  ApiAcceptedResponse,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import { DetailDto } from '../common/errors/error-body.dto';
import { EventDto, RedeliveryDto } from '../events/event-admin.dto';
import { EventsAdminService } from '../events/events-admin.service';
import { TransactionsService } from '../transactions/transactions.service';
import { AdminResource } from './admin-routes';

const SESSION_ID = { name: 'session_id', description: '40 lowercase hex characters' };

@AdminResource('pymt-txn/:session_id/events')
@ApiParam(SESSION_ID)
@ApiNotFoundResponse({ type: DetailDto, description: 'Unknown session or event' })
export class TransactionEventsAdminController {
  constructor(
    private readonly transactions: TransactionsService,
    private readonly events: EventsAdminService,
  ) {}

  @Get()
  @ApiOperation({
    summary: "List a transaction's events with their deliveries",
    operationId: 'adminListEvents',
  })
  @ApiOkResponse({ type: EventDto, isArray: true })
  async list(@Param('session_id') sessionId: string): Promise<EventDto[]> {
    const tx = await this.transactions.getIncludingDeleted(sessionId);
    return this.events.list(tx.id);
  }

  @Post(':event_id/redeliver')
  @HttpCode(202)
  @ApiOperation({ summary: 'Queue a fresh webhook delivery of an event', operationId: 'adminRedeliverEvent' })
  @ApiParam({ name: 'event_id', format: 'uuid' })
  @ApiAcceptedResponse({ type: RedeliveryDto })
  @ApiConflictResponse({ type: DetailDto, description: 'The transaction has no webhook_url' })
  async redeliver(
    @Param('session_id') sessionId: string,
    @Param('event_id') eventId: string,
  ): Promise<RedeliveryDto> {
    const tx = await this.transactions.getIncludingDeleted(sessionId);
    return this.events.redeliver(tx.id, eventId, tx.webhookUrl);
  }
}
