import { applyDecorators } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
} from '@nestjs/swagger';
import { DetailDto, FIELD_ERRORS_SCHEMA } from '../common/errors/error-body.dto';
import { WebhookPayloadDto } from '../transactions/dto/webhook-payload.dto';

/**
 * The documented answers of a route that pays a transaction and answers with the payment's webhook
 * payload (auto-debit, the cash acknowledgement): the payload, 400, 404 and 409 (not payable).
 */
export const PaymentPayloadResponses = (descriptions: {
  ok: string;
  badRequest: string;
  notFound?: string;
}): MethodDecorator =>
  applyDecorators(
    ApiOkResponse({ type: WebhookPayloadDto, description: descriptions.ok }),
    ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA, description: descriptions.badRequest }),
    ApiNotFoundResponse(
      descriptions.notFound ? { type: DetailDto, description: descriptions.notFound } : { type: DetailDto },
    ),
    ApiConflictResponse({ type: DetailDto, description: 'The transaction is not payable' }),
  );
