import { Body, Controller, HttpCode, UseFilters } from '@nestjs/common';
import { Post } from '../common/http/body-routes';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '../auth/authenticated.decorator';
import type { Principal } from '../auth/principal';
import { FIELD_ERRORS_SCHEMA } from '../common/errors/error-body.dto';
import { FailedResultFilter } from '../common/errors/failed-result.filter';
import { WebhookPayloadDto } from '../transactions/dto/webhook-payload.dto';
import { InquiryDto, InquiryFailedDto, InquiryProviderFailedDto } from './dto/inquiry.dto';
import { InquiryService } from './inquiry.service';

@ApiTags('Operations')
@Controller('b/pbl/v2/inquiry')
@UseFilters(FailedResultFilter)
export class InquiryController {
  constructor(private readonly inquiries: InquiryService) {}

  @Post()
  @HttpCode(200)
  @Authenticated('api-key', 'basic')
  @ApiOperation({
    summary: "A transaction's current state, as its webhook payload",
    description:
      'A payment attempt still in progress is first settled by asking the gateway. With ' +
      '`notify_webhook_url` the payload (its latest event) is also delivered to `webhook_url` — ' +
      "the one sent, else the transaction's — with the webhooks' retries.",
    operationId: 'inquire',
  })
  @ApiOkResponse({ type: WebhookPayloadDto, description: 'The payload of its latest event, signed' })
  @ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA })
  @ApiNotFoundResponse({
    type: InquiryFailedDto,
    description: 'No such transaction, or one on a gateway the user may not use (the same answer)',
  })
  @ApiResponse({
    status: 502,
    type: InquiryProviderFailedDto,
    description:
      "The gateway's provider refused to be asked (its own status is in `provider_error`, never ours)",
  })
  inquire(
    @CurrentPrincipal() principal: Principal,
    @Body() body: InquiryDto,
  ): Promise<Record<string, unknown>> {
    return this.inquiries.inquire(principal, body);
  }
}
