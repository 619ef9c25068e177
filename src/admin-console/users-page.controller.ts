import { Controller, Get, Res } from '@nestjs/common';
import { Post } from '../common/http/body-routes';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { toUserChanges, toUserDto } from '../admin/admin.mapper';
import { AdminService } from '../admin/admin.service';
import { CreateUserDto, UpdateUserDto, type UserDto } from '../admin/dto/user.dto';
import { userPrincipal, type Principal } from '../auth/principal';
import { UsersService } from '../auth/users/users.service';
import { NotFound, StateConflict } from '../common/errors/domain-errors';
import {
  conflictState,
  submitForm,
  toFormValues,
  type FormFieldSpec,
  type FormState,
  type FormValues,
} from './console-forms';
import { ConsoleResponder, type ConsoleRequest } from './console-responder';
import { ConsoleForm, ConsolePage, SignedInPages } from './console-session.guard';
import { listState, sendResourcePage } from './resource-pages';

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
  async list(@ConsolePage() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    await this.renderList(res, request, listState(request.query, NEW_USER, { '1': request.t.removed }));
  }

  @Post()
  async create(@ConsoleForm() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const failed = await submitForm(request.body, FIELDS, CreateUserDto, (body) =>
      this.admin.createUser({
        username: body.username,
        password: body.password,
        gatewayCodes: body.gateway_codes,
        isAdmin: body.is_admin,
        isActive: body.is_active,
      }),
    );
    if (failed) return this.renderList(res, request, failed);
    this.pages.redirect(res, '/admin/users');
  }

  @Get(':id')
  async edit(@ConsolePage() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const user = await this.find(request.params.id);
    this.renderEdit(res, request, user, { status: 200, values: toFormValues(EDIT_FIELDS, { ...user }) });
  }

  @Post(':id')
  async update(@ConsoleForm() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const user = await this.find(request.params.id);
    const failed = await submitForm(
      request.body,
      EDIT_FIELDS,
      UpdateUserDto,
      (body) => this.admin.updateUser(actorOf(request), user.id, toUserChanges(body)),
      { showConflicts: true },
    );
    if (failed) return this.renderEdit(res, request, user, failed);
    this.pages.redirect(res, '/admin/users');
  }

  @Post(':id/delete')
  async remove(@ConsoleForm() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const user = await this.find(request.params.id);
    try {
      await this.admin.removeUser(actorOf(request), user.id);
    } catch (error) {
      if (!(error instanceof StateConflict)) throw error;
      return this.renderEdit(
        res,
        request,
        user,
        conflictState(toFormValues(EDIT_FIELDS, { ...user }), error),
      );
    }
    this.pages.redirect(res, '/admin/users?removed=1');
  }

  /** The user, or NotFound (the console's 404 page). */
  private async find(id: string): Promise<UserDto> {
    if (!ID.test(id)) throw new NotFound();
    return toUserDto(await this.users.get(Number(id)));
  }

  private async renderList(res: Response, request: ConsoleRequest, state: FormState): Promise<void> {
    const { t } = request;
    const yesNo = (b: boolean) => (b ? t.yes : t.no);
    sendResourcePage<UserDto>(this.pages, res, request, state, {
      title: t.nav.users,
      path: '/admin/users',
      rows: (await this.users.list()).map(toUserDto),
      columns: [
        { label: t.labels.username, value: (u) => u.username },
        { label: t.labels.gateway_codes, value: (u) => u.gateway_codes.join(', ') },
        { label: t.labels.is_admin, value: (u) => yesNo(u.is_admin) },
        { label: t.labels.is_active, value: (u) => yesNo(u.is_active) },
      ],
      rowName: (u) => u.username,
      editHref: (u) => `/admin/users/${u.id}`,
      specs: FIELDS,
    });
  }

  private renderEdit(res: Response, request: ConsoleRequest, user: UserDto, state: FormState): void {
    sendResourcePage(this.pages, res, request, state, {
      title: `${request.t.nav.users}: ${user.username}`,
      path: `/admin/users/${user.id}`,
      specs: EDIT_FIELDS,
      hints: { password: request.t.passwordKeepHint },
    });
  }
}

/** The signed-in admin as the admin service's rules see callers (e.g. no deleting oneself). */
function actorOf(request: ConsoleRequest): Principal {
  return userPrincipal(request.session.user);
}
