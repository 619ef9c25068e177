import { Injectable } from '@nestjs/common';
import { mayUseGateway, type Principal } from '../auth/principal';
import { NotFound } from '../common/errors/domain-errors';
import type { GatewayType } from '../gateways/gateway.entity';
import { GatewayDrivers } from '../gateways/gateway-drivers';
import { GatewaysService } from '../gateways/gateways.service';
import { toCardDto } from './card.view';
import { UnitOfWork } from '../database/unit-of-work';
import { CardsRepository } from './cards.repository';
import type { CardDto } from './dto/card.dto';

/** The saved-card API (contract §15): a credential only reaches cards of gateways it may use. */
@Injectable()
export class CardsService {
  constructor(
    private readonly cards: CardsRepository,
    private readonly gateways: GatewaysService,
    private readonly uow: UnitOfWork,
    private readonly drivers: GatewayDrivers,
  ) {}

  async list(
    principal: Principal,
    customerId: string,
    type: GatewayType,
    pgCodes?: string[],
    agreementId?: string | null,
  ): Promise<CardDto[]> {
    const codes = await this.reachableCodes(principal, type);
    const wanted = pgCodes ? codes.filter((code) => pgCodes.includes(code)) : codes;
    const cards = await this.cards.list(customerId, wanted);
    // With an agreement: only the card last used for it, as an array of at most one card.
    const shown =
      agreementId === undefined || agreementId === null
        ? cards
        : [await this.cards.lastUsedFor(agreementId, cards)].filter((card) => card !== null);
    return Promise.all(
      shown.map(async (card) =>
        toCardDto(card, this.drivers.savedCardAsksCvc(await this.gateways.lookup(card.pgCode))),
      ),
    );
  }

  /**
   * Deletes a saved card and what is recorded of its uses, in one unit of work; another customer's,
   * another type's or an unknown token → 404.
   */
  async remove(principal: Principal, token: string, customerId: string, type: GatewayType): Promise<void> {
    const card = await this.cards.findByToken(token);
    const codes = await this.reachableCodes(principal, type);
    if (!card || card.customerId !== customerId || !codes.includes(card.pgCode)) throw new NotFound();
    await this.uow.run((manager) => this.cards.remove(manager, card));
  }

  /** Codes of the gateways of this type the caller may use (inactive ones too: their cards stay visible). */
  private async reachableCodes(principal: Principal, type: GatewayType): Promise<string[]> {
    return (await this.gateways.list())
      .filter((gateway) => gateway.type === type && mayUseGateway(principal, gateway.code))
      .map((gateway) => gateway.code);
  }
}
