import { Body, Get, HttpCode, Param } from '@nestjs/common';
import { Delete, Patch, Post } from '../common/http/body-routes';
import { CurrentPrincipal } from '../auth/authenticated.decorator';
import type { Principal } from '../auth/principal';
import { UsersService } from '../auth/users/users.service';
import { AdminResource, CreateDocs, DeleteDocs, ListDocs, UpdateDocs } from './admin-routes';
import { toUserChanges, toUserDto } from './admin.mapper';
import { AdminService } from './admin.service';
import { CreateUserDto, UpdateUserDto, UserDto } from './dto/user.dto';
import { EntityIdPipe } from './entity-id.pipe';

const ID_PARAM = { name: 'id', type: 'integer', example: 2 } as const;

@AdminResource('users')
export class UsersAdminController {
  constructor(
    private readonly users: UsersService,
    private readonly admin: AdminService,
  ) {}

  @Get()
  @ListDocs({ summary: 'List the Basic-auth users', operationId: 'adminListUsers' }, UserDto)
  async list(): Promise<UserDto[]> {
    return (await this.users.list()).map(toUserDto);
  }

  @Post()
  @HttpCode(201)
  @CreateDocs(
    {
      summary: 'Create a user',
      description: 'The password is write-only (stored as a scrypt hash). A duplicate username → 400.',
      operationId: 'adminCreateUser',
    },
    UserDto,
    'Validation failed or duplicate username',
  )
  async create(@Body() body: CreateUserDto): Promise<UserDto> {
    const user = await this.admin.createUser({
      username: body.username,
      password: body.password,
      gatewayCodes: body.gateway_codes,
      isAdmin: body.is_admin,
      isActive: body.is_active,
    });
    return toUserDto(user);
  }

  @Patch(':id')
  @UpdateDocs(
    {
      summary: 'Change a user (partial)',
      description: 'An admin cannot deactivate themself or drop their own admin rights (400).',
      operationId: 'adminUpdateUser',
    },
    UserDto,
    ID_PARAM,
  )
  async update(
    @CurrentPrincipal() actor: Principal,
    @Param('id', EntityIdPipe) id: number,
    @Body() body: UpdateUserDto,
  ): Promise<UserDto> {
    return toUserDto(await this.admin.updateUser(actor, id, toUserChanges(body)));
  }

  @Delete(':id')
  @HttpCode(204)
  @DeleteDocs(
    {
      summary: 'Delete a user',
      description: 'An admin cannot delete themself (409).',
      operationId: 'adminDeleteUser',
    },
    ID_PARAM,
    { noContent: 'Deleted', conflict: 'The admin tried to delete themself' },
  )
  async remove(@CurrentPrincipal() actor: Principal, @Param('id', EntityIdPipe) id: number): Promise<void> {
    await this.admin.removeUser(actor, id);
  }
}
