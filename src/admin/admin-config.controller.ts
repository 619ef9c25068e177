import { Body, Get } from '@nestjs/common';
import { Patch } from '../common/http/body-routes';
import { AdminConfigService } from '../admin-config/admin-config.service';
import { AppConfig } from '../config/app-config';
import { AdminResource, ReadDocs, UpdateDocs } from './admin-routes';
import { definedOnly, toAdminConfigDto } from './admin.mapper';
import { AdminConfigDto, UpdateAdminConfigDto } from './dto/admin-config.dto';

@AdminResource('config')
export class AdminConfigController {
  constructor(
    private readonly adminConfig: AdminConfigService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ReadDocs({ summary: 'Read the run-time settings', operationId: 'adminGetConfig' }, AdminConfigDto)
  async get(): Promise<AdminConfigDto> {
    return toAdminConfigDto(await this.adminConfig.get(), this.config.webhookSigningKey);
  }

  @Patch()
  @UpdateDocs(
    {
      summary: 'Change run-time settings (partial)',
      description:
        '`webhook_signing_key` is write-only: never echoed; `null` clears it (WEBHOOK_SIGNING_KEY applies again).',
      operationId: 'adminUpdateConfig',
    },
    AdminConfigDto,
  )
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
