import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminConfigService } from '../admin-config/admin-config.service';
import { AdminOnly } from '../auth/authenticated.decorator';
import { FIELD_ERRORS_SCHEMA } from '../common/errors/error-body.dto';
import { AppConfig } from '../config/app-config';
import { definedOnly, toAdminConfigDto } from './admin.mapper';
import { AdminConfigDto, UpdateAdminConfigDto } from './dto/admin-config.dto';

@ApiTags('Admin')
@AdminOnly()
@Controller('b/checkout/v1/admin/config')
export class AdminConfigController {
  constructor(
    private readonly adminConfig: AdminConfigService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Read the run-time settings', operationId: 'adminGetConfig' })
  @ApiOkResponse({ type: AdminConfigDto })
  async get(): Promise<AdminConfigDto> {
    return toAdminConfigDto(await this.adminConfig.get(), this.config.webhookSigningKey);
  }

  @Patch()
  @ApiOperation({
    summary: 'Change run-time settings (partial)',
    description:
      '`webhook_signing_key` is write-only: never echoed; `null` clears it (WEBHOOK_SIGNING_KEY applies again).',
    operationId: 'adminUpdateConfig',
  })
  @ApiOkResponse({ type: AdminConfigDto })
  @ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA, description: 'Validation failed: field → messages' })
  async update(@Body() body: UpdateAdminConfigDto): Promise<AdminConfigDto> {
    const updated = await this.adminConfig.update(
      definedOnly({
        autoExpire: body.auto_expire,
        defaultRedirectUrl: body.default_redirect_url,
        merchantName: body.merchant_name,
        webhookSigningKey: body.webhook_signing_key,
      }),
    );
    return toAdminConfigDto(updated, this.config.webhookSigningKey);
  }
}
