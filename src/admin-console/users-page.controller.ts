import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { toUserChanges, toUserDto } from '../admin/admin.mapper';
import { AdminService } from '../admin/admin.service';
import { CreateUserDto, UpdateUserDto, type UserDto } from '../admin/dto/user.dto';
import { userPrincipal, type Principal } from '../auth/principal';
import { UsersService } from '../auth/users/users.service';
import { FieldErrors, NotFound, StateConflict, type FieldErrorTree } from '../common/errors/domain-errors';
import { readForm, toApiInput, toFormValues, type FormFieldSpec, type FormValues } from './console-forms';
import { ConsoleResponder, type ConsoleRequest } from './console-responder';
import { SignedInPages } from './console-session.guard';
import type { ConsoleFrame } from './console-templates';
import { validateAs } from './form-validation';
import { resourceEditBody, resourceListBody } from './resource-pages';

const FIELDS: FormFieldSpec[] = [
  { name: 'username', kind: 'text', required: true },
  { name: 'password', kind: 'password', required: true },
  { name: 'gateway_codes', kind: 'list' },
  { name: 'is_admin', kind: 'checkbox' },
  { name: 'is_active', kind: 'checkbox' },
];
/** Editing: an empty password keeps the current one. */
const EDIT_FIELDS = FIELDS.map((f) => (f.name === 'password' ? { ...f, required: false } : f));
const NEW_USER: FormValues = {
  username: '',
  password: '',
  gateway_codes: '',
  is_admin: false,
  is_active: true,
};

const ID = /^[1-9]\d{0,9}$/;

/** Users (contract §19): list, add, edit (deactivate by unticking "Active"), delete — as the admin API does. */
@ApiExcludeController()
@SignedInPages()
@Controller('admin/users')
export class UsersPageController {
  constructor(
    private readonly pages: ConsoleResponder,
    private readonly users: UsersService,
    private readonly admin: AdminService,
  ) {}

  @Get()
  async list(@Req() req: Request, @Res() res: Response): Promise<void> {
    const request = await this.pages.signedIn(req, res);
    if (!request) return;
    const notice = req.query.removed === '1' ? { kind: 'ok' as const, text: request.t.removed } : null;
    await this.renderList(res, request, 200, NEW_USER, undefined, notice);
  }

  @Post()
  async create(@Req() req: Request, @Res() res: Response): Promise<void> {
    const request = await this.pages.signedIn(req, res, true);
    if (!request) return;
    const values = readForm(FIELDS, req.body);
    const checked = await validateAs(CreateUserDto, toApiInput(FIELDS, values));
    if (checked.errors)
      return this.renderList(res, request, 400, { ...values, password: '' }, checked.errors);
    try {
      const body = checked.value;
      await this.admin.createUser({
        username: body.username,
        password: body.password,
        gatewayCodes: body.gateway_codes,
        isAdmin: body.is_admin,
        isActive: body.is_active,
      });
    } catch (error) {
      if (!(error instanceof FieldErrors)) throw error;
      return this.renderList(res, request, 400, { ...values, password: '' }, error.errors);
    }
    this.pages.redirect(res, '/admin/users');
  }

  @Get(':id')
  async edit(@Req() req: Request, @Res() res: Response, @Param('id') id: string): Promise<void> {
    const request = await this.pages.signedIn(req, res);
    if (!request) return;
    const user = await this.find(id);
    if (!user) return this.pages.notFound(req, res, request);
    this.renderEdit(res, request, 200, user, toFormValues(EDIT_FIELDS, { ...user }));
  }

  @Post(':id')
  async update(@Req() req: Request, @Res() res: Response, @Param('id') id: string): Promise<void> {
    const request = await this.pages.signedIn(req, res, true);
    if (!request) return;
    const user = await this.find(id);
    if (!user) return this.pages.notFound(req, res, request);
    const values = readForm(EDIT_FIELDS, req.body);
    const checked = await validateAs(UpdateUserDto, toApiInput(EDIT_FIELDS, values));
    if (checked.errors)
      return this.renderEdit(res, request, 400, user, { ...values, password: '' }, checked.errors);
    try {
      await this.admin.updateUser(actorOf(request), user.id, toUserChanges(checked.value));
    } catch (error) {
      if (!(error instanceof FieldErrors) && !(error instanceof StateConflict)) throw error;
      const errors = error instanceof FieldErrors ? error.errors : undefined;
      const notice = error instanceof StateConflict ? { kind: 'error' as const, text: error.message } : null;
      return this.renderEdit(
        res,
        request,
        error instanceof FieldErrors ? 400 : 409,
        user,
        { ...values, password: '' },
        errors,
        notice,
      );
    }
    this.pages.redirect(res, '/admin/users');
  }

  @Post(':id/delete')
  async remove(@Req() req: Request, @Res() res: Response, @Param('id') id: string): Promise<void> {
    const request = await this.pages.signedIn(req, res, true);
    if (!request) return;
    const user = await this.find(id);
    if (!user) return this.pages.notFound(req, res, request);
    try {
      await this.admin.removeUser(actorOf(request), user.id);
    } catch (error) {
      if (!(error instanceof StateConflict)) throw error;
      const notice = { kind: 'error' as const, text: error.message };
      return this.renderEdit(
        res,
        request,
        409,
        user,
        toFormValues(EDIT_FIELDS, { ...user }),
        undefined,
        notice,
      );
    }
    this.pages.redirect(res, '/admin/users?removed=1');
  }

  private async find(id: string): Promise<UserDto | null> {
    if (!ID.test(id)) return null;
    try {
      return toUserDto(await this.users.get(Number(id)));
    } catch (error) {
      if (error instanceof NotFound) return null;
      throw error;
    }
  }

  private async renderList(
    res: Response,
    request: ConsoleRequest,
    status: number,
    values: FormValues,
    errors?: FieldErrorTree,
    notice: ConsoleFrame['notice'] = null,
  ): Promise<void> {
    const { t } = request;
    const rows = (await this.users.list()).map(toUserDto);
    const yesNo = (b: boolean) => (b ? t.yes : t.no);
    this.pages.page(
      res,
      status,
      request,
      {
        title: t.nav.users,
        path: '/admin/users',
        notice: errors ? { kind: 'error', text: t.fixErrors } : notice,
      },
      resourceListBody<UserDto>({
        t,
        csrf: request.csrf,
        rows,
        columns: [
          { label: t.labels.username, value: (u) => u.username },
          { label: t.labels.gateway_codes, value: (u) => u.gateway_codes.join(', ') },
          { label: t.labels.is_admin, value: (u) => yesNo(u.is_admin) },
          { label: t.labels.is_active, value: (u) => yesNo(u.is_active) },
        ],
        rowName: (u) => u.username,
        editHref: (u) => `/admin/users/${u.id}`,
        createAction: '/admin/users',
        specs: FIELDS,
        values,
        errors,
      }),
    );
  }

  private renderEdit(
    res: Response,
    request: ConsoleRequest,
    status: number,
    user: UserDto,
    values: FormValues,
    errors?: FieldErrorTree,
    notice: ConsoleFrame['notice'] = null,
  ): void {
    const { t } = request;
    this.pages.page(
      res,
      status,
      request,
      {
        title: `${t.nav.users}: ${user.username}`,
        path: `/admin/users/${user.id}`,
        notice: errors ? { kind: 'error', text: t.fixErrors } : notice,
      },
      resourceEditBody({
        t,
        csrf: request.csrf,
        action: `/admin/users/${user.id}`,
        deleteAction: `/admin/users/${user.id}/delete`,
        specs: EDIT_FIELDS,
        values,
        errors,
        hint: t.passwordKeepHint,
      }),
    );
  }
}

/** The signed-in admin as the admin service's rules see callers (e.g. no deleting oneself). */
function actorOf(request: ConsoleRequest): Principal {
  return userPrincipal(request.session.user);
}
