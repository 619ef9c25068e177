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
import { WebhookPayloadDto } from '../events/dto/webhook-payload.dto';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { AutoDebitService } from './auto-debit.service';
import { AutoDebitDto } from './dto/auto-debit.dto';

const CHARGE_DESCRIPTION =
  'Runs the same attempt as the payment page, without the customer. Answers with the webhook ' +
  'payload of the payment (`result` success or failed). Send an `Idempotency-Key` so a retried ' +
  'call never charges twice.';

/** The documented answers of both auto-debit routes. */
const AutoDebitResponses = (): MethodDecorator =>
  applyDecorators(
    ApiOkResponse({ type: WebhookPayloadDto, description: 'The webhook payload of the payment' }),
    ApiBadRequestResponse({
      schema: FIELD_ERRORS_SCHEMA,
      description: "Not the customer's card, or expired",
    }),
    ApiNotFoundResponse({ type: DetailDto }),
    ApiConflictResponse({ type: DetailDto, description: 'The transaction is not payable' }),
  );

@ApiTags('Saved cards')
@Controller('b/pbl/v2')
export class AutoDebitController {
  constructor(private readonly autoDebits: AutoDebitService) {}

  @Post('auto-debit')
  @HttpCode(200)
  @Authenticated('api-key')
  @Idempotent()
  @ApiOperation({
    summary: 'Charge a payable transaction with a saved card (merchant-initiated)',
    description: CHARGE_DESCRIPTION,
    operationId: 'autoDebit',
  })
  @AutoDebitResponses()
  charge(@Body() body: AutoDebitDto): Promise<Record<string, unknown>> {
    return this.autoDebits.charge(body.session_id, body.token);
  }

  @Post('payment/auto-debit')
  @HttpCode(200)
  @Authenticated('api-key')
  @Idempotent()
  @ApiOperation({
    summary: 'Charge a payable transaction with a saved card (the same as /b/pbl/v2/auto-debit/)',
    description: CHARGE_DESCRIPTION,
    operationId: 'paymentAutoDebit',
  })
  @AutoDebitResponses()
  chargeAtPaymentPath(@Body() body: AutoDebitDto): Promise<Record<string, unknown>> {
    return this.autoDebits.charge(body.session_id, body.token);
  }
}
