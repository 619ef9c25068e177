import { Body, Controller, HttpCode } from '@nestjs/common';
import { Post } from '../common/http/body-routes';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '../auth/authenticated.decorator';
import type { Principal } from '../auth/principal';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { AutoDebitService } from './auto-debit.service';
import { AutoDebitDto } from './dto/auto-debit.dto';
import { PaymentPayloadResponses } from './payment-payload-responses';

const CHARGE_DESCRIPTION =
  'Runs the same attempt as the payment page, without the customer. Answers with the webhook ' +
  'payload of the payment (`result` success or failed). Send an `Idempotency-Key` so a retried ' +
  'call never charges twice. Takes an API key, or Basic authentication of a user allowed the ' +
  "transaction's gateway (for any other user the transaction answers 404, as an unknown one).";

/** The documented answers of both auto-debit routes. */
const AutoDebitResponses = (): MethodDecorator =>
  PaymentPayloadResponses({
    ok: 'The webhook payload of the payment',
    badRequest: "Not the customer's card, or expired",
    notFound: 'Unknown session, or one on a gateway the Basic user may not use (the same answer)',
  });

@ApiTags('Saved cards')
@Controller('b/pbl/v2')
export class AutoDebitController {
  constructor(private readonly autoDebits: AutoDebitService) {}

  @Post('auto-debit')
  @HttpCode(200)
  @Authenticated('api-key', 'basic')
  @Idempotent()
  @ApiOperation({
    summary: 'Charge a payable transaction with a saved card (merchant-initiated)',
    description: CHARGE_DESCRIPTION,
    operationId: 'autoDebit',
  })
  @AutoDebitResponses()
  charge(
    @CurrentPrincipal() principal: Principal,
    @Body() body: AutoDebitDto,
  ): Promise<Record<string, unknown>> {
    return this.autoDebits.charge(principal, body.session_id, body.token);
  }

  @Post('payment/auto-debit')
  @HttpCode(200)
  @Authenticated('api-key', 'basic')
  @Idempotent()
  @ApiOperation({
    summary: 'Charge a payable transaction with a saved card (the same as /b/pbl/v2/auto-debit/)',
    description: CHARGE_DESCRIPTION,
    operationId: 'paymentAutoDebit',
  })
  @AutoDebitResponses()
  chargeAtPaymentPath(
    @CurrentPrincipal() principal: Principal,
    @Body() body: AutoDebitDto,
  ): Promise<Record<string, unknown>> {
    return this.autoDebits.charge(principal, body.session_id, body.token);
  }
}
