import {
  applyDecorators,
  Controller,
  Get,
  Headers,
  HttpCode,
  Param,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import { Patch, Post, Put } from '../common/http/body-routes';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiConsumes,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiPayloadTooLargeResponse,
  ApiPreconditionFailedResponse,
  ApiResponse,
  ApiTags,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { AttachmentUploadInterceptor } from '../attachments/attachment-upload.interceptor';
import { Authenticated, CurrentPrincipal } from '../auth/authenticated.decorator';
import type { Principal } from '../auth/principal';
import { DetailDto, FIELD_ERRORS_SCHEMA } from '../common/errors/error-body.dto';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { CreateTransactionDto } from './dto/create-transaction.dto';
import { TransactionDto } from './dto/transaction.dto';
import { UpdateTransactionDto } from './dto/update-transaction.dto';
import {
  TransactionBodyParam,
  TransactionUpdateParam,
  type TransactionBody,
  type TransactionUpdate,
} from './transaction-body';
import { TransactionsService } from './transactions.service';

const MEDIA_TYPES = ['application/json', 'multipart/form-data', 'application/x-www-form-urlencoded'];
const SESSION_ID = {
  name: 'session_id',
  description: '40 lowercase hex characters',
  example: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
};

/**
 * What PATCH and PUT share: an API key, Idempotency-Key (applied after the upload interceptor, so
 * its fingerprint sees the file: see Idempotent), the If-Match header, the media types and answers.
 */
const UpdateRoute = (): MethodDecorator =>
  applyDecorators(
    ApiParam({ ...SESSION_ID, type: String }),
    ApiHeader({
      name: 'If-Match',
      required: false,
      description: 'ETag from a previous read; refused with 412 when stale',
    }),
    ApiConsumes(...MEDIA_TYPES),
    ApiOkResponse({ type: TransactionDto }),
    ApiBadRequestResponse({
      schema: FIELD_ERRORS_SCHEMA,
      description: 'Validation failed: field → messages',
    }),
    ApiNotFoundResponse({ type: DetailDto }),
    ApiConflictResponse({ type: DetailDto, description: 'The state no longer allows updates' }),
    ApiPreconditionFailedResponse({ type: DetailDto }),
    ApiPayloadTooLargeResponse({ type: DetailDto }),
    ApiUnsupportedMediaTypeResponse({ type: DetailDto }),
    // applied in this order, as stacked decorators would be bottom-up
    UseInterceptors(AttachmentUploadInterceptor),
    Idempotent(),
    Authenticated('api-key'),
  );

@ApiTags('Payment transactions')
@Controller('b/checkout/v1/pymt-txn')
export class TransactionsController {
  constructor(private readonly transactions: TransactionsService) {}

  @Post()
  @HttpCode(201)
  @Authenticated('api-key', 'basic')
  @Idempotent() // above the upload interceptor: runs after it (see Idempotent)
  @UseInterceptors(AttachmentUploadInterceptor)
  @ApiOperation({ summary: 'Create a payment transaction', operationId: 'createTransaction' })
  @ApiConsumes(...MEDIA_TYPES)
  @ApiBody({ type: CreateTransactionDto })
  @ApiCreatedResponse({ type: TransactionDto })
  @ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA, description: 'Validation failed: field → messages' })
  @ApiForbiddenResponse({ type: DetailDto, description: 'The user may not use the gateway code' })
  @ApiPayloadTooLargeResponse({ type: DetailDto })
  @ApiUnsupportedMediaTypeResponse({ type: DetailDto })
  async create(
    @CurrentPrincipal() principal: Principal,
    @TransactionBodyParam() body: TransactionBody,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TransactionDto> {
    const view = await this.transactions.create(principal, body);
    res.setHeader('ETag', view.etag);
    return view.body;
  }

  @Patch(':session_id')
  @UpdateRoute()
  @ApiOperation({ summary: 'Update a payment transaction (partial)', operationId: 'updateTransaction' })
  @ApiBody({ type: UpdateTransactionDto })
  async update(
    @TransactionUpdateParam() update: TransactionUpdate,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TransactionDto> {
    return this.updated(res, update, 'partial');
  }

  @Put(':session_id')
  @UpdateRoute()
  @ApiOperation({
    summary: 'Replace a payment transaction (full update)',
    description:
      "Create's required fields must be sent; optional fields left out are reset to their defaults " +
      '(a stored attachment stays unless another is sent). Otherwise as PATCH.',
    operationId: 'replaceTransaction',
  })
  @ApiBody({ type: CreateTransactionDto })
  async replace(
    @TransactionUpdateParam() update: TransactionUpdate,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TransactionDto> {
    return this.updated(res, update, 'full');
  }

  @Get(':session_id')
  @ApiOperation({ summary: 'Retrieve a payment transaction (public)', operationId: 'retrieveTransaction' })
  @ApiParam(SESSION_ID)
  @ApiHeader({
    name: 'If-None-Match',
    required: false,
    description: 'The ETag of the copy you hold: 304 without a body while it is still current',
  })
  @ApiOkResponse({ type: TransactionDto })
  @ApiResponse({ status: 304, description: 'Not modified: If-None-Match names the current ETag' })
  @ApiNotFoundResponse({ type: DetailDto })
  async retrieve(
    @Param('session_id') sessionId: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TransactionDto | undefined> {
    const { etag, view } = await this.transactions.retrieveUnlessCurrent(sessionId, ifNoneMatch);
    res.setHeader('ETag', etag);
    if (!view) {
      res.status(304);
      return undefined;
    }
    return view.body;
  }

  private async updated(
    res: Response,
    update: TransactionUpdate,
    mode: 'partial' | 'full',
  ): Promise<TransactionDto> {
    const { sessionId, principal, body, ifMatch } = update;
    const view = await this.transactions.update(sessionId, principal, body, { ifMatch, mode });
    res.setHeader('ETag', view.etag);
    return view.body;
  }
}
