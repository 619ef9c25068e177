import { Injectable } from '@nestjs/common';
import { mayUseGateway, type Principal } from '../auth/principal';
import { toCardDto } from '../cards/card.view';
import { CardsRepository } from '../cards/cards.repository';
import { Money } from '../common/money/money';
import { AppConfig } from '../config/app-config';
import type { Gateway } from '../gateways/gateway.entity';
import { GatewayDrivers } from '../gateways/gateway-drivers';
import { GatewaysService } from '../gateways/gateways.service';
import { gatewaySummary } from '../gateways/gateway-summary';
import type { PaymentMethodsRequestDto } from './dto/payment-methods-request.dto';
import type { AvailablePaymentMethodDto, PaymentMethodsDto } from './dto/payment-methods.dto';

/**
 * What a merchant can offer (contract §16): the active gateways the caller may use that match every
 * filter sent, and the customer's saved cards on them.
 */
@Injectable()
export class PaymentMethodsService {
  constructor(
    private readonly gateways: GatewaysService,
    private readonly cards: CardsRepository,
    private readonly config: AppConfig,
    private readonly drivers: GatewayDrivers,
  ) {}

  async find(principal: Principal, filters: PaymentMethodsRequestDto): Promise<PaymentMethodsDto> {
    const found = (await this.gateways.list()).filter(
      (gateway) => gateway.isActive && mayUseGateway(principal, gateway.code) && matches(gateway, filters),
    );
    const cards = filters.customer_id
      ? await this.cards.list(
          filters.customer_id,
          found.map((gateway) => gateway.code),
        )
      : [];
    return {
      payment_methods: found.map((gateway) => this.toMethod(gateway)),
      customer_payment_methods: cards.map((card) =>
        toCardDto(
          card,
          this.drivers.savedCardAsksCvc(found.find((gateway) => gateway.code === card.pgCode) ?? null),
        ),
      ),
    };
  }

  private toMethod(gateway: Gateway): AvailablePaymentMethodDto {
    return {
      ...gatewaySummary(gateway, this.config.publicBaseUrl),
      currencies: gateway.currencies,
      operation: gateway.operation,
      tokenizable: gateway.tokenizable,
      fee_description: feeDescription(gateway),
    };
  }
}

/** Whether a gateway passes every filter sent (`plugin` names a transaction type: all serve both). */
function matches(gateway: Gateway, filters: PaymentMethodsRequestDto): boolean {
  if (filters.type && gateway.type !== filters.type) return false;
  if (filters.operation && gateway.operation !== filters.operation) return false;
  if (typeof filters.tokenizable === 'boolean' && gateway.tokenizable !== filters.tokenizable) return false;
  if (filters.pg_names && !filters.pg_names.includes(gateway.pg)) return false;
  if (filters.currencies && !filters.currencies.every((code) => gateway.currencies.includes(code)))
    return false;
  return true;
}

/** `2.5% + 0.25`, `2.5%`, `0.25`, or `No fee`: the fixed part is in the currency paid. */
export function feeDescription(gateway: Pick<Gateway, 'feeFixed' | 'feePercent'>): string {
  const parts: string[] = [];
  const percent = new Money(gateway.feePercent);
  const fixed = new Money(gateway.feeFixed);
  if (!percent.isZero()) parts.push(`${percent.toFixed()}%`);
  if (!fixed.isZero()) parts.push(fixed.toFixed());
  return parts.length ? parts.join(' + ') : 'No fee';
}
