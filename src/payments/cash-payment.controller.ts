import { applyDecorators, Body, Controller, HttpCode } from '@nestjs/common';
import { Post } from '../common/http/body-routes';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/authenticated.decorator';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { CashPaymentService } from './cash-payment.service';
import { CashPaymentDto } from './dto/cash-payment.dto';
import { PaymentPayloadResponses } from './payment-payload-responses';

const DESCRIPTION =
  'The merchant received the money of a transaction on a cash gateway (pg `cash`): it becomes ' +
  '`paid` and its `paid` event is sent. Answers with that webhook payload. An `Idempotency-Key` ' +
  'makes a retried call answer the first result.';

const CashPaymentDocs = (operationId: string, summary: string): MethodDecorator =>
  applyDecorators(
    ApiOperation({ summary, description: DESCRIPTION, operationId }),
    PaymentPayloadResponses({
      ok: 'The payload of the `paid` event',
      badRequest: 'Not a cash gateway, or bad input',
    }),
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
