import { ROUTE_OUTCOMES } from '../../routing/route-decision.entity';
import { ApiProperty } from '@nestjs/swagger';
import { GATEWAY_FLOWS, GATEWAY_OPERATIONS, GATEWAY_TYPES } from '../../gateways/gateway.entity';
import {
  NOTIFICATION_EVENTS,
  PAYMENT_TYPES,
  TRANSACTION_STATES,
  TRANSACTION_TYPES,
} from '../transaction-state';
import { AgreementDto } from './agreement.dto';
import { BillingAddressDto } from './create-transaction.dto';

export class PaymentMethodDto {
  @ApiProperty({ example: 'sandbox' }) code: string;
  @ApiProperty({ example: 'Sandbox card' }) name: string;
  @ApiProperty({ example: 'sandbox' }) pg: string;
  @ApiProperty({ enum: [...GATEWAY_TYPES] }) type: string;
  @ApiProperty() is_sandbox: boolean;
  @ApiProperty({ example: '86.000' }) amount: string;
  @ApiProperty({ example: 'KWD' }) currency_code: string;
  @ApiProperty({
    example: '0.250',
    description: 'fixed + amount × percent / 100, rounded half-up to the currency digits',
  })
  fee: string;
  @ApiProperty({ format: 'uri' }) icon: string;
  @ApiProperty({ enum: [...GATEWAY_FLOWS] }) flow: string;
  @ApiProperty({ format: 'uri', description: "This method's payment page" }) redirect_url: string;
}

class NotificationsView {
  @ApiProperty({ enum: [...NOTIFICATION_EVENTS], isArray: true, required: false }) email?: string[];
  @ApiProperty({ enum: [...NOTIFICATION_EVENTS], isArray: true, required: false }) sms?: string[];
}

/** The transaction representation returned by create, update and retrieve (contract §4). */
/** One decision of a routing gateway (contract §21). */
export class RouteDecisionDto {
  @ApiProperty({ example: 'mpgs-nbk', description: 'The member gateway' }) gateway: string;
  @ApiProperty({ enum: [...ROUTE_OUTCOMES] }) outcome: string;
  @ApiProperty({ example: '2026-11-28T10:00:00.000Z' }) at: string;
}

export class TransactionDto {
  @ApiProperty({ pattern: '^[0-9a-f]{40}$' }) session_id: string;
  @ApiProperty({ enum: [...TRANSACTION_STATES] }) state: string;
  @ApiProperty({ enum: [...TRANSACTION_TYPES] }) type: string;
  @ApiProperty({ enum: [...GATEWAY_OPERATIONS] }) operation: string;
  @ApiProperty({ example: '86.000', description: "Formatted with the currency's digits" }) amount: string;
  @ApiProperty({ example: 'KWD' }) currency_code: string;
  @ApiProperty({ type: String, isArray: true }) pg_codes: string[];
  @ApiProperty({ type: PaymentMethodDto, isArray: true }) payment_methods: PaymentMethodDto[];
  @ApiProperty({ format: 'uri' }) checkout_url: string;
  @ApiProperty({ format: 'uri', description: 'The hosted checkout page itself' }) checkout_page_url: string;
  @ApiProperty({ description: 'PNG QR code of checkout_url; empty unless generate_qr_code was sent' })
  qr_code_url: string;
  @ApiProperty({ description: 'Empty unless requested with shortify_checkout_url' })
  checkout_short_url: string;
  @ApiProperty({ type: String, nullable: true, format: 'uri' }) attachment: string | null;
  @ApiProperty({ description: 'Empty unless requested with shortify_attachment_url' })
  attachment_short_url: string;
  @ApiProperty() mode: string;
  @ApiProperty() webhook_url: string;
  @ApiProperty() redirect_url: string;
  @ApiProperty() customer_id: string;
  @ApiProperty() customer_first_name: string;
  @ApiProperty() customer_last_name: string;
  @ApiProperty() customer_email: string;
  @ApiProperty() customer_phone: string;
  @ApiProperty() customer_address_city: string;
  @ApiProperty({ type: BillingAddressDto, nullable: true }) billing_address: BillingAddressDto | null;
  @ApiProperty({ type: String, nullable: true }) order_no: string | null;
  @ApiProperty({ type: NotificationsView }) notifications: NotificationsView;
  @ApiProperty() vendor_name: string;
  @ApiProperty({ example: '01:00:00' }) expiration_time: string;
  @ApiProperty({ type: String, isArray: true }) email_recipients: string[];
  @ApiProperty({ type: 'object', additionalProperties: true }) extra: Record<string, unknown>;
  @ApiProperty() product_type: string;
  @ApiProperty({ example: 'en' }) language: string;
  @ApiProperty({ enum: [...PAYMENT_TYPES] }) payment_type: string;
  @ApiProperty({ description: 'The gateway code that took the payment; empty before' })
  settled_pg_code: string;
  @ApiProperty({
    example: 'mpgs-nbk',
    description:
      "The gateway the payment was taken on: a routing gateway's member (contract §21), or the " +
      "transaction's own gateway; empty until a payment succeeds",
  })
  gateway_code: string;
  @ApiProperty({
    type: RouteDecisionDto,
    isArray: true,
    description:
      "A routing gateway's decisions for this transaction, oldest first (contract §21); [] otherwise",
  })
  routing: RouteDecisionDto[];
  @ApiProperty({ type: AgreementDto, nullable: true }) agreement: AgreementDto | null;
  @ApiProperty() shortify_attachment_url: boolean;
  @ApiProperty() shortify_checkout_url: boolean;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The Basic user who created it; null with an API key',
  })
  initiator_id: number | null;
  @ApiProperty({ type: String, nullable: true }) remarks: string | null;
  @ApiProperty({ example: '0.000' }) paid_amount: string;
  @ApiProperty({ example: '0.000' }) captured_amount: string;
  @ApiProperty({ example: '0.000' }) refunded_amount: string;
  @ApiProperty({ example: '0.000' }) voided_amount: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ format: 'date-time', description: 'created_at + expiration_time' }) expires_at: string;
}
