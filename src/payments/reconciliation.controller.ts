import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../auth/authenticated.decorator';
import { FIELD_ERRORS_SCHEMA } from '../common/errors/error-body.dto';
import { ReconciliationDto, ReconciliationQueryDto } from './dto/reconciliation.dto';
import { ReconciliationService } from './reconciliation.service';

/**
 * `GET /b/checkout/v1/admin/reconciliation/` (contract §20.1), admin only. It lives beside the
 * attempts it reports on (payments/), under the admin API's path and security.
 */
@ApiTags('Admin')
@AdminOnly()
@Controller('b/checkout/v1/admin/reconciliation')
export class ReconciliationController {
  constructor(private readonly reconciliation: ReconciliationService) {}

  @Get()
  @ApiOperation({
    summary: 'Every payment attempt of a period and how it ended against its transaction',
    description:
      "`matched`: the provider's final word is what the transaction shows. `pending`: still being asked " +
      '(an attempt in progress, or a provider session the customer left that may still take the ' +
      'payment). `mismatch`: the provider took money the transaction does not show, or the reverse — ' +
      'a person must look (also an error log line with the reference, and ' +
      '`checkout_reconciliation_mismatches_total`). Counts per gateway cover the whole period.',
    operationId: 'adminReconciliation',
  })
  @ApiOkResponse({ type: ReconciliationDto })
  @ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA, description: 'A bad instant or limit' })
  report(@Query() query: ReconciliationQueryDto): Promise<ReconciliationDto> {
    return this.reconciliation.report(query);
  }
}
