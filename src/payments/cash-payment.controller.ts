import { applyDecorators, Body, Controller, HttpCode, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Authenticated } from '../auth/authenticated.decorator';
import { DetailDto, FIELD_ERRORS_SCHEMA } from '../common/errors/error-body.dto';
import { WebhookPayloadDto } from '../transactions/dto/webhook-payload.dto';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { CashPaymentService } from './cash-payment.service';
import { CashPaymentDto } from './dto/cash-payment.dto';

const DESCRIPTION =
  'The merchant received the money of a transaction on a cash gateway (pg `cash`): it becomes ' +
  '`paid` and its `paid` event is sent. Answers with that webhook payload. An `Idempotency-Key` ' +
  'makes a retried call answer the first result.';

const CashPaymentDocs = (operationId: string, summary: string): MethodDecorator =>
  applyDecorators(
    ApiOperation({ summary, description: DESCRIPTION, operationId }),
    ApiOkResponse({ type: WebhookPayloadDto, description: 'The payload of the `paid` event' }),
    ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA, description: 'Not a cash gateway, or bad input' }),
    ApiNotFoundResponse({ type: DetailDto }),
    ApiConflictResponse({ type: DetailDto, description: 'The transaction is not payable' }),
  );

@ApiTags('Payments')
@Controller('b/pbl/v2')
export class CashPaymentController {
  constructor(private readonly cash: CashPaymentService) {}

  @Post('payment/cash')
  @HttpCode(200)
  @Authenticated('api-key')
  @Idempotent()
  @CashPaymentDocs('acknowledgeCash', 'Acknowledge the cash payment of a transaction')
  acknowledge(@Body() body: CashPaymentDto): Promise<Record<string, unknown>> {
    return this.cash.acknowledge(body.session_id);
  }

  @Post('cash-payment')
  @HttpCode(200)
  @Authenticated('api-key')
  @Idempotent()
  @CashPaymentDocs(
    'cashPayment',
    'Acknowledge the cash payment of a transaction (the same as /b/pbl/v2/payment/cash/)',
  )
  acknowledgeAtAlias(@Body() body: CashPaymentDto): Promise<Record<string, unknown>> {
    return this.cash.acknowledge(body.session_id);
  }
}
