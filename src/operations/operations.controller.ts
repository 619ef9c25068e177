import { Body, Controller, Headers, HttpCode, Res, UseFilters } from '@nestjs/common';
import { Post } from '../common/http/body-routes';
import {
  ApiBadGatewayResponse,
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { Authenticated, CurrentPrincipal } from '../auth/authenticated.decorator';
import type { Principal } from '../auth/principal';
import { OperationFailedDto, OperationRequestDto, OperationResponseDto } from './dto/operation-request.dto';
import { OperationErrorFilter } from './operation-error.filter';
import { OperationsService } from './operations.service';

@ApiTags('Operations')
@Controller('b/pbl/v2/operation')
@UseFilters(OperationErrorFilter)
export class OperationsController {
  constructor(private readonly operations: OperationsService) {}

  @Post()
  @HttpCode(200)
  @Authenticated('api-key', 'basic')
  @ApiOperation({
    summary: 'Capture, void, refund, cancel, expire or delete a transaction',
    operationId: 'runOperation',
  })
  @ApiHeader({
    name: 'Tracking-Key',
    required: false,
    description: 'A repeat with the same key (same credential, same body) returns the first result',
  })
  @ApiBody({ type: OperationRequestDto })
  @ApiOkResponse({ type: OperationResponseDto })
  @ApiBadRequestResponse({
    type: OperationFailedDto,
    description:
      "Refused: state, amount or input; an amount the gateway's provider cannot move also under `amount`",
  })
  @ApiNotFoundResponse({
    type: OperationFailedDto,
    description: 'No such transaction, or one on a gateway the user may not use (the same answer)',
  })
  @ApiConflictResponse({
    type: OperationFailedDto,
    description:
      'The first request with this Tracking-Key still runs, a payment attempt holds the transaction, or another operation on it waits for the gateway’s answer',
  })
  @ApiUnprocessableEntityResponse({
    type: OperationFailedDto,
    description: 'Tracking-Key reused with another body',
  })
  @ApiBadGatewayResponse({
    type: OperationFailedDto,
    description:
      "The gateway's provider refused the call (its own status, e.g. 401, is in `provider_error`, never ours)",
  })
  async run(
    @CurrentPrincipal() principal: Principal,
    @Body() body: object,
    @Headers('tracking-key') trackingKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Record<string, unknown>> {
    const answer = await this.operations.run(principal, body, trackingKey);
    res.status(answer.status);
    if (answer.replayed) res.setHeader('Tracking-Key-Replayed', 'true');
    for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
    return answer.body;
  }
}
