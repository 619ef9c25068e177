import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKey } from './api-keys/api-key.entity';
import { ApiKeysService } from './api-keys/api-keys.service';
import { AuthThrottleService } from './auth-throttle.service';
import { CredentialsGuard } from './credentials.guard';
import { ApiKeyStrategy } from './strategies/api-key.strategy';
import { BasicStrategy } from './strategies/basic.strategy';
import { User } from './users/user.entity';
import { UsersService } from './users/users.service';

/** Credentials (API keys, Basic users), their strategies and the global guard. */
@Global()
@Module({
  imports: [PassportModule, TypeOrmModule.forFeature([ApiKey, User])],
  providers: [
    ApiKeysService,
    UsersService,
    AuthThrottleService,
    ApiKeyStrategy,
    BasicStrategy,
    CredentialsGuard,
    { provide: APP_GUARD, useExisting: CredentialsGuard },
  ],
  exports: [ApiKeysService, UsersService, CredentialsGuard, AuthThrottleService],
})
export class AuthModule {}
