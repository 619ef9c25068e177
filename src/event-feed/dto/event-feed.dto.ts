import { ApiProperty } from '@nestjs/swagger';
import { IntField, PatternField } from '../../admin/dto/admin-fields';
import { TextField } from '../../common/validation/field-decorators';
import { EVENT_NAMES } from '../../events/event-types';
import { WebhookPayloadDto } from '../../transactions/dto/webhook-payload.dto';

export const FEED_DEFAULT_LIMIT = 100;
export const FEED_MAX_LIMIT = 500;
export const INVALID_FEED_CURSOR = 'Invalid cursor: pass the "next" value of a previous page as is.';

/** `GET /b/checkout/v1/events/` (contract §18). */
export class EventFeedQueryDto {
  @PatternField(/^[A-Za-z0-9_-]{1,40}$/, 40, INVALID_FEED_CURSOR, {
    optional: true,
    description: 'The `next` of the previous page; left out: from the first event',
  })
  after?: string;

  @IntField(1, FEED_MAX_LIMIT, { optional: true, description: `Page size (default ${FEED_DEFAULT_LIMIT})` })
  limit?: number;

  @TextField(40, { optional: true, notNull: true, description: "Only this transaction's events" })
  session_id?: string;
}

export class FeedEventDto {
  @ApiProperty({ format: 'uuid', description: 'The webhook’s event_id' }) event_id: string;
  @ApiProperty({ enum: [...EVENT_NAMES] }) event: string;
  @ApiProperty({ type: 'integer', description: 'Rises by one with every event of the transaction' })
  sequence: number;
  @ApiProperty({ pattern: '^[0-9a-f]{40}$' }) session_id: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: WebhookPayloadDto, description: 'The webhook body, signed' })
  payload: WebhookPayloadDto;
}

export class EventFeedPageDto {
  @ApiProperty({ type: FeedEventDto, isArray: true, description: 'Oldest first' })
  results: FeedEventDto[];

  @ApiProperty({
    description: 'Pass as `after` next time; the same string when nothing newer exists yet',
  })
  next: string;
}
