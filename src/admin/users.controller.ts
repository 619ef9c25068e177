import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { AdminOnly, CurrentPrincipal } from '../auth/authenticated.decorator';
import type { Principal } from '../auth/principal';
import { UsersService } from '../auth/users/users.service';
import { DetailDto, FIELD_ERRORS_SCHEMA } from '../common/errors/error-body.dto';
import { definedOnly, toUserDto } from './admin.mapper';
import { AdminService } from './admin.service';
import { CreateUserDto, UpdateUserDto, UserDto } from './dto/user.dto';
import { EntityIdPipe } from './entity-id.pipe';

const ID_PARAM = { name: 'id', type: 'integer', example: 2 } as const;

@ApiTags('Admin')
@AdminOnly()
@Controller('b/checkout/v1/admin/users')
export class UsersAdminController {
  constructor(
    private readonly users: UsersService,
    private readonly admin: AdminService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List the Basic-auth users', operationId: 'adminListUsers' })
  @ApiOkResponse({ type: UserDto, isArray: true })
  async list(): Promise<UserDto[]> {
    return (await this.users.list()).map(toUserDto);
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a user',
    description: 'The password is write-only (stored as a scrypt hash). A duplicate username → 400.',
    operationId: 'adminCreateUser',
  })
  @ApiCreatedResponse({ type: UserDto })
  @ApiBadRequestResponse({
    schema: FIELD_ERRORS_SCHEMA,
    description: 'Validation failed or duplicate username',
  })
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
  @ApiOperation({
    summary: 'Change a user (partial)',
    description: 'An admin cannot deactivate themself or drop their own admin rights (400).',
    operationId: 'adminUpdateUser',
  })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: UserDto })
  @ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA, description: 'Validation failed: field → messages' })
  @ApiNotFoundResponse({ type: DetailDto })
  async update(
    @CurrentPrincipal() actor: Principal,
    @Param('id', EntityIdPipe) id: number,
    @Body() body: UpdateUserDto,
  ): Promise<UserDto> {
    const changes = definedOnly({
      username: body.username,
      password: body.password,
      gatewayCodes: body.gateway_codes,
      isAdmin: body.is_admin,
      isActive: body.is_active,
    });
    return toUserDto(await this.admin.updateUser(actor, id, changes));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a user',
    description: 'An admin cannot delete themself (409).',
    operationId: 'adminDeleteUser',
  })
  @ApiParam(ID_PARAM)
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ type: DetailDto })
  @ApiConflictResponse({ type: DetailDto, description: 'The admin tried to delete themself' })
  async remove(@CurrentPrincipal() actor: Principal, @Param('id', EntityIdPipe) id: number): Promise<void> {
    await this.admin.removeUser(actor, id);
  }
}
