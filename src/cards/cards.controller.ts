import { Body, Controller, HttpCode, Param, Query } from '@nestjs/common';
import { Delete, Post } from '../common/http/body-routes';
import {
  ApiBadRequestResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '../auth/authenticated.decorator';
import type { Principal } from '../auth/principal';
import { DetailDto, FIELD_ERRORS_SCHEMA } from '../common/errors/error-body.dto';
import { CardsService } from './cards.service';
import { CardDto } from './dto/card.dto';
import { DeleteCardQueryDto, ListCardsDto } from './dto/card-requests.dto';

@ApiTags('Saved cards')
@Controller('b/pbl/v2/card')
export class CardsController {
  constructor(private readonly cards: CardsService) {}

  @Post()
  @HttpCode(200)
  @Authenticated('api-key', 'basic')
  @ApiOperation({
    summary: "A customer's saved cards",
    description:
      'Cards of the gateways of `type` the caller may use (and among `pg_codes` when sent), most ' +
      'recently used first: saved, saved again, or charged (a payment page or an auto-debit). With ' +
      '`agreement_id`, only the card last used for that agreement (saved under it, or charged for a ' +
      'transaction carrying it): an array of at most one card, empty when there is none.',
    operationId: 'listCards',
  })
  @ApiOkResponse({ type: CardDto, isArray: true })
  @ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA })
  list(@CurrentPrincipal() principal: Principal, @Body() body: ListCardsDto): Promise<CardDto[]> {
    return this.cards.list(principal, body.customer_id, body.type, body.pg_codes, body.agreement_id);
  }

  @Delete(':token')
  @HttpCode(204)
  @Authenticated('api-key', 'basic')
  @ApiOperation({ summary: 'Delete a saved card', operationId: 'deleteCard' })
  @ApiParam({ name: 'token', description: 'The card token' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA })
  @ApiNotFoundResponse({ type: DetailDto, description: "Unknown, or another customer's card" })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('token') token: string,
    @Query() query: DeleteCardQueryDto,
  ): Promise<void> {
    await this.cards.remove(principal, token, query.customer_id, query.type);
  }
}
