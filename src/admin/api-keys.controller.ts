import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { ApiKeysService } from '../auth/api-keys/api-keys.service';
import { AdminOnly } from '../auth/authenticated.decorator';
import { DetailDto, FIELD_ERRORS_SCHEMA } from '../common/errors/error-body.dto';
import { toApiKeyDto, toIssuedApiKeyDto } from './admin.mapper';
import { AdminService } from './admin.service';
import { ApiKeyDto, CreateApiKeyDto, IssuedApiKeyDto } from './dto/api-key.dto';
import { EntityIdPipe } from './entity-id.pipe';

@ApiTags('Admin')
@AdminOnly()
@Controller('b/checkout/v1/admin/api-keys')
export class ApiKeysAdminController {
  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly admin: AdminService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List the API keys (never their secrets)', operationId: 'adminListApiKeys' })
  @ApiOkResponse({ type: ApiKeyDto, isArray: true })
  async list(): Promise<ApiKeyDto[]> {
    return (await this.apiKeys.list()).map(toApiKeyDto);
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Issue an API key',
    description: 'The answer is the only place the full `key` appears: only a hash of its secret is stored.',
    operationId: 'adminCreateApiKey',
  })
  @ApiCreatedResponse({ type: IssuedApiKeyDto })
  @ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA, description: 'Validation failed: field → messages' })
  async create(@Body() body: CreateApiKeyDto): Promise<IssuedApiKeyDto> {
    const expiresAt = body.expires_at ? new Date(body.expires_at) : null;
    return toIssuedApiKeyDto(await this.admin.issueApiKey(body.name, expiresAt));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Revoke an API key',
    description:
      'The key stops working at once; its row stays, listed with `revoked_at`. Revoking again is a no-op.',
    operationId: 'adminRevokeApiKey',
  })
  @ApiParam({ name: 'id', type: 'integer', example: 1 })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiNotFoundResponse({ type: DetailDto })
  async revoke(@Param('id', EntityIdPipe) id: number): Promise<void> {
    await this.apiKeys.revoke(id);
  }
}
