import { Body, Controller, HttpCode, Param, Res } from '@nestjs/common';
import { Post } from '../common/http/body-routes';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { Authenticated } from '../auth/authenticated.decorator';
import { DetailDto, FIELD_ERRORS_SCHEMA } from '../common/errors/error-body.dto';
import { TransactionDto } from '../transactions/dto/transaction.dto';
import { TransactionsService } from '../transactions/transactions.service';
import { PayWithTestCardDto } from './dto/pay-with-test-card.dto';
import { PaymentsService } from './payments.service';
import { numberOnlyDefaults, readNewCard } from '../cards/card-input';

@ApiTags('Test helpers')
@Controller('b/checkout/v1/test-helpers/pymt-txn')
export class TestHelpersController {
  constructor(
    private readonly payments: PaymentsService,
    private readonly transactions: TransactionsService,
  ) {}

  @Post(':session_id/pay')
  @HttpCode(200)
  @Authenticated('api-key')
  @ApiOperation({
    summary: 'Pay a sandbox transaction with a test card (for automated tests)',
    description:
      'Runs the same attempt as the payment page. Test cards: 4111 1111 1111 1111 succeeds, ' +
      '4000 0000 0000 0002 is declined, 4000 0000 0000 0119 ends in a gateway error; any other ' +
      'well-formed number is declined. Answers with the transaction after the attempt, whatever its outcome.',
    operationId: 'testHelperPay',
  })
  @ApiParam({ name: 'session_id', description: '40 lowercase hex characters' })
  @ApiOkResponse({ type: TransactionDto })
  @ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA, description: 'No card, or not a card number' })
  @ApiForbiddenResponse({ type: DetailDto, description: 'The gateway is not of type sandbox' })
  @ApiNotFoundResponse({ type: DetailDto })
  @ApiConflictResponse({ type: DetailDto, description: 'The transaction is not payable' })
  async pay(
    @Param('session_id') sessionId: string,
    @Body() body: PayWithTestCardDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TransactionDto> {
    const card = readNewCard(body, numberOnlyDefaults());
    const { transaction } = await this.payments.attempt(sessionId, {
      payWith: { card, save: body.save_card ?? false },
      sandboxOnly: true,
    });
    const view = await this.transactions.represent(transaction);
    res.setHeader('ETag', view.etag);
    return view.body;
  }
}
