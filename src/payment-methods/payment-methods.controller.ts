import { Body, Controller, HttpCode } from '@nestjs/common';
import { Post } from '../common/http/body-routes';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '../auth/authenticated.decorator';
import type { Principal } from '../auth/principal';
import { FIELD_ERRORS_SCHEMA } from '../common/errors/error-body.dto';
import { PaymentMethodsRequestDto } from './dto/payment-methods-request.dto';
import { PaymentMethodsDto } from './dto/payment-methods.dto';
import { PaymentMethodsService } from './payment-methods.service';

@ApiTags('Payments')
@Controller('b/pbl/v2/payment-methods')
export class PaymentMethodsController {
  constructor(private readonly methods: PaymentMethodsService) {}

  @Post()
  @HttpCode(200)
  @Authenticated('api-key', 'basic')
  @ApiOperation({
    summary: 'The payment methods you can offer, and a customer’s saved cards on them',
    description:
      'The active gateways the caller may use (an API key: all; a Basic user: its gateway codes) ' +
      'that match every filter sent. With `customer_id`, also that customer’s saved cards on them.',
    operationId: 'listPaymentMethods',
  })
  @ApiOkResponse({ type: PaymentMethodsDto })
  @ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA })
  find(
    @CurrentPrincipal() principal: Principal,
    @Body() filters: PaymentMethodsRequestDto,
  ): Promise<PaymentMethodsDto> {
    return this.methods.find(principal, filters);
  }
}
