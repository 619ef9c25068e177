import { Body, Get, HttpCode, Param } from '@nestjs/common';
import { Delete, Post } from '../common/http/body-routes';
import { ApiKeysService } from '../auth/api-keys/api-keys.service';
import { AdminResource, CreateDocs, DeleteDocs, ListDocs } from './admin-routes';
import { toApiKeyDto, toIssuedApiKeyDto } from './admin.mapper';
import { AdminService } from './admin.service';
import { ApiKeyDto, CreateApiKeyDto, IssuedApiKeyDto } from './dto/api-key.dto';
import { EntityIdPipe } from './entity-id.pipe';

@AdminResource('api-keys')
export class ApiKeysAdminController {
  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly admin: AdminService,
  ) {}

  @Get()
  @ListDocs(
    { summary: 'List the API keys (never their secrets)', operationId: 'adminListApiKeys' },
    ApiKeyDto,
  )
  async list(): Promise<ApiKeyDto[]> {
    return (await this.apiKeys.list()).map(toApiKeyDto);
  }

  @Post()
  @HttpCode(201)
  @CreateDocs(
    {
      summary: 'Issue an API key',
      description:
        'The answer is the only place the full `key` appears: only a hash of its secret is stored.',
      operationId: 'adminCreateApiKey',
    },
    IssuedApiKeyDto,
  )
  async create(@Body() body: CreateApiKeyDto): Promise<IssuedApiKeyDto> {
    const expiresAt = body.expires_at ? new Date(body.expires_at) : null;
    return toIssuedApiKeyDto(await this.admin.issueApiKey(body.name, expiresAt));
  }

  @Delete(':id')
  @HttpCode(204)
  @DeleteDocs(
    {
      summary: 'Revoke an API key',
      description:
        'The key stops working at once; its row stays, listed with `revoked_at`. Revoking again is a no-op.',
      operationId: 'adminRevokeApiKey',
    },
    { name: 'id', type: 'integer', example: 1 },
    { noContent: 'Revoked' },
  )
  async revoke(@Param('id', EntityIdPipe) id: number): Promise<void> {
    await this.apiKeys.revoke(id);
  }
}
