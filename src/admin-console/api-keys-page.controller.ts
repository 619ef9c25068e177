import { Controller, Get, Res } from '@nestjs/common';
import { Post } from '../common/http/body-routes';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { toApiKeyDto } from '../admin/admin.mapper';
import { AdminService } from '../admin/admin.service';
import { CreateApiKeyDto } from '../admin/dto/api-key.dto';
import { ApiKeysService } from '../auth/api-keys/api-keys.service';
import { FieldErrors, NotFound, type FieldErrorTree } from '../common/errors/domain-errors';
import { apiKeysBody } from './console-pages';
import { ConsoleResponder, type ConsoleRequest } from './console-responder';
import { ConsoleForm, ConsolePage, SignedInPages } from './console-session.guard';
import type { ConsoleFrame } from './console-templates';
import { formText, validateAs } from './form-validation';

const EMPTY_FORM = { name: '', expires_at: '' };

/** API keys (contract §19): list, create (the key shown once), revoke — as the admin API does. */
@ApiExcludeController()
@SignedInPages()
@Controller('admin/api-keys')
export class ApiKeysPageController {
  constructor(
    private readonly pages: ConsoleResponder,
    private readonly admin: AdminService,
    private readonly apiKeys: ApiKeysService,
  ) {}

  @Get()
  async list(@ConsolePage() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const notice = request.query.revoked === '1' ? { kind: 'ok' as const, text: request.t.revoked } : null;
    await this.render(res, request, 200, EMPTY_FORM, { notice });
  }

  @Post()
  async create(@ConsoleForm() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const form = {
      name: formText(request.body, 'name'),
      expires_at: formText(request.body, 'expires_at').trim(),
    };
    const checked = await validateAs(CreateApiKeyDto, {
      name: form.name,
      expires_at: form.expires_at === '' ? undefined : form.expires_at,
    });
    if (checked.errors) return this.render(res, request, 400, form, { errors: checked.errors });
    try {
      const expiresAt = checked.value.expires_at ? new Date(checked.value.expires_at) : null;
      const issued = await this.admin.issueApiKey(checked.value.name, expiresAt);
      // Answered here, not redirected: the key must not travel in a URL, and is never shown again.
      await this.render(res, request, 201, EMPTY_FORM, { issuedKey: issued.key });
    } catch (error) {
      if (!(error instanceof FieldErrors)) throw error;
      await this.render(res, request, 400, form, { errors: error.errors });
    }
  }

  @Post(':id/revoke')
  async revoke(@ConsoleForm() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const id = request.params.id;
    if (!/^[1-9]\d{0,9}$/.test(id)) throw new NotFound();
    await this.apiKeys.revoke(Number(id));
    this.pages.redirect(res, '/admin/api-keys?revoked=1');
  }

  private async render(
    res: Response,
    request: ConsoleRequest,
    status: number,
    form: { name: string; expires_at: string },
    extra: { errors?: FieldErrorTree; issuedKey?: string; notice?: ConsoleFrame['notice'] },
  ): Promise<void> {
    const keys = (await this.apiKeys.list()).map(toApiKeyDto);
    const notice = extra.errors ? { kind: 'error' as const, text: request.t.fixErrors } : extra.notice;
    this.pages.page(
      res,
      status,
      request,
      { title: request.t.apiKeysTitle, path: '/admin/api-keys', notice },
      apiKeysBody(request.language, request.csrf, keys, form, extra.errors, extra.issuedKey),
    );
  }
}
