import { Controller, Get, Res } from '@nestjs/common';
import { Post } from '../common/http/body-routes';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { AdminConfigService } from '../admin-config/admin-config.service';
import { definedOnly, toAdminConfigDto } from '../admin/admin.mapper';
import type { AdminConfigDto } from '../admin/dto/admin-config.dto';
import { UpdateAdminConfigDto } from '../admin/dto/admin-config.dto';
import type { FieldErrorTree } from '../common/errors/domain-errors';
import { AppConfig } from '../config/app-config';
import { configBody, type ConfigForm } from './console-pages';
import { ConsoleResponder, type ConsoleRequest } from './console-responder';
import { ConsoleForm, ConsolePage, SignedInPages } from './console-session.guard';
import { formText, validateAs } from './form-validation';

/** The run-time settings (contract §19 "Configuration"), as `PATCH admin/config/` takes them. */
@ApiExcludeController()
@SignedInPages()
@Controller('admin/config')
export class ConfigPageController {
  constructor(
    private readonly pages: ConsoleResponder,
    private readonly adminConfig: AdminConfigService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  async show(@ConsolePage() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const current = await this.current();
    const form = {
      auto_expire: current.auto_expire,
      default_redirect_url: current.default_redirect_url ?? '',
      merchant_name: current.merchant_name,
    };
    this.render(res, request, 200, current, form, undefined, request.query.saved === '1');
  }

  @Post()
  async save(@ConsoleForm() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const form: ConfigForm = {
      auto_expire: formText(request.body, 'auto_expire') === 'true',
      default_redirect_url: formText(request.body, 'default_redirect_url').trim(),
      merchant_name: formText(request.body, 'merchant_name'),
    };
    const key = formText(request.body, 'webhook_signing_key');
    // The form's spelling of the API's: an empty URL clears it, an empty key keeps it.
    const checked = await validateAs(UpdateAdminConfigDto, {
      auto_expire: form.auto_expire,
      default_redirect_url: form.default_redirect_url === '' ? null : form.default_redirect_url,
      merchant_name: form.merchant_name,
      webhook_signing_key:
        formText(request.body, 'clear_signing_key') === 'true' ? null : key === '' ? undefined : key,
    });
    if (checked.errors) return this.render(res, request, 400, await this.current(), form, checked.errors);
    await this.adminConfig.update(
      definedOnly({
        autoExpire: checked.value.auto_expire,
        defaultRedirectUrl: checked.value.default_redirect_url,
        merchantName: checked.value.merchant_name,
        webhookSigningKey: checked.value.webhook_signing_key,
      }),
    );
    this.pages.redirect(res, '/admin/config?saved=1');
  }

  private async current(): Promise<AdminConfigDto> {
    return toAdminConfigDto(await this.adminConfig.get(), this.config.webhookSigningKey);
  }

  private render(
    res: Response,
    request: ConsoleRequest,
    status: number,
    current: AdminConfigDto,
    form: ConfigForm,
    errors?: FieldErrorTree,
    saved = false,
  ): void {
    const { t } = request;
    const notice = errors
      ? { kind: 'error' as const, text: t.fixErrors }
      : saved
        ? { kind: 'ok' as const, text: t.saved }
        : null;
    this.pages.page(
      res,
      status,
      request,
      { title: t.configTitle, path: '/admin/config', notice },
      configBody(request.language, request.csrf, current, form, errors),
    );
  }
}
