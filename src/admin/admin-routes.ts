import { applyDecorators, Controller, Type } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiParamOptions,
  ApiTags,
} from '@nestjs/swagger';
import { AdminOnly } from '../auth/authenticated.decorator';
import { DetailDto, FIELD_ERRORS_SCHEMA } from '../common/errors/error-body.dto';

/**
 * The admin API's route shapes (contract §8), each one decorator: the OpenAPI operation and the answers
 * every route of that kind documents (a 400 field tree on writes, a 404 `{"detail"}` on routes
 * with a parameter). The HTTP method and status stay on the controller method, where the Swagger
 * CLI plugin reads them (it documents the return type under that status).
 */
export interface RouteDoc {
  summary: string;
  description?: string;
  operationId: string;
}

const VALIDATION_FAILED = 'Validation failed: field → messages';

/** An admin-only resource under `/b/checkout/v1/admin/<path>`. */
export const AdminResource = (path: string): ClassDecorator =>
  applyDecorators(ApiTags('Admin'), AdminOnly(), Controller(`b/checkout/v1/admin/${path}`));

const withParam = (param: ApiParamOptions | undefined) =>
  param ? [ApiParam(param), ApiNotFoundResponse({ type: DetailDto })] : [];

export const ListDocs = (doc: RouteDoc, type: Type): MethodDecorator =>
  applyDecorators(ApiOperation(doc), ApiOkResponse({ type, isArray: true }));

export const ReadDocs = (doc: RouteDoc, type: Type, param?: ApiParamOptions): MethodDecorator =>
  applyDecorators(ApiOperation(doc), ...withParam(param), ApiOkResponse({ type }));

export const CreateDocs = (doc: RouteDoc, type: Type, badRequest = VALIDATION_FAILED): MethodDecorator =>
  applyDecorators(
    ApiOperation(doc),
    ApiCreatedResponse({ type }),
    ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA, description: badRequest }),
  );

export const UpdateDocs = (doc: RouteDoc, type: Type, param?: ApiParamOptions): MethodDecorator =>
  applyDecorators(
    ApiOperation(doc),
    ...(param ? [ApiParam(param)] : []),
    ApiOkResponse({ type }),
    ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA, description: VALIDATION_FAILED }),
    ...(param ? [ApiNotFoundResponse({ type: DetailDto })] : []),
  );

/** A DELETE: 204 with `noContent` as its description, or 200 with an `ok` body; `conflict` adds a 409. */
export const DeleteDocs = (
  doc: RouteDoc,
  param: ApiParamOptions,
  answer: { noContent: string; conflict?: string } | { ok: Type },
): MethodDecorator =>
  applyDecorators(
    ApiOperation(doc),
    ApiParam(param),
    'noContent' in answer
      ? ApiNoContentResponse({ description: answer.noContent })
      : ApiOkResponse({ type: answer.ok }),
    ApiNotFoundResponse({ type: DetailDto }),
    ...('conflict' in answer && answer.conflict
      ? [ApiConflictResponse({ type: DetailDto, description: answer.conflict })]
      : []),
  );
