import { ApiProperty } from '@nestjs/swagger';
import { ProviderErrorDto } from '../../common/errors/error-body.dto';
import { BoolField, TextField, UrlField } from '../../common/validation/field-decorators';
import { LIMITS } from '../../common/validation/limits';

/** `POST /b/pbl/v2/inquiry/` (contract §16): `session_id` or `order_no` names the transaction. */
export class InquiryDto {
  @TextField(40, { optional: true, description: 'The transaction; or send order_no' })
  session_id?: string | null;

  @TextField(LIMITS.orderNo, {
    optional: true,
    description: 'The live (else most recent) transaction with this order_no',
  })
  order_no?: string | null;

  @BoolField({
    optional: true,
    description: 'Also deliver the payload, as a webhook with retries, to webhook_url',
  })
  notify_webhook_url?: boolean | null;

  @UrlField(LIMITS.url, {
    optional: true,
    description: "Where notify_webhook_url delivers; default: the transaction's webhook_url",
  })
  webhook_url?: string | null;
}

/** The inquiry's 404: `{"detail", "result": "failed"}`. */
export class InquiryFailedDto {
  @ApiProperty({ example: 'Not found.' }) detail: string;
  @ApiProperty({ enum: ['failed'] }) result: string;
}

/**
 * The inquiry when the gateway's provider refused to be asked (502, `"result": "failed"`) or did not
 * answer (503, `"result": "pending"`): its own error in `provider_error`, never its status as ours
 * (contract §20.1).
 */
export class InquiryProviderFailedDto {
  @ApiProperty({ example: 'The payment provider (stripe) refused the request.' }) detail: string;
  @ApiProperty({ enum: ['failed', 'pending'] }) result: string;
  @ApiProperty({ type: ProviderErrorDto }) provider_error: ProviderErrorDto;
}
