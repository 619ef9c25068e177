import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/authenticated.decorator';
import { FIELD_ERRORS_SCHEMA } from '../common/errors/error-body.dto';
import {
  EventFeedPageDto,
  EventFeedQueryDto,
  FEED_DEFAULT_LIMIT,
  INVALID_FEED_CURSOR,
} from './dto/event-feed.dto';
import { EventFeedService } from './event-feed.service';

@ApiTags('Events')
@Controller('b/checkout/v1/events')
export class EventsFeedController {
  constructor(private readonly feed: EventFeedService) {}

  @Get()
  @Authenticated('api-key')
  @ApiOperation({
    summary: 'The events feed: every event, oldest first, after a cursor',
    description:
      'For merchants who cannot take webhooks, or reconcile after an outage: the events of the webhooks, each with its signed webhook body. Store `next` and pass it as `after` next time: no event is ever missed or repeated, even while several replicas record events.',
    operationId: 'listEvents',
  })
  @ApiOkResponse({ type: EventFeedPageDto })
  @ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA, description: 'A bad cursor, limit or session_id' })
  list(@Query() query: EventFeedQueryDto): Promise<EventFeedPageDto> {
    return this.feed.page(
      { after: query.after, limit: query.limit ?? FEED_DEFAULT_LIMIT, sessionId: query.session_id },
      INVALID_FEED_CURSOR,
    );
  }
}
